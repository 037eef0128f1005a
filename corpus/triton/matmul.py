"""Matrix multiplication in Triton: the classic grouped-tile kernel (fp16, fp32/tf32, fp8, int8),
a persistent kernel, and kernels reading through tensor descriptors (host-side descriptors
passed as arguments, and descriptors made on the device), which map to TMA on sm_90a and
sm_100a."""
import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
           ACTIVATION: tl.constexpr, INT_ACC: tl.constexpr, EVEN_K: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_pid_n
    first_m = (pid // group) * GROUP_M
    size_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    if INT_ACC:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0)
        if INT_ACC:
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        else:
            acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = tl.where(acc >= 0, acc, 0.01 * acc)
    c = acc.to(c_ptr.dtype.element_ty)
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn, c, mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    start = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile in tl.range(start, num_pid_m * num_pid_n, NUM_SMS, flatten=True):
        pid_m = tile // num_pid_n
        pid_n = tile % num_pid_n
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kt in range(k_tiles):
            offs_k = kt * BLOCK_K + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                        mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
            b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                        mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(tl.float16),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_tma_host(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    start = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = tl.cdiv(M, BLOCK_M) * num_pid_n
    for tile in tl.range(start, num_tiles, NUM_SMS, flatten=True):
        om = (tile // num_pid_n) * BLOCK_M
        on = (tile % num_pid_n) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = a_desc.load([om, k])
            b = b_desc.load([on, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([om, on], acc.to(tl.float16))


@triton.jit
def matmul_tma_device(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=3):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([pid_n * BLOCK_N, k])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


def _sig(a, b, c):
    s = {"a_ptr": a, "b_ptr": b, "c_ptr": c}
    for k in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"):
        s[k] = "i32"
    return s


def _mm(name, sig, bm, bn, bk, w, s, targets, act="none", extra=None, int_acc=False, even_k=False):
    opts = {"num_warps": w, "num_stages": s}
    opts.update(extra or {})
    return dict(name=name, fn=matmul, targets=targets, signature=sig,
                constexprs={"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "ACTIVATION": act,
                            "INT_ACC": int_acc, "EVEN_K": even_k},
                options=opts)


ALL = (80, 90, 100)
F16 = _sig("*fp16", "*fp16", "*fp16")
PERSIST_SIG = dict(_sig("*fp16", "*fp16", "*fp16"))
TMA_HOST_SIG = {"a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[128, 64]>",
                "c_desc": "tensordesc<fp16[128, 128]>", "M": "i32", "N": "i32", "K": "i32"}
TMA_HOST_SIG_SMALL = {"a_desc": "tensordesc<bf16[64, 64]>", "b_desc": "tensordesc<bf16[128, 64]>",
                      "c_desc": "tensordesc<bf16[64, 128]>", "M": "i32", "N": "i32", "K": "i32"}
TMA_DEV_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}

VARIANTS = [
    _mm("matmul_f16_128x128x32_w4_s3", F16, 128, 128, 32, 4, 3, ALL),
    _mm("matmul_f16_128x256x64_w8_s3_evenk", F16, 128, 256, 64, 8, 3, ALL, even_k=True),
    _mm("matmul_f16_64x64x32_w4_s2_leaky", F16, 64, 64, 32, 4, 2, ALL, act="leaky_relu"),
    _mm("matmul_f32_tf32_64x64x32_w4_s3", _sig("*fp32", "*fp32", "*fp32"), 64, 64, 32, 4, 3, ALL),
    _mm("matmul_i8_128x128x64_w4_s3", _sig("*i8", "*i8", "*i32"), 128, 128, 64, 4, 3, (80, 90), int_acc=True),
    _mm("matmul_fp8e4nv_128x128x64_w8_s4", _sig("*fp8e4nv", "*fp8e4nv", "*fp16"), 128, 128, 64, 8, 4, (90, 100), even_k=True),
    _mm("matmul_f16_128x128x64_w8_s3_cta2", F16, 128, 128, 64, 8, 3, (90,), extra={"num_ctas": 2}),
    _mm("matmul_f16_64x128x32_w4_s3_maxnreg128", F16, 64, 128, 32, 4, 3, (80, 90), extra={"maxnreg": 128}),
    dict(name="matmul_persistent_f16_128x128x64_w8_s3", fn=matmul_persistent, targets=ALL, signature=PERSIST_SIG,
         constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_SMS": 132}, options={"num_warps": 8, "num_stages": 3}),
    dict(name="matmul_persistent_f16_128x64x64_w4_s4", fn=matmul_persistent, targets=(90, 100), signature=PERSIST_SIG,
         constexprs={"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64, "NUM_SMS": 148}, options={"num_warps": 4, "num_stages": 4}),
    dict(name="matmul_tma_host_persistent_f16_128x128x64_w8_s3", fn=matmul_tma_host, targets=(90, 100),
         signature=TMA_HOST_SIG, constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_SMS": 132},
         options={"num_warps": 8, "num_stages": 3}),
    dict(name="matmul_tma_host_persistent_bf16_64x128x64_w4_s4", fn=matmul_tma_host, targets=(90, 100),
         signature=TMA_HOST_SIG_SMALL, constexprs={"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_SMS": 148},
         options={"num_warps": 4, "num_stages": 4}),
    dict(name="matmul_tma_device_f16_128x128x64_w4", fn=matmul_tma_device, targets=(80, 90, 100), signature=TMA_DEV_SIG,
         constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, options={"num_warps": 4}),
]
