//! Block reductions through the barrier (`barrier.red` and `bar.red`, with and without a
//! thread count, `.aligned` or not), and the integer roundings of `.bf16` and `.f16` values
//! (`cvt.rni/rzi/rmi/rpi`, `.sat`), against CPU models.

use super::*;
use half::{bf16, f16};
use rand::Rng;

const BLOCK: u32 = 256;
const OUT: u32 = 6;

type RedP = (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>);

/// Thread t with predicate `x[t] & 1` (and the block's threads 0..255) writes: the popc of
/// the block's predicates (`barrier.red.popc.aligned`, then the counted `barrier.cta.red.popc`
/// and `bar.red.popc`), their and (`barrier.red.and`), the or of their negations
/// (`barrier.red.or.aligned` counted, on `!p`), and the and of `x[t] & 2` (`bar.cta.red.and`).
fn barrier_red_kernel(target: Target) -> (Module, KernelRef<RedP>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("barrier_red", |k, (xs, out, _n): RedP| {
            let i = k.global_thread_index_x();
            let x = k.ld(xs.at(i));
            let b0 = ptx!(k, "and.b32", x, 1u32);
            let p = ptx!(k, "setp.ne.b32", b0, 0u32);
            let b1 = ptx!(k, "and.b32", x, 2u32);
            let q = ptx!(k, "setp.ne.b32", b1, 0u32);
            let c0 = ptx!(k, "barrier.red.popc.aligned.u32", 0u32, p);
            let c1 = ptx!(k, "barrier.cta.red.popc.u32" as counted, 1u32, BLOCK, p);
            let c2 = ptx!(k, "bar.red.popc.u32" as counted, 2u32, BLOCK, p);
            let all = ptx!(k, "barrier.red.and.pred", 3u32, p);
            let none = ptx!(k, "barrier.red.or.aligned.pred" as counted, 4u32, BLOCK, !p);
            let allq = ptx!(k, "bar.cta.red.and.pred", 5u32, q);
            let at = |k: &mut Kernel, w: u32| {
                let a = ptx!(k, "mad.lo.u32", i, OUT, w);
                out.at(a)
            };
            for (w, c) in [(0, c0), (1, c1), (2, c2)] {
                let a = at(k, w);
                k.st(a, c);
            }
            for (w, pr) in [(3, all), (4, none), (5, allq)] {
                let a = at(k, w);
                let v = ptx!(k, "selp.u32", 1u32, 0u32, pr);
                k.st(a, v);
            }
        })
        .unwrap();
    (m, kr)
}

fn barrier_reductions(gpu: Gpu) {
    let mut g = rng("barrier_reductions");
    let blocks = 64usize;
    let n = blocks * BLOCK as usize;
    // Bit 0 (p) is set in every thread of every fourth block and random elsewhere; bit 1 in
    // every thread of the even blocks and in 99% of the others: each `and`/`or` gets both
    // outcomes.
    let xs: Vec<u32> = (0..n)
        .map(|i| {
            let b = i / BLOCK as usize;
            let p = if b % 4 == 1 { 1 } else { g.gen::<u32>() & 1 };
            p | if b % 2 == 0 || g.gen_bool(0.99) { 2 } else { 0 }
        })
        .collect();
    let (m, kr) = barrier_red_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let dx = gpu.upload(&xs).unwrap();
    let mut out = poisoned::<u32>(&gpu, n * OUT as usize).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::new(blocks as u32, BLOCK), (&dx, &mut out, n as u32)).unwrap();
    let mut want = Vec::with_capacity(n * OUT as usize);
    for b in 0..blocks {
        let blk = &xs[b * BLOCK as usize..(b + 1) * BLOCK as usize];
        let popc = blk.iter().filter(|x| *x & 1 != 0).count() as u32;
        let all = blk.iter().all(|x| x & 1 != 0) as u32;
        let none = blk.iter().any(|x| x & 1 == 0) as u32;
        let allq = blk.iter().all(|x| x & 2 != 0) as u32;
        for _ in 0..BLOCK {
            want.extend([popc, popc, popc, all, none, allq]);
        }
    }
    let what = |i: usize| {
        let part = [
            "barrier.red.popc.aligned",
            "barrier.cta.red.popc (counted)",
            "bar.red.popc (counted)",
            "barrier.red.and",
            "barrier.red.or.aligned of !p (counted)",
            "bar.cta.red.and",
        ];
        format!("thread {}: {}", i / OUT as usize, part[i % OUT as usize])
    };
    check("barrier reductions over blocks of 256", what, &gpu.download(&out).unwrap(), &want);
}

/// The four integer roundings and their CPU models.
const MODES: [(&str, fn(f32) -> f32); 4] = [("rni", f32::round_ties_even), ("rzi", f32::trunc), ("rmi", f32::floor), ("rpi", f32::ceil)];

