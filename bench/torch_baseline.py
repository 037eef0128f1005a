"""torch.sum and torch.cumsum of 2^30 random f32 on the GPU, with a device copy as the
bandwidth baseline; medians of CUDA-event timings after warm-up. Run on the GPU machine
right after `cargo bench --bench reduce_scan`, in the same command."""
import torch

from timing import median_ms

n = 1 << 30
x = torch.rand(n, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)


copy = median_ms(lambda: y.copy_(x))
s = median_ms(lambda: torch.sum(x))
c = median_ms(lambda: torch.cumsum(x, 0, out=y))
ref = x.double().sum().item()
assert abs(torch.sum(x).item() - ref) / ref < 1e-4
print(f"torch {torch.__version__}: copy 4 GiB {copy:.3f} ms, torch.sum {s:.3f} ms, torch.cumsum {c:.3f} ms")
print(f"TORCH_SUM_MS={s:.4f} TORCH_CUMSUM_MS={c:.4f} TORCH_COPY_MS={copy:.4f}")
