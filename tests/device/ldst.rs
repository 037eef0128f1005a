//! Loads and stores with cache modifiers move exactly the values a plain load and store would:
//! L1 eviction priorities, L2 prefetch sizes, `.L2::cache_hint` with a cache policy, cache
//! operators, `.nc` with eviction priorities, `.volatile` with a prefetch size, generic
//! addressing and `ld.param::entry` (sm_90 and newer); and the 256-bit `.v8`/`.v4` accesses
//! with L2 eviction priorities (sm_100 and newer).
//!
//! The cache policy is a kernel parameter made on the host, [`EVICT_NORMAL`]: the evict-normal
//! policy (fraction 1.0) that CUTLASS passes to its cache-hinted copies as
//! `CacheHintSm90::EVICT_NORMAL`. A policy is a hint: whatever it says, the values moved must
//! be the values read.

use super::*;
use ptxkit::builder::ParamBytes;
use ptxkit::runtime::HostBytes;
use rand::Rng;

/// An L2 cache policy: evict normal, for the whole access (fraction 1.0).
pub const EVICT_NORMAL: u64 = 0x1000_0000_0000_0000;

/// Threads of the sm_90 kernel; each moves 18 words.
const N: usize = 1 << 14;

/// Input and output word offsets of the sm_90 kernel's sections (multiples of 4 words, so the
/// 16-byte accesses are aligned): a section's thread `i` moves words `base + w*i ..` of it.
const S_EVICT: i64 = 0; // ld.global.L1::evict_last.u32, 1 word
const S_PREF_V4: i64 = N as i64; // ld.global.L1::evict_first.L2::128B.v4.u32, 4 words
const S_HINT_F64: i64 = 5 * N as i64; // ld.global.L2::cache_hint.L2::256B.f64, 2 words
const S_NC_V2: i64 = 7 * N as i64; // ld.global.nc.L1::no_allocate.L2::256B.v2.u64, 4 words
const S_GENERIC: i64 = 11 * N as i64; // ld.L1::evict_normal.L2::64B.u32 (generic), 1 word
const S_VOLATILE: i64 = 12 * N as i64; // ld.volatile.global.L2::64B.u32, 1 word
const S_B128: i64 = 13 * N as i64; // ld.global.cg.L2::cache_hint.L2::64B.b128, 4 words
const S_NC_COP: i64 = 17 * N as i64; // ld.global.ca.nc.L2::64B.s32, 1 word
const S_PARAM: i64 = 18 * N as i64; // ld.param::entry.u32 of a 16-byte parameter, 1 word
const WORDS: usize = 19 * N;

type P90 = (GlobalPtr<U32>, GenericPtr<U32>, Reg<U64>, ParamBytes<16>, GlobalPtr<U32>, GenericPtr<U32>);

/// Thread `i` copies its words of each section from `x` to `out` through one modified load
/// and one modified store per section; the generic section goes to `gout` (at the same
/// offsets), and the parameter section copies word `i % 4` of the 16-byte parameter.
fn modifiers_kernel(target: Target) -> Result<(Module, KernelRef<P90>), Error> {
    let mut m = Module::new(target);
    let kr = m.kernel("cache_modifiers", |k, (x, gx, policy, pb, out, gout): P90| {
        let i = k.global_thread_index_x();
        let i2 = ptx!(k, "shl.b32", i, 1u32).bitcast::<U32>();
        let i4 = ptx!(k, "shl.b32", i, 2u32).bitcast::<U32>();
        let policy = policy.bitcast::<B64>();

        let v = ptx!(k, "ld.global.L1::evict_last.u32", x.offset(S_EVICT).at(i));
        ptx!(k, "st.global.L1::no_allocate.u32", out.offset(S_EVICT).at(i), v);

        let v = ptx!(k, "ld.global.L1::evict_first.L2::128B.v4.u32", x.offset(S_PREF_V4).at(i4));
        ptx!(k, "st.global.L1::evict_unchanged.v4.u32", out.offset(S_PREF_V4).at(i4), v);

        let (xf, of) = (x.offset(S_HINT_F64).cast::<F64>(), out.offset(S_HINT_F64).cast::<F64>());
        let v = ptx!(k, "ld.global.L2::cache_hint.L2::256B.f64", xf.at(i), policy);
        ptx!(k, "st.global.L2::cache_hint.f64", of.at(i), v, policy);

        let (xq, oq) = (x.offset(S_NC_V2).cast::<U64>(), out.offset(S_NC_V2).cast::<U64>());
        let v = ptx!(k, "ld.global.nc.L1::no_allocate.L2::256B.v2.u64", xq.at(i2));
        ptx!(k, "st.global.cs.L2::cache_hint.v2.u64", oq.at(i2), v, policy);

        let v = ptx!(k, "ld.L1::evict_normal.L2::64B.u32", gx.offset(S_GENERIC).at(i));
        ptx!(k, "st.L1::evict_normal.u32", gout.offset(S_GENERIC).at(i), v);

        let v = ptx!(k, "ld.volatile.global.L2::64B.u32", x.offset(S_VOLATILE).at(i));
        ptx!(k, "st.global.wt.u32", out.offset(S_VOLATILE).at(i), v);

        let (xb, ob) = (x.offset(S_B128).cast::<B128>(), out.offset(S_B128).cast::<B128>());
        let v = ptx!(k, "ld.global.cg.L2::cache_hint.L2::64B.b128", xb.at(i), policy);
        ptx!(k, "st.global.L1::evict_last.L2::cache_hint.b128", ob.at(i), v, policy);

        let (xs, os) = (x.offset(S_NC_COP).cast::<S32>(), out.offset(S_NC_COP).cast::<S32>());
        let v = ptx!(k, "ld.global.ca.nc.L2::64B.s32", xs.at(i));
        ptx!(k, "st.global.wb.s32", os.at(i), v);

        let w = ptx!(k, "and.b32", i, 3u32).bitcast::<U32>();
        let v = ptx!(k, "ld.param::entry.u32", pb.ptr::<U32>().at(w));
        ptx!(k, "st.global.cg.u32", out.offset(S_PARAM).at(i), v);
    })?;
    Ok((m, kr))
}

