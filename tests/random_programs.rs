//! Random programs: kernels built from random sequences of typed operations, with random
//! guards, branches, loops and calls, must print and be accepted by ptxas. The seed is
//! fresh each run and printed; `PTXKIT_SEED=n` replays one.

mod common;

use ptxkit::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct Pools {
    u: Vec<Reg<U32>>,
    f: Vec<Reg<F32>>,
    p: Vec<Reg<Pred>>,
    x: GlobalPtr<U32>,
    y: GlobalPtr<F32>,
}

fn pick<T: Copy>(r: &mut StdRng, v: &[T]) -> T {
    v[r.gen_range(0..v.len())]
}

type F = FuncRef<(Reg<U32>, Reg<F32>), Reg<F32>>;

/// One random statement; some run in a guarded scope (`@p` or `@!p` on everything they
/// emit, nested scopes and instructions with their own guards included).
fn stmt(k: &mut Kernel, r: &mut StdRng, p: &mut Pools, depth: u32, f: &F) {
    if r.gen_bool(0.15) {
        let g = pick(r, &p.p);
        if r.gen_bool(0.5) {
            k.guarded(g, |k| stmt_body(k, r, p, depth, f));
        } else {
            k.guarded(!g, |k| stmt_body(k, r, p, depth, f));
        }
    } else {
        stmt_body(k, r, p, depth, f);
    }
}

fn stmt_body(k: &mut Kernel, r: &mut StdRng, p: &mut Pools, depth: u32, f: &F) {
    let (a, b, c) = (pick(r, &p.u), pick(r, &p.u), pick(r, &p.u));
    let (fa, fb, fc) = (pick(r, &p.f), pick(r, &p.f), pick(r, &p.f));
    let imm: u32 = r.gen();
    let fimm: f32 = r.gen_range(-1e6f32..1e6);
    match r.gen_range(0..38) {
        0 => p.u.push(ptx!(k, "add.u32", a, b)),
        1 => p.u.push(ptx!(k, "sub.u32", a, imm)),
        2 => p.u.push(ptx!(k, "mul.lo.u32", a, b)),
        3 => p.u.push(ptx!(k, "mad.lo.u32", a, b, c)),
        4 => p.u.push(ptx!(k, "mul.hi.u32", a, imm)),
        5 => p.u.push(ptx!(k, "min.u32", a, b)),
        6 => p.u.push(ptx!(k, "xor.b32", a, b).bitcast()),
        7 => p.u.push(ptx!(k, "shl.b32", a, imm % 40).bitcast()),
        8 => p.u.push(ptx!(k, "shr.u32", a, b)),
        9 => p.u.push(ptx!(k, "div.u32", a, b)),
        10 => p.u.push(ptx!(k, "rem.u32", a, imm | 1)),
        11 => p.u.push(ptx!(k, "bfe.u32", a, b, c)),
        12 => p.u.push(ptx!(k, "popc.b32", a)),
        13 => p.u.push(ptx!(k, "prmt.b32", a, b, imm).bitcast()),
        14 => p.u.push(ptx!(k, "lop3.b32", a, b, c, imm & 0xff).bitcast()),
        15 => p.f.push(ptx!(k, "add.rz.f32", fa, fb)),
        16 => p.f.push(ptx!(k, "fma.rn.ftz.f32", fa, fb, fc)),
        17 => p.f.push(ptx!(k, "mul.rm.f32", fa, fimm)),
        18 => p.f.push(ptx!(k, "div.rn.f32", fa, fb)),
        19 => p.f.push(ptx!(k, "sqrt.approx.f32", fa)),
        20 => p.f.push(ptx!(k, "max.NaN.f32", fa, fb)),
        21 => p.f.push(ptx!(k, "cvt.rn.f32.u32", a)),
        22 => p.u.push(ptx!(k, "cvt.rzi.sat.u32.f32", fa)),
        23 => p.p.push(ptx!(k, "setp.lt.u32", a, b)),
        24 => p.p.push(ptx!(k, "setp.gtu.f32", fa, fimm)),
        25 => p.u.push(ptx!(k, "selp.b32", a, b, pick(r, &p.p)).bitcast()),
        26 => p.u.push(ptx!(k, "ld.global.u32", p.x.at(a))),
        27 => ptx!(k, "st.global.f32", p.y.offset(r.gen_range(0..64)), fa),
        28 => p.u.push(ptx!(k, "atom.global.add.u32", p.x.at(b), a)),
        29 => {
            let q = pick(r, &p.p);
            p.p.push(ptx!(k, "and.pred", q, pick(r, &p.p)));
        }
        30 if depth < 3 => {
            let q = pick(r, &p.p);
            let n = r.gen_range(0..4);
            k.if_(q, |k| (0..n).for_each(|_| stmt(k, r, p, depth + 1, f)));
        }
        31 if depth < 3 => {
            let n = r.gen_range(0..4);
            let end = if r.gen_bool(0.5) { a } else { ptx!(k, "mov.u32", r.gen_range(0u32..16)) };
            k.for_range(0u32, end, r.gen_range(1..4), |k, i| {
                p.u.push(i);
                (0..n).for_each(|_| stmt(k, r, p, depth + 1, f));
                p.u.retain(|x| *x != i);
            });
        }
        32 => {
            let v = k.call(f, (a, fa));
            p.f.push(v);
        }
        33 => {
            let g = pick(r, &p.p);
            p.u.push(ptx!(k, @g, "ld.global.u32", p.x.at(a)));
        }
        34 => {
            let g = pick(r, &p.p);
            ptx!(k, @!g, "st.global.f32", p.y.at(b), fa);
        }
        35 => p.u.push(k.ld(p.x.at(c))),
        36 => k.st(p.y.at(a), fb),
        _ => {
            let acc = pick(r, &p.f);
            ptx!(k, "add.f32" => acc, acc, fb);
        }
    }
}

