//! `tcgen05.ld.red` (sm_103a and sm_110a, PTX ISA 8.8): a load whose second destination is
//! the minimum or maximum of the thread's loaded words (PTX ISA 9.0, 9.7.16.8.3: "the
//! reduction operation ... is performed on the data that is loaded across columns in each
//! lane"), for 32x32b and 16x32bx2, f32/u32/s32, min and max, `.num` from x2 to x128. The
//! loaded registers follow the shapes' maps of `tcgen05_tmem.rs`; the f32 words are finite
//! and nonzero, so each reduction has one answer. `.abs` and `.NaN` are not run: what the
//! destinations hold with them is not spelled out.

use super::tcgen05_alloc::{allocate, fill_rows, free, tcgen05_target, tmem_at, warp_lane, COLS, THREADS};
use super::tcgen05_tmem::{cell, first_difference, lane_base, Shape};
use super::*;
use ptxkit::regs::TmemAddr;
use rand::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
enum RedTy {
    F32,
    U32,
    S32,
}

type RedFn = fn(&mut Kernel, TmemAddr, u32) -> (Vec<Reg<B32>>, Reg<B32>);

/// A `tcgen05.ld.red` form: shape, `.num`, max (or min), element type.
struct RedCase {
    chain: &'static str,
    shape: Shape,
    num: u32,
    max: bool,
    ty: RedTy,
    ld: RedFn,
}

macro_rules! red_cases {
    ($( $shape:ident $num:literal $op:ident $ty:ident $c:literal; )*) => {
        vec![$( RedCase {
            chain: $c,
            shape: Shape::$shape,
            num: $num,
            max: stringify!($op) == "max",
            ty: RedTy::$ty,
            ld: red_cases!(@ld $shape $c),
        } ),*]
    };
    (@ld S16x32bx2 $c:literal) => {
        |k: &mut Kernel, t: TmemAddr, split: u32| {
            let (v, r) = ptx!(k, $c, t, split);
            (v.iter().map(|x| x.bitcast::<B32>()).collect(), r.bitcast::<B32>())
        }
    };
    (@ld $shape:ident $c:literal) => {
        |k: &mut Kernel, t: TmemAddr, _split: u32| {
            let (v, r) = ptx!(k, $c, t);
            (v.iter().map(|x| x.bitcast::<B32>()).collect(), r.bitcast::<B32>())
        }
    };
}

fn red_cases() -> Vec<RedCase> {
    red_cases! {
        S32x32b 2 min F32 "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32";
        S32x32b 8 max F32 "tcgen05.ld.red.sync.aligned.32x32b.x8.max.f32";
        S32x32b 128 min F32 "tcgen05.ld.red.sync.aligned.32x32b.x128.min.f32";
        S32x32b 4 max U32 "tcgen05.ld.red.sync.aligned.32x32b.x4.max.u32";
        S32x32b 32 min U32 "tcgen05.ld.red.sync.aligned.32x32b.x32.min.u32";
        S32x32b 16 min S32 "tcgen05.ld.red.sync.aligned.32x32b.x16.min.s32";
        S32x32b 64 max S32 "tcgen05.ld.red.sync.aligned.32x32b.x64.max.s32";
        S16x32bx2 2 max F32 "tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.f32";
        S16x32bx2 32 min F32 "tcgen05.ld.red.sync.aligned.16x32bx2.x32.min.f32";
        S16x32bx2 128 max F32 "tcgen05.ld.red.sync.aligned.16x32bx2.x128.max.f32";
        S16x32bx2 8 min U32 "tcgen05.ld.red.sync.aligned.16x32bx2.x8.min.u32";
        S16x32bx2 64 max U32 "tcgen05.ld.red.sync.aligned.16x32bx2.x64.max.u32";
        S16x32bx2 4 max S32 "tcgen05.ld.red.sync.aligned.16x32bx2.x4.max.s32";
        S16x32bx2 128 min S32 "tcgen05.ld.red.sync.aligned.16x32bx2.x128.min.s32";
    }
}

/// 16x32bx2's immediate in the reductions: the second half 8 columns past the first.
fn red_split(c: &RedCase) -> u32 {
    if c.shape == Shape::S16x32bx2 {
        c.num + 8
    } else {
        0
    }
}

/// (background, loaded registers, reduced value).
type RedParams = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

