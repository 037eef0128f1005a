"""Elementwise Triton kernels: vector add, a fused activation with casts, and a
masked in-place update."""
import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def bias_gelu_cast(x_ptr, bias_ptr, out_ptr, n, cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + offs % cols, mask=mask, other=0.0).to(tl.float32)
    v = x + b
    y = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def clamp_where_inplace(x_ptr, lo, hi, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    x = tl.where(x != x, 0.0, x)
    x = tl.minimum(tl.maximum(x, lo), hi)
    tl.store(x_ptr + offs, x, mask=mask)


ALL = (80, 90, 100)

VARIANTS = [
    dict(name="vector_add_f32_b1024_w4", fn=vector_add, targets=ALL,
         signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}),
    dict(name="vector_add_f16_b2048_w8", fn=vector_add, targets=ALL,
         signature={"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32"},
         constexprs={"BLOCK": 2048}, options={"num_warps": 8}),
    dict(name="bias_gelu_bf16_b512_w4", fn=bias_gelu_cast, targets=ALL,
         signature={"x_ptr": "*bf16", "bias_ptr": "*bf16", "out_ptr": "*bf16", "n": "i32", "cols": "i32"},
         constexprs={"BLOCK": 512}, options={"num_warps": 4}),
    dict(name="clamp_where_f32_b256_w2", fn=clamp_where_inplace, targets=(80, 100),
         signature={"x_ptr": "*fp32", "lo": "fp32", "hi": "fp32", "n": "i64"},
         constexprs={"BLOCK": 256}, options={"num_warps": 2}),
]
