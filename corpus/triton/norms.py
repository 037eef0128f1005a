"""Row-wise normalisation kernels: softmax (one pass and online), layer norm forward,
and RMS norm."""
import triton
import triton.language as tl


@triton.jit
def softmax_row(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_online(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    gmax = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - gmax), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        tl.store(out_ptr + row * stride + cols, tl.exp(x - gmax) / total, mask=cols < n_cols)


@triton.jit
def layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        x = tl.where(cols < n_cols, x - mean, 0.0)
        acc += x * x
    var = tl.sum(acc, axis=0) / n_cols
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y, mask=mask)


@triton.jit
def rmsnorm_fwd(x_ptr, y_ptr, w_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (x * r * w).to(y_ptr.dtype.element_ty), mask=mask)


ALL = (80, 90, 100)
SM_SIG = {"out_ptr": "*fp16", "in_ptr": "*fp16", "in_stride": "i32", "out_stride": "i32", "n_cols": "i32"}
LN_SIG = {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "mean_ptr": "*fp32",
          "rstd_ptr": "*fp32", "stride": "i32", "n_cols": "i32", "eps": "fp32"}

VARIANTS = [
    dict(name="softmax_f16_b1024_w4", fn=softmax_row, targets=ALL, signature=SM_SIG,
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}),
    dict(name="softmax_f16_b4096_w16", fn=softmax_row, targets=ALL, signature=SM_SIG,
         constexprs={"BLOCK": 4096}, options={"num_warps": 16}),
    dict(name="softmax_online_f32_b512_w4", fn=softmax_online, targets=(80, 90),
         signature={"out_ptr": "*fp32", "in_ptr": "*fp32", "stride": "i64", "n_cols": "i32"},
         constexprs={"BLOCK": 512}, options={"num_warps": 4, "num_stages": 2}),
    dict(name="layernorm_fwd_f16_b1024_w4", fn=layernorm_fwd, targets=ALL, signature=LN_SIG,
         constexprs={"BLOCK": 1024}, options={"num_warps": 4}),
    dict(name="layernorm_fwd_f16_b8192_w8", fn=layernorm_fwd, targets=ALL, signature=LN_SIG,
         constexprs={"BLOCK": 8192}, options={"num_warps": 8}),
    dict(name="rmsnorm_bf16_b2048_w8", fn=rmsnorm_fwd, targets=ALL,
         signature={"x_ptr": "*bf16", "y_ptr": "*bf16", "w_ptr": "*bf16", "stride": "i32", "n_cols": "i32", "eps": "fp32"},
         constexprs={"BLOCK": 2048}, options={"num_warps": 8}),
]