/// Compares 16-bit results: NaN matches any NaN; with `sat`, +0 and -0 match (the ISA
/// leaves the sign of a clamped zero open).
fn check_rounding(what: &str, inputs: &[u16], got: &[u16], want: &[f32], bits: impl Fn(u16) -> f32, sat: bool) {
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| {
            let (g, w) = (bits(got[i]), want[i]);
            !(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()) || (sat && g == 0.0 && w == 0.0))
        })
        .collect();
    if let Some(&i) = bad.first() {
        panic!(
            "{what}: {} of {} inputs differ; first {:#06x} ({}): GPU {} ({:#06x}), CPU {}",
            bad.len(),
            got.len(),
            inputs[i],
            bits(inputs[i]),
            bits(got[i]),
            got[i],
            want[i]
        );
    }
}

// Every 16-bit pattern. The roundings of a 16-bit float are exact in its own format: its
// integers up to 2^8 (bf16) or 2^11 (f16) are all representable, and above that every value
// is an integer.

fn integer_rounding_of_f16(gpu: Gpu) {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let sat = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    for (mode, model) in MODES {
        let f16s: Vec<f16> = all.iter().map(|b| f16::from_bits(*b)).collect();
        let got = map1::<F16, F16>(&gpu, &f16s, |k, x| match mode {
            "rni" => ptx!(k, "cvt.rni.f16.f16", x),
            "rzi" => ptx!(k, "cvt.rzi.f16.f16", x),
            "rmi" => ptx!(k, "cvt.rmi.f16.f16", x),
            _ => ptx!(k, "cvt.rpi.f16.f16", x),
        });
        let want: Vec<f32> = f16s.iter().map(|v| model(v.to_f32())).collect();
        let got: Vec<u16> = got.iter().map(|v| v.to_bits()).collect();
        check_rounding(&format!("cvt.{mode}.f16.f16"), &all, &got, &want, |b| f16::from_bits(b).to_f32(), false);
        let got = map1::<F16, F16>(&gpu, &f16s, |k, x| match mode {
            "rni" => ptx!(k, "cvt.rni.sat.f16.f16", x),
            "rzi" => ptx!(k, "cvt.rzi.sat.f16.f16", x),
            "rmi" => ptx!(k, "cvt.rmi.sat.f16.f16", x),
            _ => ptx!(k, "cvt.rpi.sat.f16.f16", x),
        });
        let want: Vec<f32> = f16s.iter().map(|v| sat(model(v.to_f32()))).collect();
        let got: Vec<u16> = got.iter().map(|v| v.to_bits()).collect();
        check_rounding(&format!("cvt.{mode}.sat.f16.f16"), &all, &got, &want, |b| f16::from_bits(b).to_f32(), true);
    }
}

fn integer_rounding_of_bf16(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("cvt.*.bf16.bf16 needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let all: Vec<u16> = (0..=u16::MAX).collect();
    for (mode, model) in MODES {
        let bfs: Vec<bf16> = all.iter().map(|b| bf16::from_bits(*b)).collect();
        let got = map1::<Bf16, Bf16>(&gpu, &bfs, |k, x| match mode {
            "rni" => ptx!(k, "cvt.rni.bf16.bf16", x),
            "rzi" => ptx!(k, "cvt.rzi.bf16.bf16", x),
            "rmi" => ptx!(k, "cvt.rmi.bf16.bf16", x),
            _ => ptx!(k, "cvt.rpi.bf16.bf16", x),
        });
        let want: Vec<f32> = bfs.iter().map(|v| model(v.to_f32())).collect();
        let got: Vec<u16> = got.iter().map(|v| v.to_bits()).collect();
        check_rounding(&format!("cvt.{mode}.bf16.bf16"), &all, &got, &want, |b| bf16::from_bits(b).to_f32(), false);
    }
}

/// Without a GPU: the barrier kernel assembles for sm_75, and a thread count that is not a
/// multiple of 32 is an error when it is built.
fn barrier_red_assembles_and_checks_counts() {
    let text = barrier_red_kernel(Target::SM_75).0.to_ptx().unwrap();
    let px = ptxas("barrier_red_assembles_and_checks_counts");
    ptxkit::ptxas::check_clean(&px, &text, Target::SM_75, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut m = Module::new(Target::SM_75);
    let r = m.kernel("bad", |k, (x,): (Reg<U32>,)| {
        let p = ptx!(k, "setp.ne.u32", x, 0u32);
        let _ = ptx!(k, "barrier.red.popc.u32" as counted, 0u32, 100u32, p);
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
}

pub const TESTS: &[Test] = &[
    host!(barrier_red_assembles_and_checks_counts),
    gpu!(barrier_reductions),
    gpu!(integer_rounding_of_f16),
    gpu!(integer_rounding_of_bf16),
];
