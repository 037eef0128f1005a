"""torch's scaled_dot_product_attention (cuDNN and FlashAttention-2 backends) at the
attention bench's shapes, bf16 [B, H, S, D], TFLOP/s counting 4*B*H*S^2*D (half causal),
median of 20 CUDA-event timings after warm-up. Run on the GPU machine beside
`cargo bench --bench attention`, in the same command."""
import sys
import torch

from timing import median_ms
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F

CASES = [(16, 16, 4096, 128), (4, 16, 16384, 128), (16, 32, 4096, 64), (8, 8, 8192, 256)]


if len(sys.argv) == 3 and sys.argv[1] == "sweep":
    # D = 128, 16 heads, 64 Ki tokens per batch: `seq causal backend tflops` lines for the
    # bench's chart.
    with open(f"{sys.argv[2]}/sdpa_sweep.tsv", "w") as out:
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            b, h, d = 65536 // s, 16, 128
            q, k, v = (torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16).uniform_(-1, 1) for _ in range(3))
            for causal in (False, True):
                flops = 4 * b * h * s * s * d / (2 if causal else 1)
                for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash2", SDPBackend.FLASH_ATTENTION)):
                    with sdpa_kernel(backend):
                        ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                    print(f"sweep S{s} causal {causal} {name}: {flops / ms / 1e9:.1f}")
                    out.write(f"{s} {str(causal).lower()} {name} {flops / ms / 1e9:.1f}\n")
    sys.exit(0)

print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}")
print(f"{'shape':<28} {'causal':>8} {'backend':>10} {'ms':>9} {'TFLOP/s':>9}")
for b, h, s, d in CASES:
    q, k, v = (torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16).uniform_(-1, 1) for _ in range(3))
    for causal in (False, True):
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash2", SDPBackend.FLASH_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                print(f"{f'B{b} H{h} S{s} D{d}':<28} {str(causal):>8} {name:>10} {ms:>9.3f} {flops / ms / 1e9:>9.1f}")
            except RuntimeError as e:
                print(f"{f'B{b} H{h} S{s} D{d}':<28} {str(causal):>8} {name:>10} unavailable: {str(e).splitlines()[0]}")
