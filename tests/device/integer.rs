//! dp2a, dp4a, sad, mul24, mad24, szext, lop3 with a predicate output and set with a
//! boolean operation on the device, against the PTX ISA 9.0 pages' semantics written out on
//! the CPU. One kernel per group evaluates every entry on each thread's inputs, into a
//! poisoned output.

use super::*;
use ptxkit::ops::{m, op, Call, Instr, Select};
use rand::Rng;
use std::cmp::Ordering;

type R = Reg<U32>;
type P = Reg<Pred>;

/// An entry: its name (a chain), how a thread computes it from a, b, c and the predicate
/// `c & 1 != 0`, and its CPU model.
struct Entry {
    name: &'static str,
    emit: fn(&mut Kernel, R, R, R, P) -> R,
    cpu: Box<dyn Fn(u32, u32, u32) -> u32>,
}

fn entry(name: &'static str, emit: fn(&mut Kernel, R, R, R, P) -> R, cpu: impl Fn(u32, u32, u32) -> u32 + 'static) -> Entry {
    Entry { name, emit, cpu: Box::new(cpu) }
}

/// Runs the entries in one kernel on `x`, `y`, `z`; panics listing every entry that
/// disagrees with its model.
fn run(gpu: &Gpu, name: &str, entries: &[Entry], x: &[u32], y: &[u32], z: &[u32]) {
    let n = x.len();
    let mut m = Module::new(target(gpu));
    let kr = m
        .kernel(name, |k, (pa, pb, pc, out): (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>)| {
            let i = k.global_thread_index_x();
            let (a, b, c) = (k.ld(pa.at(i)), k.ld(pb.at(i)), k.ld(pc.at(i)));
            let bit = ptx!(k, "and.b32", c, 1u32);
            let p = ptx!(k, "setp.ne.b32", bit, 0u32);
            for (f, e) in entries.iter().enumerate() {
                let d = (e.emit)(k, a, b, c, p);
                k.st(out.at(i).offset((f * n) as i64), d);
            }
        })
        .unwrap();
    let module = load(gpu, &m);
    let (da, db, dc) = (gpu.upload(x).unwrap(), gpu.upload(y).unwrap(), gpu.upload(z).unwrap());
    let mut out = poisoned::<u32>(gpu, entries.len() * n).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(n as u32, 256), (&da, &db, &dc, &mut out)).unwrap();
    let got = gpu.download(&out).unwrap();
    let mut bad = vec![];
    for (f, e) in entries.iter().enumerate() {
        let wrong: Vec<usize> = (0..n).filter(|&i| got[f * n + i] != (e.cpu)(x[i], y[i], z[i])).collect();
        if let Some(&i) = wrong.first() {
            let want = (e.cpu)(x[i], y[i], z[i]);
            bad.push(format!(
                "{}: {} of {n} differ; first a={:#x} b={:#x} c={:#x}: GPU {:#x}, CPU {want:#x}",
                e.name,
                wrong.len(),
                x[i],
                y[i],
                z[i],
                got[f * n + i]
            ));
        }
    }
    println!("{name}: {} entries on {n} threads each", entries.len());
    assert!(bad.is_empty(), "{name}: {} of {} entries disagree:\n{}", bad.len(), entries.len(), bad.join("\n"));
}

const EDGES: &[u32] = &[
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7f_ffff,
    0x80_0000,
    0xff_ffff,
    0x100_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffe,
    0x8080_8080,
    0x7f7f_7f7f,
    31,
    32,
    33,
];

fn words(g: &mut StdRng, n: usize, small: bool) -> Vec<u32> {
    (0..n)
        .map(|_| match g.gen_range(0..10) {
            0..=3 => EDGES[g.gen_range(0..EDGES.len())],
            4..=6 if small => g.gen_range(0..40),
            _ => g.gen(),
        })
        .collect()
}

fn sx(x: u32, bits: u32) -> i64 {
    ((x as i64) << (64 - bits)) >> (64 - bits)
}
fn lane(x: u32, bits: u32, i: u32, signed: bool) -> i64 {
    let v = (x >> (bits * i)) & ((1u64 << bits) - 1) as u32;
    if signed {
        sx(v, bits)
    } else {
        v as i64
    }
}

