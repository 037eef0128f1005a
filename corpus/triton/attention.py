"""Fused attention forward (FlashAttention-style online softmax) in Triton, causal and not,
with pointer arithmetic and with tensor descriptors."""
import triton
import triton.language as tl


@triton.jit
def attn_fwd(Q, K, V, Out, LSE, sm_scale, stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn,
             stride_oh, stride_om, n_ctx, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + head * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :], mask=offs_m[:, None] < n_ctx, other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BLOCK_M, n_ctx) if CAUSAL else n_ctx
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + head * stride_kh + cols[None, :] * stride_kn + offs_d[:, None], mask=cols[None, :] < n_ctx, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        valid = cols[None, :] < n_ctx
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + head * stride_vh + cols[:, None] * stride_vn + offs_d[None, :], mask=cols[:, None] < n_ctx, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(LSE + head * n_ctx + offs_m, m_i + tl.math.log2(l_i), mask=offs_m < n_ctx)
    tl.store(Out + head * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=offs_m[:, None] < n_ctx)


@triton.jit
def attn_fwd_desc(q_desc, k_desc, v_desc, o_desc, sm_scale, n_ctx, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    row0 = head * n_ctx + start_m * BLOCK_M
    q = q_desc.load([row0, 0])
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.range(0, n_ctx, BLOCK_N, num_stages=2):
        k = k_desc.load([head * n_ctx + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([head * n_ctx + start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    o_desc.store([row0, 0], (acc / l_i[:, None]).to(tl.float16))


ATT_SIG = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "LSE": "*fp32", "sm_scale": "fp32"}
for _k in ("stride_qh", "stride_qm", "stride_kh", "stride_kn", "stride_vh", "stride_vn", "stride_oh", "stride_om", "n_ctx"):
    ATT_SIG[_k] = "i32"
ATT_BF16_SIG = dict(ATT_SIG, Q="*bf16", K="*bf16", V="*bf16", Out="*bf16")
DESC_SIG = {"q_desc": "tensordesc<fp16[128, 64]>", "k_desc": "tensordesc<fp16[64, 64]>",
            "v_desc": "tensordesc<fp16[64, 64]>", "o_desc": "tensordesc<fp16[128, 64]>", "sm_scale": "fp32", "n_ctx": "i32"}

VARIANTS = [
    dict(name="attn_fwd_f16_d64_m128_n64_w4_s3", fn=attn_fwd, targets=(80, 90, 100), signature=ATT_SIG,
         constexprs={"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": False}, options={"num_warps": 4, "num_stages": 3}),
    dict(name="attn_fwd_causal_f16_d128_m128_n64_w8_s2", fn=attn_fwd, targets=(80, 90, 100), signature=ATT_SIG,
         constexprs={"HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": True}, options={"num_warps": 8, "num_stages": 2}),
    dict(name="attn_fwd_causal_bf16_d64_m64_n32_w4_s2", fn=attn_fwd, targets=(80,), signature=ATT_BF16_SIG,
         constexprs={"HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 32, "CAUSAL": True}, options={"num_warps": 4, "num_stages": 2}),
    dict(name="attn_fwd_desc_f16_d64_m128_n64_w8", fn=attn_fwd_desc, targets=(90, 100), signature=DESC_SIG,
         constexprs={"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64}, options={"num_warps": 8}),
]
