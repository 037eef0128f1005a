//! `cp.async` on the GPU: a random buffer copied through shared memory with zero-fill
//! (`src-size` below the copy size) and the ignore-source predicate, completed once by
//! `cp.async.wait_group` and once by an mbarrier (`cp.async.mbarrier.arrive.noinc`) with a
//! bounded wait. Shared memory is poisoned before the copies and the outputs before the
//! launch, so a byte the copy should have zero-filled and did not, or a chunk that never
//! arrived, shows. Each thread reads its neighbour's chunk, so the completion mechanism has
//! to cover every thread's copies, not just its own.

use super::*;
use ptxkit::intrinsics::mbarrier::{Deadline, Publish};
use rand::Rng;

const BLOCK: u32 = 256;
const BLOCKS: u32 = 64;
/// Chunks in all, one per thread.
const N: usize = (BLOCK * BLOCKS) as usize;
/// Words of source and output per chunk: region A (16 bytes, `.cg`, zero-fill), B (8 bytes,
/// `.ca`, ignore-source), C (4 bytes, `.ca`, zero-fill), D (16 bytes, `.cg`, ignore-source).
const WORDS: usize = 4 + 2 + 1 + 4;
/// Where each region starts, in words.
const A: i64 = 0;
const B: i64 = 4 * N as i64;
const C: i64 = 6 * N as i64;
const D: i64 = 7 * N as i64;
/// What shared memory holds before the copies.
const SMEM_POISON: u32 = 0xA5A5_A5A5;
/// Tries per bounded wait, each suspending for about `HINT_NS`: a wait that never completes
/// gives up after about a second.
const TRIES: u32 = 1 << 20;
const HINT_NS: u32 = 1000;

type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

/// Thread `t` of block `b` copies chunk `c = b * 256 + t` of each region into shared memory:
/// A with `src-size = ctl & 0xff` (0..=16), B ignoring the source where bit 8 of `ctl` is
/// set, C with `src-size = (ctl >> 16) & 0xff` (0..=4), D ignoring the source where bit 24
/// is set. After `wait_group 0` and `bar.sync`, it writes its neighbour's chunk (`t + 1`
/// mod 256) of each region to `out`.
fn zero_fill_kernel(target: Target) -> (Module, KernelRef<P>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("cp_async_zero_fill", |k, (src, ctl, out): P| {
            let sa = k.shared_array::<U32>("sa", BLOCK * 4, 16);
            let sb = k.shared_array::<U32>("sb", BLOCK * 2, 16);
            let sc = k.shared_array::<U32>("sc", BLOCK, 16);
            let sd = k.shared_array::<U32>("sd", BLOCK * 4, 16);
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let c = k.global_thread_index_x();
            let (t2, t4) = (ptx!(k, "shl.b32", t, 1u32).bitcast::<U32>(), ptx!(k, "shl.b32", t, 2u32).bitcast::<U32>());
            let (c2, c4) = (ptx!(k, "shl.b32", c, 1u32).bitcast::<U32>(), ptx!(k, "shl.b32", c, 2u32).bitcast::<U32>());
            for j in 0..4 {
                k.st(sa.at(t4).offset(j), SMEM_POISON);
                k.st(sd.at(t4).offset(j), SMEM_POISON);
            }
            k.st(sb.at(t2), SMEM_POISON);
            k.st(sb.at(t2).offset(1), SMEM_POISON);
            k.st(sc.at(t), SMEM_POISON);
            ptx!(k, "bar.sync", 0u32);

            let w = k.ld(ctl.at(c));
            let na = ptx!(k, "and.b32", w, 0xffu32).bitcast::<U32>();
            let nc = ptx!(k, "bfe.u32", w, 16u32, 8u32);
            let fb = ptx!(k, "and.b32", w, 0x100u32);
            let ib = ptx!(k, "setp.ne.b32", fb, 0u32);
            let fd = ptx!(k, "and.b32", w, 0x100_0000u32);
            let id = ptx!(k, "setp.ne.b32", fd, 0u32);
            ptx!(k, "cp.async.cg.shared.global" as src_size, sa.at(t4), src.offset(A).at(c4), Const::<16>, na);
            ptx!(k, "cp.async.ca.shared.global" as ignore_src, sb.at(t2), src.offset(B).at(c2), Const::<8>, ib);
            ptx!(k, "cp.async.ca.shared::cta.global" as src_size, sc.at(t), src.offset(C).at(c), Const::<4>, nc);
            ptx!(k, "cp.async.cg.shared::cta.global" as ignore_src, sd.at(t4), src.offset(D).at(c4), Const::<16>, id);
            ptx!(k, "cp.async.commit_group");
            ptx!(k, "cp.async.wait_group", 0);
            ptx!(k, "bar.sync", 0u32);

            // The neighbour's chunk: u = (t + 1) % 256, chunk cu = c - t + u.
            let t1 = ptx!(k, "add.u32", t, 1u32);
            let u = ptx!(k, "and.b32", t1, BLOCK - 1).bitcast::<U32>();
            let base = ptx!(k, "sub.u32", c, t);
            let cu = ptx!(k, "add.u32", base, u);
            let (u2, u4) = (ptx!(k, "shl.b32", u, 1u32).bitcast::<U32>(), ptx!(k, "shl.b32", u, 2u32).bitcast::<U32>());
            let (cu2, cu4) = (ptx!(k, "shl.b32", cu, 1u32).bitcast::<U32>(), ptx!(k, "shl.b32", cu, 2u32).bitcast::<U32>());
            for j in 0..4 {
                let v = k.ld(sa.at(u4).offset(j));
                k.st(out.offset(A).at(cu4).offset(j), v);
                let v = k.ld(sd.at(u4).offset(j));
                k.st(out.offset(D).at(cu4).offset(j), v);
            }
            for j in 0..2 {
                let v = k.ld(sb.at(u2).offset(j));
                k.st(out.offset(B).at(cu2).offset(j), v);
            }
            let v = k.ld(sc.at(u));
            k.st(out.offset(C).at(cu), v);
        })
        .unwrap();
    (m, kr)
}