/// `c + sum Va[i] * Vb[sel + i]`: dp4a (4 bytes of each) and dp2a (2 half-words of a, the
/// low or high 2 bytes of b).
fn dp(a: u32, b: u32, c: u32, two: bool, hi: bool, sa: bool, sb: bool) -> u32 {
    let (n, abits, off) = if two { (2, 16, if hi { 2 } else { 0 }) } else { (4, 8, 0) };
    let s = (0..n).map(|i| lane(a, abits, i, sa) * lane(b, 8, off + i, sb)).sum::<i64>();
    (c as i64).wrapping_add(s) as u32
}

/// mul24: the 48-bit product of the low 24 bits of a and b (sign-extended for `.s32`).
fn mul24(a: u32, b: u32, signed: bool) -> i64 {
    let ext = |x: u32| if signed { sx(x, 24) } else { (x & 0xff_ffff) as i64 };
    ext(a) * ext(b)
}

/// szext, as the page's pseudocode.
fn szext(a: u32, b: u32, clamp: bool, signed: bool) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask = if too_large { 0 } else { u32::MAX << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign = !(b1 == 0 || too_large || !signed) && (a >> sign_pos) & 1 == 1;
    (a & !mask) | if sign { mask } else { 0 }
}

fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    (0..32).fold(0, |d, i| {
        let idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d | (((lut >> idx) & 1) as u32) << i
    })
}

const LUT: u8 = 0x96; // a ^ b ^ c