#[test]
fn random_programs_assemble() {
    let seed: u64 = std::env::var("PTXKIT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    println!("random_programs seed {seed} (PTXKIT_SEED={seed} replays it)");
    let mut r = StdRng::seed_from_u64(seed);
    let mut m = Module::new(Target::SM_80);
    let f = m
        .func("helper", |k, (u, x): (Reg<U32>, Reg<F32>)| {
            let c = ptx!(k, "cvt.rn.f32.u32", u);
            ptx!(k, "fma.rn.f32", c, x, 1.5f32)
        })
        .unwrap();
    let programs = 150;
    let mut total = 0;
    for n in 0..programs {
        m.kernel(&format!("random_{n}"), |k, (x, y, s): (GlobalPtr<U32>, GlobalPtr<F32>, Reg<U32>)| {
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let f0 = ptx!(k, "ld.global.f32", y.at(t));
            let p0 = ptx!(k, "setp.ne.u32", s, t);
            let mut pools = Pools { u: vec![t, s], f: vec![f0], p: vec![p0], x, y };
            let len = r.gen_range(5..60);
            for _ in 0..len {
                stmt(k, &mut r, &mut pools, 0, &f);
            }
            let last = *pools.u.last().unwrap();
            ptx!(k, "st.global.u32", x.at(t), last);
            total += k.len();
        })
        .unwrap_or_else(|e| panic!("seed {seed}: program {n}: {e}"));
    }
    let text = m.to_ptx().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    println!("{programs} random kernels, {total} instructions");
    if let Some(px) = common::ptxas("random_programs_assemble") {
        if let Err(log) = ptxkit::ptxas::check_clean(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble) {
            let path = std::env::temp_dir().join(format!("ptxkit-random-{seed}.ptx"));
            std::fs::write(&path, &text).ok();
            panic!("seed {seed}: ptxas rejected a random program (module saved to {}):\n{log}", path.display());
        }
    }
}
