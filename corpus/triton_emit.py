"""Compile the Triton kernels under corpus/triton/ to PTX without a GPU.

Each module there lists VARIANTS: dicts with name, fn (a @triton.jit function), signature
(argument name -> Triton type string), constexprs, options (num_warps, num_stages, ...) and
targets (compute capabilities). Every variant is compiled for every target it lists with
triton.compile(ASTSource(...), target=GPUTarget("cuda", cc, 32)); the PTX text comes from
compiled.asm["ptx"].

usage: python3 triton_emit.py OUT_DIR MANIFEST_TSV [NAME_FILTER]
"""
import importlib.util
import os
import sys
import time
import traceback

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

ARCH = {80: "sm_80", 90: "sm_90a", 100: "sm_100a"}


def load_modules(folder):
    mods = []
    for fname in sorted(os.listdir(folder)):
        if not fname.endswith(".py"):
            continue
        path = os.path.join(folder, fname)
        spec = importlib.util.spec_from_file_location("ptx_corpus_triton_" + fname[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods.append((fname, mod))
    return mods


def flags_of(variant):
    parts = [f"{k}={v}" for k, v in sorted(variant.get("options", {}).items())]
    parts += [f"{k}={v}" for k, v in variant.get("constexprs", {}).items()]
    return " ".join(parts)


def main():
    out_dir, manifest = sys.argv[1], sys.argv[2]
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    here = os.path.dirname(os.path.abspath(__file__))
    failures = 0
    count = 0
    rows = []
    for fname, mod in load_modules(os.path.join(here, "triton")):
        for v in mod.VARIANTS:
            if only and only not in v["name"]:
                continue
            sig = dict(v["signature"])
            for k in v.get("constexprs", {}):
                sig[k] = "constexpr"
            for cc in v["targets"]:
                arch = ARCH[cc]
                out_name = f"triton_{v['name']}.{arch}.ptx"
                t0 = time.time()
                try:
                    src = ASTSource(v["fn"], sig, constexprs=dict(v.get("constexprs", {})))
                    compiled = triton.compile(src, target=GPUTarget("cuda", cc, 32), options=dict(v.get("options", {})))
                    ptx = compiled.asm["ptx"]
                except Exception:
                    failures += 1
                    print(f"FAILED triton {v['name']} for {arch}:", file=sys.stderr)
                    traceback.print_exc()
                    continue
                with open(os.path.join(out_dir, out_name), "w") as f:
                    f.write(ptx)
                count += 1
                rows.append(f"{out_name}\ttriton {triton.__version__}\tcorpus/triton/{fname}:{v['fn'].__name__}\t{arch}\t{flags_of(v)}\n")
                print(f"  triton  {out_name}  ({time.time() - t0:.1f}s)", flush=True)
    with open(manifest, "a") as f:
        f.writelines(rows)
    print(f"triton: {count} PTX files, {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
