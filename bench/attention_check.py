"""Checks ptxkit's attention at the bench's shapes against torch's SDPA on the GPU: reads what
`PTXKIT_ATTN_CHECK=dir cargo bench --bench attention` wrote (Q, K, V, O as bf16, the
log-sum-exp as f32, `[B, H, S, D]`), runs SDPA with the cuDNN backend on the same inputs, and
an f32 reference (softmax in f32 on the GPU) on a few random heads. Each case passes when O
is finite, its largest error against the f32 reference is at most twice cuDNN's plus one
bf16 step at O's scale (2^-8 of the largest |O|), and the log-sum-exp is within 1e-3.
Usage: python3 bench/attention_check.py dir"""
import sys
import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

d = sys.argv[1]
gen = torch.Generator().manual_seed(int.from_bytes(np.random.bytes(4), "little"))
failed = 0
print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}")
for line in open(f"{d}/cases.tsv"):
    n, b, h, hk, sq, sk, hd, causal = line.split()
    b, h, hk, sq, sk, hd, causal = int(b), int(h), int(hk), int(sq), int(sk), int(hd), causal == "true"

    def load(what, shape, dtype=torch.bfloat16):
        raw = np.fromfile(f"{d}/{n}.{what}", dtype=np.uint16 if dtype == torch.bfloat16 else np.float32)
        return torch.from_numpy(raw.view(np.int16) if dtype == torch.bfloat16 else raw).view(dtype).reshape(shape).cuda()

    q, k, v = load("q", (b, h, sq, hd)), load("k", (b, hk, sk, hd)), load("v", (b, hk, sk, hd))
    o, lse = load("o", (b, h, sq, hd)), load("lse", (b, h, sq), torch.float32)
    scale = hd ** -0.5
    backend = "cudnn"
    try:
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ref_fast = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hk != h)
    except RuntimeError:
        backend = "math (bf16)"
        with sdpa_kernel(SDPBackend.MATH):
            ref_fast = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hk != h)
    finite = bool(torch.isfinite(o).all()) and bool(torch.isfinite(lse).all())
    vs_fast = (o.float() - ref_fast.float()).abs().max().item()
    err_ours = err_fast = err_lse = step = 0.0
    heads = [(int(torch.randint(b, (1,), generator=gen)), int(torch.randint(h, (1,), generator=gen))) for _ in range(3)]
    for bi, hi in heads:
        kvh = hi // (h // hk)
        s = (q[bi, hi].float() @ k[bi, kvh].float().T) * scale
        if causal:
            s = s.masked_fill(torch.ones(sq, sk, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
        ref_lse = torch.logsumexp(s, dim=-1)
        ref = torch.softmax(s, dim=-1) @ v[bi, kvh].float()
        del s
        err_ours = max(err_ours, (o[bi, hi].float() - ref).abs().max().item())
        err_fast = max(err_fast, (ref_fast[bi, hi].float() - ref).abs().max().item())
        err_lse = max(err_lse, (lse[bi, hi] - ref_lse).abs().max().item())
        step = max(step, ref.abs().max().item() / 256)
    ok = finite and err_ours <= 2 * err_fast + step and err_lse <= 1e-3
    failed += not ok
    print(f"case {n} B{b} H{h} Hkv{hk} Sq{sq} Sk{sk} D{hd} causal {causal}: finite {finite}, |ours - {backend}| max {vs_fast:.2e}; "
          f"against f32 on heads {heads}: ours {err_ours:.2e}, {backend} {err_fast:.2e}, lse {err_lse:.2e}: {'PASS' if ok else 'FAIL'}")
print(f"{failed} failed")
sys.exit(1 if failed else 0)
