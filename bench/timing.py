"""CUDA-event timing shared by the torch baselines: the median of `iters` timings of `f`
after at least `warmup` calls and 200 ms of them (the clocks of an idle GPU take that long to
rise), in milliseconds."""
import time

import torch


def median_ms(f, warmup=3, iters=20):
    start, n = time.perf_counter(), 0
    while n < warmup or time.perf_counter() - start < 0.2:
        f()
        n += 1
        if n % 8 == 0:
            torch.cuda.synchronize()
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