/// Each thread copies its 16-byte chunk of region A with `cp.async.cg` and arrives on a
/// barrier when its copies complete (`cp.async.mbarrier.arrive.noinc`: the barrier expects
/// 256 such arrivals); every thread waits on the barrier (bounded), then writes its
/// neighbour's chunk to `out` and its timeout count to `timeouts`.
fn mbarrier_kernel(target: Target) -> (Module, KernelRef<P>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("cp_async_mbarrier", |k, (src, out, timeouts): P| {
            let sa = k.shared_array::<U32>("sa", BLOCK * 4, 16);
            let bars = k.mbarriers("done", 1);
            let bar = bars.get(0);
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let c = k.global_thread_index_x();
            let t4 = ptx!(k, "shl.b32", t, 2u32).bitcast::<U32>();
            let c4 = ptx!(k, "shl.b32", c, 2u32).bitcast::<U32>();
            for j in 0..4 {
                k.st(sa.at(t4).offset(j), SMEM_POISON);
            }
            // The `bar.sync` that publishes the barrier also orders the poison before the copies.
            k.init_barriers(Publish::Cta, |k| bar.init(k, BLOCK));
            ptx!(k, "cp.async.cg.shared.global", sa.at(t4), src.at(c4), Const::<16>);
            ptx!(k, "cp.async.mbarrier.arrive.noinc.shared.b64", bar.ptr());
            let d = Deadline::new(k, TRIES).with_hint_ns(HINT_NS);
            bar.wait(k, 0u32, &d);
            let t1 = ptx!(k, "add.u32", t, 1u32);
            let u = ptx!(k, "and.b32", t1, BLOCK - 1).bitcast::<U32>();
            let base = ptx!(k, "sub.u32", c, t);
            let cu = ptx!(k, "add.u32", base, u);
            let u4 = ptx!(k, "shl.b32", u, 2u32).bitcast::<U32>();
            let cu4 = ptx!(k, "shl.b32", cu, 2u32).bitcast::<U32>();
            for j in 0..4 {
                let v = k.ld(sa.at(u4).offset(j));
                k.st(out.at(cu4).offset(j), v);
            }
            k.st(timeouts.at(c), d.timeouts());
        })
        .unwrap();
    (m, kr)
}