/// Threads of the sm_100 kernel; each moves 32 words.
const N256: usize = 1 << 13;
/// Sections of 8 words per thread (32-byte aligned).
const W_V8F32: i64 = 0; // ld.global.v8.f32 -> st.global.v8.f32
const W_V4U64: i64 = 8 * N256 as i64; // ld.global.L2::evict_last.v4.u64 -> st.global.L1::no_allocate.L2::evict_first.v4.u64
const W_NC_V8: i64 = 16 * N256 as i64; // ld.global.nc.L1::evict_first.L2::evict_first.L2::256B.v8.u32 -> st ... L2::cache_hint
const W_HINT_V4F64: i64 = 24 * N256 as i64; // ld.global.L2::evict_normal.L2::cache_hint.v4.f64 -> st.global.L1::evict_last.L2::evict_last.v4.f64
const WORDS256: usize = 32 * N256;

type P100 = (GlobalPtr<U32>, Reg<U64>, GlobalPtr<U32>);

/// Thread `i` copies 32 bytes of each section with one 256-bit load and one 256-bit store.
fn wide_kernel(target: Target) -> Result<(Module, KernelRef<P100>), Error> {
    let mut m = Module::new(target);
    let kr = m.kernel("wide_accesses", |k, (x, policy, out): P100| {
        let i = k.global_thread_index_x();
        let i4 = ptx!(k, "shl.b32", i, 2u32).bitcast::<U32>();
        let i8 = ptx!(k, "shl.b32", i, 3u32).bitcast::<U32>();
        let policy = policy.bitcast::<B64>();

        let (xf, of) = (x.offset(W_V8F32).cast::<F32>(), out.offset(W_V8F32).cast::<F32>());
        let v = ptx!(k, "ld.global.v8.f32", xf.at(i8));
        ptx!(k, "st.global.v8.f32", of.at(i8), v);

        let (xq, oq) = (x.offset(W_V4U64).cast::<U64>(), out.offset(W_V4U64).cast::<U64>());
        let v = ptx!(k, "ld.global.L2::evict_last.v4.u64", xq.at(i4));
        ptx!(k, "st.global.L1::no_allocate.L2::evict_first.v4.u64", oq.at(i4), v);

        let (xn, on) = (x.offset(W_NC_V8), out.offset(W_NC_V8));
        let v = ptx!(k, "ld.global.nc.L1::evict_first.L2::evict_first.L2::256B.v8.u32", xn.at(i8));
        ptx!(k, "st.global.L2::evict_normal.L2::cache_hint.v8.u32", on.at(i8), v, policy);

        let (xd, od) = (x.offset(W_HINT_V4F64).cast::<F64>(), out.offset(W_HINT_V4F64).cast::<F64>());
        let v = ptx!(k, "ld.global.L2::evict_normal.L2::cache_hint.v4.f64", xd.at(i4), policy);
        ptx!(k, "st.global.L1::evict_last.L2::evict_last.v4.f64", od.at(i4), v);
    })?;
    Ok((m, kr))
}