/// dp2a, dp4a, mul24, mad24, sad and szext over 32-bit words, sad over 16- and 64-bit
/// values, lop3 with its predicate output (`d|p` and `_|p`).
fn integer_dot_products_24_bit_products_sad_szext_lop3(gpu: Gpu) {
    let n = sized(8192, 1024);
    let mut g = rng("integer_dot_products_24_bit_products_sad_szext_lop3");
    let (x, y, z) = (words(&mut g, n, false), words(&mut g, n, true), words(&mut g, n, false));
    let p = |c: u32| c & 1 != 0;
    let pu = |v: bool| v as u32;
    let entries = vec![
        entry("dp4a.u32.u32", |k, a, b, c, _| ptx!(k, "dp4a.u32.u32", a, b, c), |a, b, c| dp(a, b, c, false, false, false, false)),
        entry("dp4a.u32.s32", |k, a, b, c, _| ptx!(k, "dp4a.u32.s32", a, b, c).bitcast(), |a, b, c| dp(a, b, c, false, false, false, true)),
        entry("dp4a.s32.u32", |k, a, b, c, _| ptx!(k, "dp4a.s32.u32", a, b, c).bitcast(), |a, b, c| dp(a, b, c, false, false, true, false)),
        entry("dp4a.s32.s32", |k, a, b, c, _| ptx!(k, "dp4a.s32.s32", a, b, c).bitcast(), |a, b, c| dp(a, b, c, false, false, true, true)),
        entry("dp2a.lo.u32.u32", |k, a, b, c, _| ptx!(k, "dp2a.lo.u32.u32", a, b, c), |a, b, c| dp(a, b, c, true, false, false, false)),
        entry("dp2a.hi.u32.u32", |k, a, b, c, _| ptx!(k, "dp2a.hi.u32.u32", a, b, c), |a, b, c| dp(a, b, c, true, true, false, false)),
        entry(
            "dp2a.lo.u32.s32",
            |k, a, b, c, _| ptx!(k, "dp2a.lo.u32.s32", a, b, c).bitcast(),
            |a, b, c| dp(a, b, c, true, false, false, true),
        ),
        entry(
            "dp2a.hi.u32.s32",
            |k, a, b, c, _| ptx!(k, "dp2a.hi.u32.s32", a, b, c).bitcast(),
            |a, b, c| dp(a, b, c, true, true, false, true),
        ),
        entry(
            "dp2a.lo.s32.u32",
            |k, a, b, c, _| ptx!(k, "dp2a.lo.s32.u32", a, b, c).bitcast(),
            |a, b, c| dp(a, b, c, true, false, true, false),
        ),
        entry(
            "dp2a.hi.s32.u32",
            |k, a, b, c, _| ptx!(k, "dp2a.hi.s32.u32", a, b, c).bitcast(),
            |a, b, c| dp(a, b, c, true, true, true, false),
        ),
        entry(
            "dp2a.lo.s32.s32",
            |k, a, b, c, _| ptx!(k, "dp2a.lo.s32.s32", a, b, c).bitcast(),
            |a, b, c| dp(a, b, c, true, false, true, true),
        ),
        entry(
            "dp2a.hi.s32.s32",
            |k, a, b, c, _| ptx!(k, "dp2a.hi.s32.s32", a, b, c).bitcast(),
            |a, b, c| dp(a, b, c, true, true, true, true),
        ),
        entry("mul24.lo.u32", |k, a, b, _, _| ptx!(k, "mul24.lo.u32", a, b), |a, b, _| mul24(a, b, false) as u32),
        entry("mul24.hi.u32", |k, a, b, _, _| ptx!(k, "mul24.hi.u32", a, b), |a, b, _| (mul24(a, b, false) >> 16) as u32),
        entry("mul24.lo.s32", |k, a, b, _, _| ptx!(k, "mul24.lo.s32", a, b).bitcast(), |a, b, _| mul24(a, b, true) as u32),
        entry("mul24.hi.s32", |k, a, b, _, _| ptx!(k, "mul24.hi.s32", a, b).bitcast(), |a, b, _| (mul24(a, b, true) >> 16) as u32),
        entry("mad24.lo.u32", |k, a, b, c, _| ptx!(k, "mad24.lo.u32", a, b, c), |a, b, c| (mul24(a, b, false) as u32).wrapping_add(c)),
        entry(
            "mad24.hi.u32",
            |k, a, b, c, _| ptx!(k, "mad24.hi.u32", a, b, c),
            |a, b, c| ((mul24(a, b, false) >> 16) as u32).wrapping_add(c),
        ),
        entry(
            "mad24.lo.s32",
            |k, a, b, c, _| ptx!(k, "mad24.lo.s32", a, b, c).bitcast(),
            |a, b, c| (mul24(a, b, true) as u32).wrapping_add(c),
        ),
        entry(
            "mad24.hi.s32",
            |k, a, b, c, _| ptx!(k, "mad24.hi.s32", a, b, c).bitcast(),
            |a, b, c| ((mul24(a, b, true) >> 16) as u32).wrapping_add(c),
        ),
        entry(
            "mad24.hi.sat.s32",
            |k, a, b, c, _| ptx!(k, "mad24.hi.sat.s32", a, b, c).bitcast(),
            |a, b, c| ((mul24(a, b, true) >> 16) as i32).saturating_add(c as i32) as u32,
        ),
        entry("sad.u32", |k, a, b, c, _| ptx!(k, "sad.u32", a, b, c), |a, b, c| c.wrapping_add(a.abs_diff(b))),
        entry("sad.s32", |k, a, b, c, _| ptx!(k, "sad.s32", a, b, c).bitcast(), |a, b, c| c.wrapping_add((a as i32).abs_diff(b as i32))),
        entry(
            "sad.u16",
            |k, a, b, c, _| {
                let h = |k: &mut Kernel, v: R| ptx!(k, "cvt.u16.u32", v);
                let (a, b, c) = (h(k, a), h(k, b), h(k, c));
                let d = ptx!(k, "sad.u16", a, b, c);
                ptx!(k, "cvt.u32.u16", d)
            },
            |a, b, c| (c as u16).wrapping_add((a as u16).abs_diff(b as u16)) as u32,
        ),
        entry(
            "sad.s16",
            |k, a, b, c, _| {
                let h = |k: &mut Kernel, v: R| ptx!(k, "cvt.s16.u32", v);
                let (a, b, c) = (h(k, a), h(k, b), h(k, c));
                let d = ptx!(k, "sad.s16", a, b, c);
                ptx!(k, "cvt.u32.s16", d)
            },
            |a, b, c| (c as i16).wrapping_add((a as i16).abs_diff(b as i16) as i16) as i32 as u32,
        ),
        // 64-bit: a64 = (b:a), b64 = (c:b), c64 = (a:c); the low and the high word.
        entry("sad.u64 (low word)", |k, a, b, c, _| sad64(k, a, b, c, false, false), |a, b, c| sad64_cpu(a, b, c, false) as u32),
        entry("sad.u64 (high word)", |k, a, b, c, _| sad64(k, a, b, c, false, true), |a, b, c| (sad64_cpu(a, b, c, false) >> 32) as u32),
        entry("sad.s64 (low word)", |k, a, b, c, _| sad64(k, a, b, c, true, false), |a, b, c| sad64_cpu(a, b, c, true) as u32),
        entry("sad.s64 (high word)", |k, a, b, c, _| sad64(k, a, b, c, true, true), |a, b, c| (sad64_cpu(a, b, c, true) >> 32) as u32),
        entry("szext.clamp.u32", |k, a, b, _, _| ptx!(k, "szext.clamp.u32", a, b), |a, b, _| szext(a, b, true, false)),
        entry("szext.wrap.u32", |k, a, b, _, _| ptx!(k, "szext.wrap.u32", a, b), |a, b, _| szext(a, b, false, false)),
        entry("szext.clamp.s32", |k, a, b, _, _| ptx!(k, "szext.clamp.s32", a, b).bitcast(), |a, b, _| szext(a, b, true, true)),
        entry("szext.wrap.s32", |k, a, b, _, _| ptx!(k, "szext.wrap.s32", a, b).bitcast(), |a, b, _| szext(a, b, false, true)),
        // lop3 with a predicate: p = (d != 0) BoolOp q, q = c & 1 (negated for one form).
        entry("lop3.or.b32 (d)", |k, a, b, c, q| ptx!(k, "lop3.or.b32", a, b, c, LUT, q).0.bitcast(), |a, b, c| lop3(a, b, c, LUT)),
        entry(
            "lop3.or.b32 (p)",
            |k, a, b, c, q| {
                let (_, p) = ptx!(k, "lop3.or.b32", a, b, c, LUT, q);
                ptx!(k, "selp.u32", 1u32, 0u32, p)
            },
            move |a, b, c| pu(lop3(a, b, c, LUT) != 0 || p(c)),
        ),
        entry("lop3.and.b32 (d)", |k, a, b, c, q| ptx!(k, "lop3.and.b32", a, b, c, 0xe8, !q).0.bitcast(), |a, b, c| lop3(a, b, c, 0xe8)),
        entry(
            "lop3.and.b32 (p, !q)",
            |k, a, b, c, q| {
                let (_, p) = ptx!(k, "lop3.and.b32", a, b, c, 0xe8, !q);
                ptx!(k, "selp.u32", 1u32, 0u32, p)
            },
            move |a, b, c| pu(lop3(a, b, c, 0xe8) != 0 && !p(c)),
        ),
        entry(
            "lop3.and.b32 _|p",
            |k, a, b, c, q| {
                let p = ptx!(k, "lop3.and.b32" as sink, a, b, c, LUT, q);
                ptx!(k, "selp.u32", 1u32, 0u32, p)
            },
            move |a, b, c| pu(lop3(a, b, c, LUT) != 0 && p(c)),
        ),
        entry(
            "lop3.or.b32 _|p",
            |k, a, b, c, q| {
                let p = ptx!(k, "lop3.or.b32" as sink, a, b, c, 0x01, q);
                ptx!(k, "selp.u32", 1u32, 0u32, p)
            },
            move |a, b, c| pu(lop3(a, b, c, 0x01) != 0 || p(c)),
        ),
    ];
    run(&gpu, "integer", &entries, &x, &y, &z);
}