/// The bytes `dst` gets from a copy of `src` that reads `n` of them and zero-fills the rest.
fn partial(src: &[u32], n: usize) -> Vec<u32> {
    let mut bytes: Vec<u8> = src.iter().flat_map(|w| w.to_le_bytes()).collect();
    bytes[n..].fill(0);
    bytes.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// Without a GPU: both kernels print and assemble with no ptxas warning.
fn cp_async_kernels_assemble() {
    for (name, m) in [("cp_async_zero_fill", zero_fill_kernel(Target::SM_90).0), ("cp_async_mbarrier", mbarrier_kernel(Target::SM_90).0)] {
        let text = m.to_ptx().unwrap();
        {
            let px = ptxas(name);
            ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        }
    }
    let text = zero_fill_kernel(Target::SM_80).0.to_ptx().unwrap();
    // The ignore-source predicate sets the version.
    assert!(text.contains(".version 7.5\n.target sm_80\n"), "{text}");
}

fn cp_async_zero_fill_and_ignore_source(gpu: Gpu) {
    let mut g = rng("cp_async_zero_fill_and_ignore_source");
    let src: Vec<u32> = (0..WORDS * N).map(|_| g.gen()).collect();
    let ctl: Vec<u32> = (0..N)
        .map(|_| {
            let na = g.gen_range(0..=16u32);
            let ib = g.gen_bool(0.5) as u32;
            let nc = g.gen_range(0..=4u32);
            let id = g.gen_bool(0.5) as u32;
            na | ib << 8 | nc << 16 | id << 24
        })
        .collect();
    let (m, kr) = zero_fill_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let (dsrc, dctl) = (gpu.upload(&src).unwrap(), gpu.upload(&ctl).unwrap());
    let mut out = poisoned::<u32>(&gpu, WORDS * N).unwrap();
    kern.launch(&Launch::new(BLOCKS, BLOCK), (&dsrc, &dctl, &mut out)).unwrap();
    let got = gpu.download(&out).unwrap();

    let mut want = vec![0u32; WORDS * N];
    for c in 0..N {
        let w = ctl[c];
        let (na, ib, nc, id) = ((w & 0xff) as usize, w >> 8 & 1 == 1, (w >> 16 & 0xff) as usize, w >> 24 & 1 == 1);
        let (a, b, cc, d) = (A as usize + 4 * c, B as usize + 2 * c, C as usize + c, D as usize + 4 * c);
        want[a..a + 4].copy_from_slice(&partial(&src[a..a + 4], na));
        want[b..b + 2].copy_from_slice(&partial(&src[b..b + 2], if ib { 0 } else { 8 }));
        want[cc..cc + 1].copy_from_slice(&partial(&src[cc..cc + 1], nc));
        want[d..d + 4].copy_from_slice(&partial(&src[d..d + 4], if id { 0 } else { 16 }));
    }
    // Which chunk and region a word belongs to, and its control word.
    let inputs = |i: usize| {
        let (region, c) = match i as i64 {
            x if x < B => ("A .cg 16 src-size", (x - A) as usize / 4),
            x if x < C => ("B .ca 8 ignore-src", (x - B) as usize / 2),
            x if x < D => ("C .ca 4 src-size", (x - C) as usize),
            x => ("D .cg 16 ignore-src", (x - D) as usize / 4),
        };
        (region, c, format!("ctl {:#010x}", ctl[c]), format!("src {:#010x}", src[i]))
    };
    let zero_filled = want.iter().filter(|w| **w == 0).count();
    println!("cp_async_zero_fill_and_ignore_source: {N} chunks per region, {zero_filled} words zero-filled");
    check("cp.async zero-fill and ignore-src", inputs, &got, &want);
}

fn cp_async_completes_on_an_mbarrier(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("the bounded wait uses try_wait (sm_90), the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("cp_async_completes_on_an_mbarrier");
    let src: Vec<u32> = (0..4 * N).map(|_| g.gen()).collect();
    let (m, kr) = mbarrier_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let dsrc = gpu.upload(&src).unwrap();
    let mut out = poisoned::<u32>(&gpu, 4 * N).unwrap();
    let mut timeouts = poisoned::<u32>(&gpu, N).unwrap();
    kern.launch(&Launch::new(BLOCKS, BLOCK), (&dsrc, &mut out, &mut timeouts)).unwrap();
    let timeouts = gpu.download(&timeouts).unwrap();
    let late = timeouts.iter().filter(|t| **t != 0).count();
    assert_eq!(
        late,
        0,
        "{late} of {N} threads gave up waiting for the cp.async barrier (first: {:?})",
        timeouts.iter().position(|t| *t != 0)
    );
    check("cp.async completed on an mbarrier", |i| (i / 4, src[i]), &gpu.download(&out).unwrap(), &src);
}

pub const TESTS: &[Test] =
    &[host!(cp_async_kernels_assemble), gpu!(cp_async_zero_fill_and_ignore_source), gpu!(cp_async_completes_on_an_mbarrier)];