fn build_red(m: &mut Module, name: &str, c: &RedCase) -> KernelRef<RedParams> {
    let (shape, regs, ld, split) = (c.shape, c.num, c.ld, red_split(c));
    m.kernel(name, move |k, (bg, out, red): RedParams| {
        k.reqntid(THREADS, 1, 1);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let (held, base, warp, warp0) = allocate(k, COLS);
        fill_rows(k, base, warp, bg, COLS);
        let lane0 = warp_lane(k, warp);
        let lane = if shape.lanes() == 16 {
            let odd = ptx!(k, "and.b32", warp, 1u32).bitcast::<U32>();
            ptx!(k, "mad.lo.u32", odd, 16u32, lane0)
        } else {
            lane0
        };
        let at = tmem_at(k, base, lane, 8);
        let (v, r) = ld(k, at, split);
        ptx!(k, "tcgen05.wait::ld.sync.aligned");
        let row = ptx!(k, "mul.lo.u32", tid, regs);
        for (j, x) in v.into_iter().enumerate() {
            ptx!(k, "st.global.b32", out.cast::<B32>().at(row).offset(j as i64), x);
        }
        ptx!(k, "st.global.b32", red.cast::<B32>().at(tid), r);
        free(k, &held, base, warp0);
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Random background words for a reduction: finite, nonzero floats of every magnitude for
/// f32 (so min and max have one answer), any word for the integers.
fn red_word(g: &mut StdRng, ty: RedTy) -> u32 {
    match ty {
        RedTy::F32 => loop {
            let x: u32 = g.gen();
            let f = f32::from_bits(x);
            if f.is_finite() && f != 0.0 {
                return x;
            }
        },
        _ => g.gen(),
    }
}

/// The registers a reduction loads (as [`cell`] places them, at column 8) and their min/max.
fn expected_red(c: &RedCase, bg: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let split = red_split(c);
    let mut regs = vec![];
    let mut red = vec![];
    for tid in 0..THREADS {
        let vals: Vec<u32> = (0..c.num)
            .map(|r| {
                let (dl, u, second) = cell(c.shape, tid % 32, r);
                let lane = lane_base(c.shape, tid) + dl;
                bg[(lane * COLS + 8 + u + if second { split } else { 0 }) as usize]
            })
            .collect();
        let pick = |a: u32, b: u32| -> u32 {
            let less = match c.ty {
                RedTy::F32 => f32::from_bits(a) < f32::from_bits(b),
                RedTy::U32 => a < b,
                RedTy::S32 => (a as i32) < (b as i32),
            };
            if less == c.max {
                b
            } else {
                a
            }
        };
        red.push(vals.iter().copied().reduce(pick).unwrap());
        regs.extend(vals);
    }
    (regs, red)
}

fn tcgen05_ld_red_min_max(gpu: Gpu) {
    let t = tcgen05_target(&gpu);
    let all = red_cases();
    let desc = ptxkit::ops::tcgen05::forms().iter().find(|f| f.chain == all[0].chain).expect("ld.red is in the table");
    if !desc.req().is_some_and(|r| r.allows(t)) {
        skip(format!("tcgen05.ld.red needs sm_103a or sm_110a (PTX ISA 8.8): this GPU's target is {t}"));
    }
    let mut g = rng("tcgen05_ld_red_min_max");
    let mut m = Module::new(t);
    let krefs: Vec<KernelRef<RedParams>> = all.iter().enumerate().map(|(i, c)| build_red(&mut m, &format!("red{i}"), c)).collect();
    let module = load(&gpu, &m);
    let mut failures = vec![];
    for (c, kr) in all.iter().zip(&krefs) {
        let bg: Vec<u32> = (0..(THREADS * COLS) as usize).map(|_| red_word(&mut g, c.ty)).collect();
        let dbg = gpu.upload(&bg).unwrap();
        let mut out = poisoned::<u32>(&gpu, (THREADS * c.num) as usize).unwrap();
        let mut red = poisoned::<u32>(&gpu, THREADS as usize).unwrap();
        module
            .kernel(kr)
            .unwrap()
            .launch(&Launch::new(1u32, THREADS), (&dbg, &mut out, &mut red))
            .unwrap_or_else(|e| panic!("{}: {e}", c.chain));
        let (out, red) = (gpu.download(&out).unwrap(), gpu.download(&red).unwrap());
        let (want_regs, want_red) = expected_red(c, &bg);
        let n = c.num as usize;
        failures.extend(first_difference(c.chain, &out, &want_regs, |_| u32::MAX, |i| format!("thread {} register {}", i / n, i % n)));
        failures.extend(first_difference(&format!("{} reduced value", c.chain), &red, &want_red, |_| u32::MAX, |i| format!("thread {i}")));
    }
    println!("{} tcgen05.ld.red forms on {t}, {} failures", all.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reduction kernels, assembled by ptxas for sm_103a.
fn tcgen05_ld_red_kernels_assemble() {
    let mut m = Module::new(Target::SM_103A);
    for (i, c) in red_cases().iter().enumerate() {
        build_red(&mut m, &format!("red{i}"), c);
    }
    let text = common::assemble("tcgen05 ld.red", &m);
    assert_eq!(text.matches("tcgen05.ld.red.").count(), red_cases().len());
}

pub const TESTS: &[Test] = &[gpu!(tcgen05_ld_red_min_max), host!(tcgen05_ld_red_kernels_assemble)];
