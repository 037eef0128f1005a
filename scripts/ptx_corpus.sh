#!/usr/bin/env bash
# Produce a corpus of compiler-emitted PTX from the sources under corpus/:
#   scripts/ptx_corpus.sh OUT_DIR
# Installs the pinned compilers from PyPI into target/corpus-tools/ when they are missing
# (nvcc 13.0 with its pieces, and Triton), compiles every CUDA C++ source for each of its
# targets and flag variants and every Triton kernel variant, writes OUT_DIR/<name>.ptx and
# OUT_DIR/MANIFEST.tsv (file, compiler, source, target, flags), then assembles every file
# with ptxas 13.0. Fails if any compile or assembly fails, or if fewer than 100 files result.
# Needs no GPU. JOBS (default: the number of cores) sets how many compiles run at once.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
TOOLS="$ROOT/target/corpus-tools"
PYTHON="${PYTHON:-python3}"
JOBS="${JOBS:-$(nproc)}"
MIN_FILES=100

# Pinned toolchain. nvcc and everything it reads come from the same CUDA 13.0 release: a newer
# nvcc (13.x, x > 0) writes a PTX ISA version that ptxas 13.0 refuses.
CUDA_PKGS=(
    nvidia-cuda-nvcc==13.0.88
    nvidia-cuda-crt==13.0.88
    nvidia-nvvm==13.0.88
    nvidia-cuda-runtime==13.0.96
    nvidia-cuda-cccl==13.0.85
)
TRITON_PKGS=(triton==3.5.1)

# install DIR PKG... : pip-install the packages into DIR unless DIR already holds exactly them.
install() {
    local dir="$1"
    shift
    local want="$*"
    if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$want" ]; then
        return 0
    fi
    echo "installing into ${dir#"$ROOT"/}: $want"
    rm -rf "$dir" "$dir.partial"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps --no-warn-script-location --root-user-action=ignore \
        --target "$dir.partial" "$@"
    echo "$want" >"$dir.partial/.installed"
    mv "$dir.partial" "$dir"
}

t_start=$(date +%s)
install "$TOOLS/cuda" "${CUDA_PKGS[@]}"
install "$TOOLS/triton" "${TRITON_PKGS[@]}"
t_installed=$(date +%s)

# All five wheels unpack into one tree, nvidia/cu13/{bin,nvvm,include,lib}, which is the layout
# nvcc.profile expects ($(TOP) = bin/..): cicc from nvvm/bin, libdevice from nvvm/libdevice,
# cudart/CRT headers from include/ and CCCL (-isystem) from include/cccl. No flags are needed.
CUDA_HOME="$TOOLS/cuda/nvidia/cu13"
NVCC="$CUDA_HOME/bin/nvcc"
PTXAS="${PTXAS:-$CUDA_HOME/bin/ptxas}"
export CUDA_HOME
CCBIN="$(command -v g++-12 || command -v g++)"
NVCC_VERSION="$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p')"
echo "nvcc $NVCC_VERSION ($NVCC), host compiler $CCBIN"
echo "ptxas $("$PTXAS" --version | sed -n 's/.*release \([0-9.]*\), V\([0-9.]*\).*/\2/p') ($PTXAS)"