fn sad64(k: &mut Kernel, a: R, b: R, c: R, signed: bool, high: bool) -> R {
    let w = |k: &mut Kernel, lo: R, hi: R| ptx!(k, "mov.b64" as pack, [lo.bitcast::<B32>(), hi.bitcast()]);
    let (a64, b64, c64) = (w(k, a, b), w(k, b, c), w(k, c, a));
    let d = if signed {
        ptx!(k, "sad.s64", a64.bitcast::<S64>(), b64.bitcast::<S64>(), c64.bitcast::<S64>()).bitcast::<B64>()
    } else {
        ptx!(k, "sad.u64", a64.bitcast::<U64>(), b64.bitcast::<U64>(), c64.bitcast::<U64>()).bitcast::<B64>()
    };
    let [lo, hi] = ptx!(k, "mov.b64" as unpack, d);
    if high { hi } else { lo }.bitcast()
}
fn sad64_cpu(a: u32, b: u32, c: u32, signed: bool) -> u64 {
    let w = |lo: u32, hi: u32| (hi as u64) << 32 | lo as u64;
    let (a, b, c) = (w(a, b), w(b, c), w(c, a));
    let d = if signed { (a as i64).abs_diff(b as i64) } else { a.abs_diff(b) };
    c.wrapping_add(d)
}

