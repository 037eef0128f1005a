"""CUDA-event timing shared by the torch baselines: the median of `iters` timings of `f`
after `warmup` calls, in milliseconds."""
import torch


def median_ms(f, warmup=3, iters=20):
    for _ in range(warmup):
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    mid = len(times) // 2
    return (times[mid - 1] + times[mid]) / 2 if len(times) % 2 == 0 else times[mid]
