"""Reductions and scans: column sums with atomics, argmax, cumulative sum, histogram, and a
two-dimensional block reduction."""
import triton
import triton.language as tl


@triton.jit
def column_sum_atomic(x_ptr, out_ptr, n_rows, n_cols, stride, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + cols, tl.sum(x, axis=0), mask=cols < n_cols)


@triton.jit
def row_argmax(x_ptr, idx_ptr, val_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.store(idx_ptr + row, i)
    tl.store(val_ptr + row, v)


@triton.jit
def row_cumsum(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0)
    tl.store(y_ptr + row * stride + cols, tl.cumsum(x, axis=0), mask=cols < n_cols)


@triton.jit
def histogram(x_ptr, bins_ptr, n, BLOCK: tl.constexpr, NBINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    h = tl.histogram(x, NBINS)
    tl.atomic_add(bins_ptr + tl.arange(0, NBINS), h)


@triton.jit
def sum_of_squares_2d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tile = tl.reshape(x * x, (BLOCK // 32, 32))
    part = tl.sum(tile, axis=1)
    tl.atomic_add(out_ptr, tl.sum(part, axis=0), sem="relaxed")


VARIANTS = [
    dict(name="column_sum_f32_r64_c64_w4", fn=column_sum_atomic, targets=(80, 90, 100),
         signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32", "stride": "i32"},
         constexprs={"BLOCK_R": 64, "BLOCK_C": 64}, options={"num_warps": 4}),
    dict(name="row_argmax_f32_b2048_w8", fn=row_argmax, targets=(80, 90, 100),
         signature={"x_ptr": "*fp32", "idx_ptr": "*i32", "val_ptr": "*fp32", "stride": "i32", "n_cols": "i32"},
         constexprs={"BLOCK": 2048}, options={"num_warps": 8}),
    dict(name="row_cumsum_i32_b1024_w4", fn=row_cumsum, targets=(80, 90),
         signature={"x_ptr": "*i32", "y_ptr": "*i32", "stride": "i32", "n_cols": "i32"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}),
    dict(name="histogram_i32_b4096_bins64_w4", fn=histogram, targets=(80, 100),
         signature={"x_ptr": "*i32", "bins_ptr": "*i32", "n": "i32"},
         constexprs={"BLOCK": 4096, "NBINS": 64}, options={"num_warps": 4}),
    dict(name="sum_of_squares_f16_b8192_w8", fn=sum_of_squares_2d, targets=(90,),
         signature={"x_ptr": "*fp16", "out_ptr": "*fp32", "n": "i32"},
         constexprs={"BLOCK": 8192}, options={"num_warps": 8}),
]