/// A `set` form with a boolean operation: `d = (a CmpOp b) BoolOp {!}c`.
macro_rules! set_entry {
    (@pos $key:ty, ($($m:ty),*), $view:expr) => {
        Entry {
            name: <<$key as Select<($($m,)*)>>::Form as Instr>::DESC.chain,
            emit: |k, a, b, _, q| {
                let (x, y) = ($view)(k, a, b);
                <<$key as Select<($($m,)*)>>::Form as Call<_>>::call(k, (x, y, q)).bitcast()
            },
            cpu: Box::new(|a, b, c| set_cpu(<<$key as Select<($($m,)*)>>::Form as Instr>::DESC.chain, a, b, c & 1 != 0)),
        }
    };
    (@neg $key:ty, ($($m:ty),*), $view:expr) => {
        Entry {
            name: <<$key as Select<($($m,)*)>>::Form as Instr>::DESC.chain,
            emit: |k, a, b, _, q| {
                let (x, y) = ($view)(k, a, b);
                <<$key as Select<($($m,)*)>>::Form as Call<_>>::call(k, (x, y, !q)).bitcast()
            },
            cpu: Box::new(|a, b, c| set_cpu(<<$key as Select<($($m,)*)>>::Form as Instr>::DESC.chain, a, b, c & 1 == 0)),
        }
    };
}

/// Every comparison of a source type with `.and` (into `.u32`), `.or` with `!c` (into
/// `.s32`) and `.xor` (into `.f32`).
macro_rules! set_forms {
    ($v:ident; $key:ident $S:ident, $view:expr; [$($cmp:ident)*]) => {$(
        $v.push(set_entry!(@pos op::$key, (m::$cmp, m::And, U32, $S), $view));
        $v.push(set_entry!(@neg op::$key, (m::$cmp, m::Or, S32, $S), $view));
        $v.push(set_entry!(@pos op::$key, (m::$cmp, m::Xor, F32, $S), $view));
    )*};
}

/// `.ftz` on `.f32`, with `.and` into `.u32`.
macro_rules! set_ftz {
    ($v:ident; [$($cmp:ident)*]) => {$(
        $v.push(set_entry!(@pos op::Set, (m::$cmp, m::And, m::Ftz, U32, F32), |_: &mut Kernel, a: R, b: R| (a.bitcast::<F32>(), b.bitcast::<F32>())));
    )*};
}

/// The operands of a `set` of source type `s`, from the words a and b as the kernels build
/// them: `.u16` the low half-words, `.s64` the pairs (b:a) and (a:b), `.f32` the bits,
/// `.f64` the `.f32` values widened.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
enum V {
    I(i128),
    F(f64),
}
fn operand(s: &str, x: u32, y: u32, ftz: bool) -> V {
    let flush = |f: f32| if ftz && f.is_subnormal() { 0.0f32.copysign(f) } else { f };
    match s {
        "u16" => V::I((x & 0xffff) as i128),
        "s64" => V::I((((y as u64) << 32 | x as u64) as i64) as i128),
        "s32" => V::I(x as i32 as i128),
        "f32" => V::F(flush(f32::from_bits(x)) as f64),
        "f64" => V::F(f32::from_bits(x) as f64),
        _ => V::I(x as i128),
    }
}

/// `set`'s CPU model: the comparison (unsigned `lo`/`ls`/`hi`/`hs`; the `u` comparisons
/// and `nan` true on a NaN, the others false), the boolean operation with `c`, and 1.0 or
/// all ones for true, 0 for false.
fn set_cpu(chain: &str, a: u32, b: u32, c: bool) -> u32 {
    let p: Vec<&str> = chain.split('.').collect();
    let (cmp, bop, ftz) = (p[1], p[2], p.contains(&"ftz"));
    let (d, s) = (p[p.len() - 2], p[p.len() - 1]);
    let (x, y) = (operand(s, a, b, ftz), operand(s, b, a, ftz));
    let nan = matches!(x, V::F(f) if f.is_nan()) || matches!(y, V::F(f) if f.is_nan());
    let ord = x.partial_cmp(&y);
    let t = match cmp {
        "num" => !nan,
        "nan" => nan,
        c if c.ends_with('u') && c.len() == 3 => nan || cmp_of(&c[..2], ord),
        "lo" => cmp_of("lt", ord),
        "ls" => cmp_of("le", ord),
        "hi" => cmp_of("gt", ord),
        "hs" => cmp_of("ge", ord),
        c => !nan && cmp_of(c, ord),
    };
    let r = match bop {
        "and" => t && c,
        "or" => t || c,
        _ => t ^ c,
    };
    match (r, d) {
        (false, _) => 0,
        (true, "f32") => 1.0f32.to_bits(),
        (true, _) => u32::MAX,
    }
}
fn cmp_of(c: &str, o: Option<Ordering>) -> bool {
    match (c, o) {
        (_, None) => false,
        ("eq", Some(o)) => o == Ordering::Equal,
        ("ne", Some(o)) => o != Ordering::Equal,
        ("lt", Some(o)) => o == Ordering::Less,
        ("le", Some(o)) => o != Ordering::Greater,
        ("gt", Some(o)) => o == Ordering::Greater,
        ("ge", Some(o)) => o != Ordering::Less,
        _ => panic!("comparison {c}"),
    }
}