/// Without a GPU: both kernels print and assemble with no ptxas warning (sm_90 and sm_100).
fn cache_modifier_kernels_assemble() {
    let px = ptxas("cache_modifier_kernels_assemble");
    for (name, t, text) in [
        ("cache_modifiers", Target::SM_90, modifiers_kernel(Target::SM_90).unwrap().0.to_ptx().unwrap()),
        ("wide_accesses", Target::SM_100, wide_kernel(Target::SM_100).unwrap().0.to_ptx().unwrap()),
    ] {
        ptxkit::ptxas::check_clean(&px, &text, t, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    }
    // Below sm_100 the 256-bit forms are refused by the crate, before ptxas.
    let err = wide_kernel(Target::SM_90).map(drop).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
}

fn cache_modifiers_move_the_right_values(gpu: Gpu) {
    let (m, kr) = match modifiers_kernel(target(&gpu)) {
        Err(e @ Error::Unsupported { .. }) => skip(format!("the GPU's target lacks a form of the kernel: {e}")),
        r => r.unwrap(),
    };
    let mut g = rng("cache_modifiers_move_the_right_values");
    let input: Vec<u32> = (0..WORDS).map(|_| g.gen()).collect();
    let mut param = HostBytes([0u8; 16]);
    g.fill(&mut param.0[..]);
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let dx = gpu.upload(&input).unwrap();
    let mut out = poisoned::<u32>(&gpu, WORDS).unwrap();
    let mut gout = poisoned::<u32>(&gpu, WORDS).unwrap();
    kern.launch(&Launch::cover(N as u32, 128), (&dx, &dx, EVICT_NORMAL, &param, &mut out, &mut gout)).unwrap();
    let (got, ggot) = (gpu.download(&out).unwrap(), gpu.download(&gout).unwrap());

    let sections: [(&str, i64, usize); 8] = [
        ("ld.global.L1::evict_last.u32 / st.global.L1::no_allocate.u32", S_EVICT, 1),
        ("ld.global.L1::evict_first.L2::128B.v4.u32 / st.global.L1::evict_unchanged.v4.u32", S_PREF_V4, 4),
        ("ld.global.L2::cache_hint.L2::256B.f64 / st.global.L2::cache_hint.f64", S_HINT_F64, 2),
        ("ld.global.nc.L1::no_allocate.L2::256B.v2.u64 / st.global.cs.L2::cache_hint.v2.u64", S_NC_V2, 4),
        ("ld.volatile.global.L2::64B.u32 / st.global.wt.u32", S_VOLATILE, 1),
        ("ld.global.cg.L2::cache_hint.L2::64B.b128 / st.global.L1::evict_last.L2::cache_hint.b128", S_B128, 4),
        ("ld.global.ca.nc.L2::64B.s32 / st.global.wb.s32", S_NC_COP, 1),
        ("ld.L1::evict_normal.L2::64B.u32 / st.L1::evict_normal.u32 (generic)", S_GENERIC, 1),
    ];
    for (what, base, words) in sections {
        let r = base as usize..base as usize + words * N;
        let from = if base == S_GENERIC { &ggot } else { &got };
        check(what, |j| (j / words, input[r.start + j]), &from[r.clone()], &input[r.clone()]);
    }
    let want: Vec<u32> = (0..N).map(|i| u32::from_le_bytes(param.0[4 * (i % 4)..4 * (i % 4) + 4].try_into().unwrap())).collect();
    let r = S_PARAM as usize..S_PARAM as usize + N;
    check("ld.param::entry.u32 of a kernel parameter", |i| i % 4, &got[r], &want);
}

fn wide_loads_and_stores_round_trip(gpu: Gpu) {
    if gpu.compute_capability().0 < 10 {
        skip(format!("256-bit loads and stores need sm_100, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("wide_loads_and_stores_round_trip");
    let input: Vec<u32> = (0..WORDS256).map(|_| g.gen()).collect();
    let (m, kr) = wide_kernel(target(&gpu)).unwrap();
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let dx = gpu.upload(&input).unwrap();
    let mut out = poisoned::<u32>(&gpu, WORDS256).unwrap();
    kern.launch(&Launch::cover(N256 as u32, 128), (&dx, EVICT_NORMAL, &mut out)).unwrap();
    let got = gpu.download(&out).unwrap();
    let names = [
        "ld.global.v8.f32 / st.global.v8.f32",
        "ld.global.L2::evict_last.v4.u64 / st.global.L1::no_allocate.L2::evict_first.v4.u64",
        "ld.global.nc.L1::evict_first.L2::evict_first.L2::256B.v8.u32 / st.global.L2::evict_normal.L2::cache_hint.v8.u32",
        "ld.global.L2::evict_normal.L2::cache_hint.v4.f64 / st.global.L1::evict_last.L2::evict_last.v4.f64",
    ];
    for (s, what) in names.iter().enumerate() {
        let r = s * 8 * N256..(s + 1) * 8 * N256;
        check(what, |j| (j / 8, input[r.start + j]), &got[r.clone()], &input[r.clone()]);
    }
}

pub const TESTS: &[Test] =
    &[host!(cache_modifier_kernels_assemble), gpu!(cache_modifiers_move_the_right_values), gpu!(wide_loads_and_stores_round_trip)];