rm -rf "$OUT"/*.ptx "$OUT/MANIFEST.tsv" "$OUT/.logs"
mkdir -p "$OUT/.logs"

# The CUDA builds: source, targets (comma-separated), variant name, nvcc flags.
# Each line gives one PTX file per target: cuda_<source>.<variant>.<target>.ptx
CUDA_BUILDS="$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' <<'EOF'
elementwise.cu     sm_80,sm_90a,sm_100a  O3        -O3
elementwise.cu     sm_80,sm_90a,sm_100a  fastmath  -O3 --use_fast_math
elementwise.cu     sm_80,sm_90a,sm_100a  lineinfo  -O3 -lineinfo
elementwise.cu     sm_80,sm_90a,sm_100a  G         -G
warp_reduce.cu     sm_80,sm_90a,sm_100a  O3        -O3
warp_reduce.cu     sm_80,sm_90a,sm_100a  G         -G
atomics.cu         sm_80,sm_90a,sm_100a  O3        -O3
atomics.cu         sm_80                 G         -G
shared_mem.cu      sm_80,sm_90a,sm_100a  O3        -O3
shared_mem.cu      sm_80,sm_90a,sm_100a  lineinfo  -O3 -lineinfo
control_flow.cu    sm_80,sm_90a,sm_100a  O3        -O3
control_flow.cu    sm_80,sm_90a,sm_100a  G         -G
indirect_calls.cu  sm_80,sm_90a,sm_100a  O3        -O3
indirect_calls.cu  sm_80,sm_90a,sm_100a  G         -G
printf_heap.cu     sm_80,sm_90a          O3        -O3
printf_heap.cu     sm_80,sm_90a          G         -G
textures.cu        sm_80,sm_90a,sm_100a  O3        -O3
math.cu            sm_80,sm_90a,sm_100a  O3        -O3
math.cu            sm_80,sm_90a,sm_100a  fastmath  -O3 --use_fast_math
math.cu            sm_80,sm_90a,sm_100a  approx    -O3 -ftz=true -prec-div=false -prec-sqrt=false
memory_model.cu    sm_80,sm_90a,sm_100a  O3        -O3
memory_model.cu    sm_90a                G         -G
cub_block.cu       sm_80,sm_90a,sm_100a  O3        -O3
cub_block.cu       sm_90a                lineinfo  -O3 -lineinfo
cub_device.cu      sm_80,sm_90a,sm_100a  O3        -O3
coop_groups.cu     sm_80,sm_90a,sm_100a  O3        -O3
coop_groups.cu     sm_80                 G         -G
wmma.cu            sm_80,sm_90a,sm_100a  O3        -O3
wmma.cu            sm_80                 G         -G
mma_async_copy.cu  sm_80,sm_90a,sm_100a  O3        -O3
mma_async_copy.cu  sm_80                 lineinfo  -O3 -lineinfo
hopper_tma.cu      sm_90a,sm_100a        O3        -O3
hopper_tma.cu      sm_90a                G         -G
clusters.cu        sm_90a,sm_100a        O3        -O3
clusters.cu        sm_90a                lineinfo  -O3 -lineinfo
tcgen05.cu         sm_100a               O3        -O3
tcgen05.cu         sm_100a               lineinfo  -O3 -lineinfo
tcgen05.cu         sm_100a               G         -G
rdc_lib.cu         sm_80,sm_90a,sm_100a  rdc       -O3 -rdc=true
rdc_main.cu        sm_80,sm_90a,sm_100a  rdc       -O3 -rdc=true -DPTX_CORPUS_DEVICE_LAUNCH
rdc_main.cu        sm_80                 rdc-G     -G -rdc=true -DPTX_CORPUS_DEVICE_LAUNCH
whole_program.cu   sm_80,sm_90a,sm_100a  O3        -O3
EOF
)"

# One job per line: out_name <TAB> source <TAB> target <TAB> flags
jobs_file="$OUT/.logs/cuda-jobs.tsv"
: >"$jobs_file"
while read -r src archs variant flags; do
    [ -f "$ROOT/corpus/cuda/$src" ] || { echo "missing source corpus/cuda/$src" >&2; exit 1; }
    for arch in ${archs//,/ }; do
        printf 'cuda_%s.%s.%s.ptx\t%s\t%s\t%s\n' "${src%.cu}" "$variant" "$arch" "$src" "$arch" "$flags" >>"$jobs_file"
    done
done <<<"$CUDA_BUILDS"

compile_cuda() {
    local name="$1" src="$2" arch="$3" flags="$4"
    local t0=$SECONDS
    # shellcheck disable=SC2086
    if (cd "$ROOT/corpus/cuda" && "$NVCC" -ccbin "$CCBIN" -ptx -arch="$arch" $flags "$src" -o "$OUT/$name") \
        >"$OUT/.logs/$name.log" 2>&1; then
        echo "  nvcc    $name  ($((SECONDS - t0))s)"
    else
        echo "FAILED nvcc $name: nvcc -ptx -arch=$arch $flags corpus/cuda/$src" >&2
        cat "$OUT/.logs/$name.log" >&2
        rm -f "$OUT/$name"
        return 1
    fi
}
export -f compile_cuda
export ROOT OUT NVCC CCBIN

# Triton compiles in the background while nvcc works through its jobs.
echo "compiling $(wc -l <"$jobs_file") CUDA builds and the Triton kernels ($JOBS at a time)"
triton_manifest="$OUT/.logs/triton-manifest.tsv"
: >"$triton_manifest"
(
    cd "$OUT/.logs"
    TRITON_CACHE_DIR="$OUT/.logs/triton-cache" TRITON_HOME="$OUT/.logs" PYTHONPATH="$TOOLS/triton" \
        "$PYTHON" "$ROOT/corpus/triton_emit.py" "$OUT" "$triton_manifest"
) >"$OUT/.logs/triton.log" 2>&1 &
triton_pid=$!

cuda_status=0
xargs -d '\n' -n 1 -P "$JOBS" bash -c 'IFS=$(printf "\t") read -r n s a f <<<"$1"; compile_cuda "$n" "$s" "$a" "$f"' _ \
    <"$jobs_file" || cuda_status=1

triton_status=0
wait "$triton_pid" || triton_status=1
grep -v '^  triton ' "$OUT/.logs/triton.log" || true
if [ "$triton_status" -ne 0 ]; then
    echo "FAILED: the Triton emitter (log above, and in $OUT/.logs/triton.log)" >&2
fi
t_compiled=$(date +%s)

# The manifest.
{
    printf 'file\tcompiler\tsource\ttarget\tflags\n'
    while IFS=$'\t' read -r name src arch flags; do
        [ -f "$OUT/$name" ] && printf '%s\tnvcc %s\tcorpus/cuda/%s\t%s\t%s\n' "$name" "$NVCC_VERSION" "$src" "$arch" "$flags"
    done <"$jobs_file"
    cat "$triton_manifest"
} >"$OUT/MANIFEST.tsv"

# Assemble every file with ptxas 13.0 for the target it names. Files from -rdc=true builds
# call functions defined elsewhere, so they are assembled as relocatable code (-c).
echo "assembling with ptxas"
ptxas_failed=()
while IFS=$'\t' read -r name compiler src arch flags; do
    [ "$name" = file ] && continue
    target="$(sed -n 's/^\.target[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$OUT/$name" | head -1)"
    if [ "$target" != "$arch" ]; then
        echo "FAILED: $name: .target $target, expected $arch" >&2
        ptxas_failed+=("$name")
        continue
    fi
    extra=()
    case " $flags " in *" -rdc=true "*) extra=(-c) ;; esac
    if ! "$PTXAS" -arch="$target" "${extra[@]}" "$OUT/$name" -o /dev/null >"$OUT/.logs/$name.ptxas.log" 2>&1; then
        echo "FAILED: ptxas -arch=$target ${extra[*]} $name" >&2
        cat "$OUT/.logs/$name.ptxas.log" >&2
        ptxas_failed+=("$name")
    fi
done <"$OUT/MANIFEST.tsv"
t_end=$(date +%s)

# Summary.
count=$(($(wc -l <"$OUT/MANIFEST.tsv") - 1))
echo
echo "PTX files per compiler and target:"
awk -F'\t' 'NR > 1 { split($2, c, " "); n[c[1] " " $4]++ } END { for (k in n) printf "  %-16s %d\n", k, n[k] }' \
    "$OUT/MANIFEST.tsv" | sort
echo "total: $count PTX files in $OUT"
echo "time: install $((t_installed - t_start))s, compile $((t_compiled - t_installed))s, ptxas $((t_end - t_compiled))s, all $((t_end - t_start))s"

status=0
[ "$cuda_status" -eq 0 ] || { echo "FAILED: some nvcc compiles failed (above)" >&2; status=1; }
[ "$triton_status" -eq 0 ] || status=1
if [ "${#ptxas_failed[@]}" -gt 0 ]; then
    echo "FAILED: ptxas refused ${#ptxas_failed[@]} file(s): ${ptxas_failed[*]}" >&2
    status=1
fi
if [ "$count" -lt "$MIN_FILES" ]; then
    echo "FAILED: only $count PTX files, fewer than $MIN_FILES" >&2
    status=1
fi
[ "$status" -eq 0 ] && rm -rf "$OUT/.logs"
exit "$status"