/// Float words: NaNs, infinities, signed zeros, subnormals, ones, and random values; equal
/// to the other operand now and then.
fn float_words(g: &mut StdRng, n: usize) -> Vec<u32> {
    const SPECIAL: &[u32] = &[0x7fc0_0000, 0xffc0_0001, 0x7f80_0000, 0xff80_0000, 0, 0x8000_0000, 1, 0x807f_ffff, 0x3f80_0000, 0xbf80_0000];
    (0..n).map(|_| if g.gen_bool(0.3) { SPECIAL[g.gen_range(0..SPECIAL.len())] } else { (g.gen::<f32>() * 4.0 - 2.0).to_bits() }).collect()
}

/// `set.CmpOp.BoolOp.dtype.stype` over every comparison of `.u32`, `.s32`, `.b32`, `.u16`,
/// `.s64`, `.f32` (with and without `.ftz`) and `.f64`.
fn set_with_a_boolean_operation(gpu: Gpu) {
    let n = sized(8192, 1024);
    let mut g = rng("set_with_a_boolean_operation");
    let x = words(&mut g, n, false);
    let y: Vec<u32> = (0..n).map(|i| if g.gen_bool(0.2) { x[i] } else { words(&mut g, 1, false)[0] }).collect();
    let z = words(&mut g, n, false);
    let mut v: Vec<Entry> = vec![];
    set_forms!(v; Set U32, |_: &mut Kernel, a: R, b: R| (a, b); [Eq Ne Lt Le Gt Ge Lo Ls Hi Hs]);
    set_forms!(v; Set S32, |_: &mut Kernel, a: R, b: R| (a, b); [Eq Ne Lt Le Gt Ge]);
    set_forms!(v; Set B32, |_: &mut Kernel, a: R, b: R| (a, b); [Eq Ne]);
    set_forms!(v; Set U16, |k: &mut Kernel, a: R, b: R| (ptx!(k, "cvt.u16.u32", a), ptx!(k, "cvt.u16.u32", b)); [Eq Ne Lt Le Gt Ge Lo Ls Hi Hs]);
    set_forms!(v; Set S64, |k: &mut Kernel, a: R, b: R| {
        let x = ptx!(k, "mov.b64" as pack, [a.bitcast::<B32>(), b.bitcast()]);
        let y = ptx!(k, "mov.b64" as pack, [b.bitcast::<B32>(), a.bitcast()]);
        (x.bitcast::<S64>(), y.bitcast::<S64>())
    }; [Eq Ne Lt Le Gt Ge]);
    run(&gpu, "set_int", &v, &x, &y, &z);

    let fx = float_words(&mut g, n);
    let fy: Vec<u32> = (0..n).map(|i| if g.gen_bool(0.2) { fx[i] } else { float_words(&mut g, 1)[0] }).collect();
    let mut v: Vec<Entry> = vec![];
    set_forms!(v; Set F32, |_: &mut Kernel, a: R, b: R| (a.bitcast::<F32>(), b.bitcast::<F32>()); [Eq Ne Lt Le Gt Ge Equ Neu Ltu Leu Gtu Geu Num Nan]);
    set_forms!(v; Set F64, |k: &mut Kernel, a: R, b: R| {
        (ptx!(k, "cvt.f64.f32", a.bitcast::<F32>()), ptx!(k, "cvt.f64.f32", b.bitcast::<F32>()))
    }; [Eq Ne Lt Le Gt Ge Equ Neu Ltu Leu Gtu Geu Num Nan]);
    set_ftz!(v; [Eq Ne Lt Le Gt Ge Equ Neu Ltu Leu Gtu Geu Num Nan]);
    run(&gpu, "set_float", &v, &fx, &fy, &z);
}

pub const TESTS: &[Test] = &[gpu!(integer_dot_products_24_bit_products_sad_szext_lop3), gpu!(set_with_a_boolean_operation)];
