//! The video instructions on the device: every form of the `video` table, chosen by its
//! types (`<op::Vadd as Select<(S32, U32, S32, m::Sat)>>::Form`, the type a `ptx!` call of
//! `"vadd.s32.u32.s32.sat"` names), with byte, half-word and lane selectors and masks from
//! the operands' methods. One kernel per group evaluates every form of the group on each
//! thread's inputs (edge values and random words), into a poisoned output, and each result
//! is compared bit for bit with the model of `video_ref.rs`; a failure lists every form that
//! disagrees.

use super::video_ref::Spec;
use super::*;
use ptxkit::core::{FormDesc, Sel};
use ptxkit::ops::sel::Selector;
use ptxkit::ops::{m, op, v, Call, Instr, IntoDst, Select};
use ptxkit::regs::{Negative, Part};
use rand::Rng;

type R = Reg<U32>;

/// Threads per group kernel.
fn threads() -> usize {
    sized(4096, 512)
}

/// Values at the edges of bytes, half-words and words.
const EDGES: &[u32] = &[
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0xffff_ff80,
    0xffff_8000,
    0x8080_8080,
    0x7f7f_7f7f,
    0xff00_ff00,
    0x00ff_00ff,
    0x8000_ffff,
    0x7fff_8000,
];

/// An input word: an edge value, a small number (a shift), or random bits.
fn word(g: &mut impl Rng, small: bool) -> u32 {
    match g.gen_range(0..10) {
        0..=3 => EDGES[g.gen_range(0..EDGES.len())],
        4..=5 => g.gen_range(0..64),
        6 if small => g.gen_range(0..40),
        _ if small && g.gen_bool(0.5) => g.gen_range(0..40),
        _ => g.gen(),
    }
}

/// The selector an operand carries.
trait SelOf {
    fn sel_of(&self) -> Sel;
}
impl<T: DataType> SelOf for Reg<T> {
    fn sel_of(&self) -> Sel {
        Sel::NONE
    }
}
impl<T: DataType, P: Selector> SelOf for Part<T, P> {
    fn sel_of(&self) -> Sel {
        P::SEL
    }
}
impl<X: SelOf> SelOf for Negative<X> {
    fn sel_of(&self) -> Sel {
        self.0.sel_of()
    }
}

/// One emitted form: its descriptor and the selectors of d, a and b.
struct Case {
    form: &'static FormDesc,
    sels: [Sel; 3],
}

/// A group kernel under construction: the form `f` writes `out[f * n + i]`.
struct Cx<'k> {
    k: &'k mut Kernel,
    out: GlobalPtr<U32>,
    i: Reg<U32>,
    n: usize,
    cases: Vec<Case>,
}

impl Cx<'_> {
    fn record(&mut self, form: &'static FormDesc, sels: [Sel; 3], d: Reg<U32>) {
        let at = self.out.at(self.i).offset((self.cases.len() * self.n) as i64);
        self.k.st(at, d);
        self.cases.push(Case { form, sels });
    }
}

/// A form called on its operands, the result stored and recorded.
macro_rules! form {
    ($cx:ident, $op:ty, ($($m:ty),*), $var:ident, $a:expr, $b:expr $(, $c:expr)?) => {{
        type F = <$op as Select<($($m,)*), v::$var>>::Form;
        let (a, b) = ($a, $b);
        let sels = [Sel::NONE, a.sel_of(), b.sel_of()];
        let d = <F as Call<_>>::call($cx.k, (a, b $(, $c)?));
        $cx.record(<F as Instr>::DESC, sels, d.bitcast());
    }};
}

/// A form writing part of its destination (`as dsel`, `as mask`): `=> d.$part()`.
macro_rules! form_into {
    ($cx:ident, $op:ty, ($($m:ty),*), $var:ident, $D:ty, $part:ident, $a:expr, $b:expr, $c:expr) => {{
        type F = <$op as Select<($($m,)*), v::$var>>::Form;
        let (a, b) = ($a, $b);
        let (asel, bsel) = (a.sel_of(), b.sel_of());
        let d = $cx.k.reg::<$D>();
        let dst = <F as Call<_>>::call_into($cx.k, IntoDst::into_dst(d.$part()), (a, b, $c));
        $cx.record(<F as Instr>::DESC, [dst.sel(), asel, bsel], d.bitcast());
    }};
}

/// vadd .. vmax: every `.sat` and secondary operation, and the merge, for each type
/// combination with its selectors.
macro_rules! arith {
    ($cx:ident, $x:ident, $y:ident, $z:ident; $($O:ident)*) => {$(
        arith!(@one $cx, $x, $y, $z, $O;
            U32 U32 U32 [|r: R| r] [|r: R| r] b0;
            U32 U32 S32 [|r: R| r.b1()] [|r: R| r.h0()] b1;
            U32 S32 U32 [|r: R| r.h1()] [|r: R| r] b2;
            U32 S32 S32 [|r: R| r.b3()] [|r: R| r.b2()] b3;
            S32 U32 U32 [|r: R| r] [|r: R| r.h1()] h0;
            S32 U32 S32 [|r: R| r.b2()] [|r: R| r.b3()] h1;
            S32 S32 U32 [|r: R| r.h0()] [|r: R| r.b0()] h1;
            S32 S32 S32 [|r: R| r] [|r: R| r] h0;
        );
    )*};
    (@one $cx:ident, $x:ident, $y:ident, $z:ident, $O:ident; $($D:ident $A:ident $B:ident [$sa:expr] [$sb:expr] $ds:ident;)*) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        form!($cx, op::$O, ($D, $A, $B), Plain, a, b);
        form!($cx, op::$O, ($D, $A, $B, m::Sat), Plain, a, b);
        form!($cx, op::$O, ($D, $A, $B, m::Add), Plain, a, b, $z);
        form!($cx, op::$O, ($D, $A, $B, m::Sat, m::Add), Plain, a, b, $z);
        form!($cx, op::$O, ($D, $A, $B, m::Min), Plain, a, b, $z);
        form!($cx, op::$O, ($D, $A, $B, m::Sat, m::Min), Plain, a, b, $z);
        form!($cx, op::$O, ($D, $A, $B, m::Max), Plain, a, b, $z);
        form!($cx, op::$O, ($D, $A, $B, m::Sat, m::Max), Plain, a, b, $z);
        form_into!($cx, op::$O, ($D, $A, $B), Dsel, $D, $ds, a, b, $z);
        form_into!($cx, op::$O, ($D, $A, $B, m::Sat), Dsel, $D, $ds, a, b, $z);
    })*};
}

/// vshl, vshr: both modes, with and without `.sat`, each secondary operation and the merge.
macro_rules! shifts {
    ($cx:ident, $x:ident, $y:ident, $z:ident; $($O:ident)*) => {$(
        shifts!(@one $cx, $x, $y, $z, $O;
            U32 U32 [|r: R| r] [|r: R| r] b0;
            U32 S32 [|r: R| r.b1()] [|r: R| r.b0()] h1;
            S32 U32 [|r: R| r.h1()] [|r: R| r.h0()] b3;
            S32 S32 [|r: R| r] [|r: R| r.b2()] h0;
        );
    )*};
    (@one $cx:ident, $x:ident, $y:ident, $z:ident, $O:ident; $($D:ident $A:ident [$sa:expr] [$sb:expr] $ds:ident;)*) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        shifts!(@mode $cx, $z, $O, $D, $A, a, b, $ds, Clamp);
        shifts!(@mode $cx, $z, $O, $D, $A, a, b, $ds, Wrap);
    })*};
    (@mode $cx:ident, $z:ident, $O:ident, $D:ident, $A:ident, $a:ident, $b:ident, $ds:ident, $mode:ident) => {
        form!($cx, op::$O, ($D, $A, U32, m::$mode), Plain, $a, $b);
        form!($cx, op::$O, ($D, $A, U32, m::Sat, m::$mode), Plain, $a, $b);
        form!($cx, op::$O, ($D, $A, U32, m::$mode, m::Add), Plain, $a, $b, $z);
        form!($cx, op::$O, ($D, $A, U32, m::Sat, m::$mode, m::Add), Plain, $a, $b, $z);
        form!($cx, op::$O, ($D, $A, U32, m::$mode, m::Min), Plain, $a, $b, $z);
        form!($cx, op::$O, ($D, $A, U32, m::Sat, m::$mode, m::Min), Plain, $a, $b, $z);
        form!($cx, op::$O, ($D, $A, U32, m::$mode, m::Max), Plain, $a, $b, $z);
        form!($cx, op::$O, ($D, $A, U32, m::Sat, m::$mode, m::Max), Plain, $a, $b, $z);
        form_into!($cx, op::$O, ($D, $A, U32, m::$mode), Dsel, $D, $ds, $a, $b, $z);
        form_into!($cx, op::$O, ($D, $A, U32, m::Sat, m::$mode), Dsel, $D, $ds, $a, $b, $z);
    };
}

/// vmad: each scaling with and without `.sat`, plain and with each negation, and `.po`.
macro_rules! vmad {
    ($cx:ident, $x:ident, $y:ident, $z:ident; $($D:ident $A:ident $B:ident [$sa:expr] [$sb:expr];)*) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        vmad!(@neg $cx, $z, op::Vmad, ($D, $A, $B), a, b);
        vmad!(@neg $cx, $z, op::Vmad, ($D, $A, $B, m::Sat), a, b);
        vmad!(@neg $cx, $z, op::Vmad, ($D, $A, $B, m::Shr7), a, b);
        vmad!(@neg $cx, $z, op::Vmad, ($D, $A, $B, m::Shr15), a, b);
        vmad!(@neg $cx, $z, op::Vmad, ($D, $A, $B, m::Sat, m::Shr7), a, b);
        vmad!(@neg $cx, $z, op::Vmad, ($D, $A, $B, m::Sat, m::Shr15), a, b);
        form!($cx, op::Vmad, ($D, $A, $B, m::Po), Plain, a, b, $z);
        form!($cx, op::Vmad, ($D, $A, $B, m::Po, m::Sat), Plain, a, b, $z);
        form!($cx, op::Vmad, ($D, $A, $B, m::Po, m::Shr7), Plain, a, b, $z);
        form!($cx, op::Vmad, ($D, $A, $B, m::Po, m::Shr15), Plain, a, b, $z);
        form!($cx, op::Vmad, ($D, $A, $B, m::Po, m::Sat, m::Shr7), Plain, a, b, $z);
        form!($cx, op::Vmad, ($D, $A, $B, m::Po, m::Sat, m::Shr15), Plain, a, b, $z);
    })*};
    (@neg $cx:ident, $z:ident, $key:ty, $mods:tt, $a:ident, $b:ident) => {
        form!($cx, $key, $mods, Plain, $a, $b, $z);
        form!($cx, $key, $mods, NegA, -$a, $b, $z);
        form!($cx, $key, $mods, NegB, $a, -$b, $z);
        form!($cx, $key, $mods, NegC, $a, $b, -$z);
    };
}

/// vset: each comparison, plain, with each secondary operation and merged.
macro_rules! vset {
    ($cx:ident, $x:ident, $y:ident, $z:ident; $($A:ident $B:ident [$sa:expr] [$sb:expr] $ds:ident;)*) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        vset!(@cmp $cx, $z, $A, $B, a, b, $ds; Eq Ne Lt Le Gt Ge);
    })*};
    (@cmp $cx:ident, $z:ident, $A:ident, $B:ident, $a:ident, $b:ident, $ds:ident; $($cmp:ident)*) => {$(
        form!($cx, op::Vset, ($A, $B, m::$cmp), Plain, $a, $b);
        form!($cx, op::Vset, ($A, $B, m::$cmp, m::Add), Plain, $a, $b, $z);
        form!($cx, op::Vset, ($A, $B, m::$cmp, m::Min), Plain, $a, $b, $z);
        form!($cx, op::Vset, ($A, $B, m::$cmp, m::Max), Plain, $a, $b, $z);
        form_into!($cx, op::Vset, ($A, $B, m::$cmp), Dsel, U32, $ds, $a, $b, $z);
    )*};
}

/// The SIMD arithmetic forms: plain, `.sat`, `.add`, each also with a mask.
macro_rules! simd {
    ($cx:ident, $x:ident, $y:ident, $z:ident; [$($O:ident)*]; $list:tt) => {$(
        simd!(@one $cx, $x, $y, $z, $O; $list);
    )*};
    (@one $cx:ident, $x:ident, $y:ident, $z:ident, $O:ident; [$($D:ident $A:ident $B:ident [$sa:expr] [$sb:expr] $mask:ident;)*]) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        form!($cx, op::$O, ($D, $A, $B), Plain, a, b, $z);
        form!($cx, op::$O, ($D, $A, $B, m::Sat), Plain, a, b, $z);
        form!($cx, op::$O, ($D, $A, $B, m::Add), Plain, a, b, $z);
        form_into!($cx, op::$O, ($D, $A, $B), Mask, $D, $mask, a, b, $z);
        form_into!($cx, op::$O, ($D, $A, $B, m::Sat), Mask, $D, $mask, a, b, $z);
        form_into!($cx, op::$O, ($D, $A, $B, m::Add), Mask, $D, $mask, a, b, $z);
    })*};
}

/// vset2, vset4: each comparison, plain and with `.add`, each also with a mask.
macro_rules! simd_set {
    ($cx:ident, $x:ident, $y:ident, $z:ident; $op:ident; [$($A:ident $B:ident [$sa:expr] [$sb:expr] $mask:ident;)*]) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        simd_set!(@cmp $cx, $z, $op, $A, $B, a, b, $mask; Eq Ne Lt Le Gt Ge);
    })*};
    (@cmp $cx:ident, $z:ident, $op:ident, $A:ident, $B:ident, $a:ident, $b:ident, $mask:ident; $($cmp:ident)*) => {$(
        form!($cx, op::$op, ($A, $B, m::$cmp), Plain, $a, $b, $z);
        form!($cx, op::$op, ($A, $B, m::$cmp, m::Add), Plain, $a, $b, $z);
        form_into!($cx, op::$op, ($A, $B, m::$cmp), Mask, U32, $mask, $a, $b, $z);
        form_into!($cx, op::$op, ($A, $B, m::$cmp, m::Add), Mask, U32, $mask, $a, $b, $z);
    )*};
}

/// A group of forms: one kernel evaluates them all on each thread's inputs.
struct Group {
    name: &'static str,
    /// Whether b is mostly a small number (a shift amount).
    small_b: bool,
    emit: fn(&mut Cx, R, R, R),
}

const GROUPS: &[Group] = &[
    // vadd, vsub, vabsdiff, vmin, vmax: 400 forms.
    Group { name: "video_scalar_arithmetic", small_b: false, emit: scalar_arithmetic },
    // vshl, vshr: 160 forms, on shift amounts mostly below 40.
    Group { name: "video_shifts", small_b: true, emit: shift_forms },
    // vmad (240 forms) and vset (120).
    Group { name: "video_vmad_vset", small_b: false, emit: vmad_vset },
    // vadd2 .. vmax2 and vavrg2 (288) and vset2 (96).
    Group { name: "video_simd2", small_b: false, emit: simd2 },
    // vadd4 .. vmax4 and vavrg4 (288) and vset4 (96).
    Group { name: "video_simd4", small_b: false, emit: simd4 },
];

type Params = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

/// A group's module for `n` threads: its kernel and the forms, in output order.
fn build(group: &Group, target: Target, n: usize) -> (Module, KernelRef<Params>, Vec<Case>) {
    let mut cases = vec![];
    let mut m = Module::new(target);
    let kr = m
        .kernel(group.name, |k, (pa, pb, pc, out): Params| {
            let i = k.global_thread_index_x();
            let (a, b, c) = (k.ld(pa.at(i)), k.ld(pb.at(i)), k.ld(pc.at(i)));
            let mut cx = Cx { k, out, i, n, cases: vec![] };
            (group.emit)(&mut cx, a, b, c);
            cases = cx.cases;
        })
        .unwrap();
    (m, kr, cases)
}

/// Runs a group on fresh inputs and compares every form's results with the model; panics
/// listing every form that disagrees.
fn run_group(gpu: &Gpu, group: &Group) {
    let n = threads();
    let mut g = rng(group.name);
    let x: Vec<u32> = (0..n).map(|_| word(&mut g, false)).collect();
    let y: Vec<u32> = (0..n).map(|_| word(&mut g, group.small_b)).collect();
    let z: Vec<u32> = (0..n).map(|_| word(&mut g, false)).collect();
    let (m, kr, cases) = build(group, target(gpu), n);
    let module = load(gpu, &m);
    let (da, db, dc) = (gpu.upload(&x).unwrap(), gpu.upload(&y).unwrap(), gpu.upload(&z).unwrap());
    let mut out = poisoned::<u32>(gpu, cases.len() * n).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(n as u32, 256), (&da, &db, &dc, &mut out)).unwrap();
    let got = gpu.download(&out).unwrap();
    let mut bad = vec![];
    for (f, case) in cases.iter().enumerate() {
        let [d, a, b] = case.sels;
        let spec = Spec::parse(case.form.chain, case.form.variant, d, a, b);
        let wrong: Vec<usize> = (0..n).filter(|&i| got[f * n + i] != spec.eval(x[i], y[i], z[i])).collect();
        if let Some(&i) = wrong.first() {
            bad.push(format!(
                "{} ({}) d{d} a{a} b{b}: {} of {n} differ; first a={:#x} b={:#x} c={:#x}: GPU {:#x}, model {:#x}",
                case.form.chain,
                case.form.variant,
                wrong.len(),
                x[i],
                y[i],
                z[i],
                got[f * n + i],
                spec.eval(x[i], y[i], z[i])
            ));
        }
    }
    println!("{}: {} forms on {n} threads each", group.name, cases.len());
    assert!(bad.is_empty(), "{}: {} of {} forms disagree with the model:\n{}", group.name, bad.len(), cases.len(), bad.join("\n"));
}

fn scalar_arithmetic(cx: &mut Cx, x: R, y: R, z: R) {
    arith!(cx, x, y, z; Vadd Vsub Vabsdiff Vmin Vmax);
}

fn shift_forms(cx: &mut Cx, x: R, y: R, z: R) {
    shifts!(cx, x, y, z; Vshl Vshr);
}

fn vmad_vset(cx: &mut Cx, x: R, y: R, z: R) {
    vmad!(cx, x, y, z;
        U32 U32 U32 [|r: R| r] [|r: R| r];
        U32 U32 S32 [|r: R| r.h0()] [|r: R| r.b1()];
        U32 S32 U32 [|r: R| r.b3()] [|r: R| r.h1()];
        U32 S32 S32 [|r: R| r] [|r: R| r.b2()];
        S32 U32 U32 [|r: R| r.h1()] [|r: R| r];
        S32 U32 S32 [|r: R| r.b0()] [|r: R| r.h0()];
        S32 S32 U32 [|r: R| r] [|r: R| r];
        S32 S32 S32 [|r: R| r.h1()] [|r: R| r.b3()];
    );
    vset!(cx, x, y, z;
        U32 U32 [|r: R| r] [|r: R| r] h1;
        U32 S32 [|r: R| r.b1()] [|r: R| r.h1()] b2;
        S32 U32 [|r: R| r.h0()] [|r: R| r] b0;
        S32 S32 [|r: R| r.b3()] [|r: R| r.b3()] h0;
    );
}

fn simd2(cx: &mut Cx, x: R, y: R, z: R) {
    simd!(cx, x, y, z; [Vadd2 Vsub2 Vavrg2 Vabsdiff2 Vmin2 Vmax2]; [
        U32 U32 U32 [|r: R| r] [|r: R| r] h10;
        U32 U32 S32 [|r: R| r.halves::<3, 0>()] [|r: R| r.halves::<1, 2>()] h1;
        U32 S32 U32 [|r: R| r.halves::<0, 0>()] [|r: R| r] h0;
        U32 S32 S32 [|r: R| r] [|r: R| r.halves::<1, 0>()] h1;
        S32 U32 U32 [|r: R| r.halves::<2, 3>()] [|r: R| r.halves::<3, 3>()] h0;
        S32 U32 S32 [|r: R| r] [|r: R| r] h10;
        S32 S32 U32 [|r: R| r.halves::<1, 3>()] [|r: R| r] h1;
        S32 S32 S32 [|r: R| r.h10()] [|r: R| r.halves::<2, 1>()] h0;
    ]);
    simd_set!(cx, x, y, z; Vset2; [
        U32 U32 [|r: R| r] [|r: R| r] h1;
        U32 S32 [|r: R| r.halves::<2, 0>()] [|r: R| r] h10;
        S32 U32 [|r: R| r] [|r: R| r.halves::<0, 3>()] h0;
        S32 S32 [|r: R| r.halves::<3, 1>()] [|r: R| r.halves::<1, 2>()] h1;
    ]);
}

fn simd4(cx: &mut Cx, x: R, y: R, z: R) {
    simd!(cx, x, y, z; [Vadd4 Vsub4 Vavrg4 Vabsdiff4 Vmin4 Vmax4]; [
        U32 U32 U32 [|r: R| r] [|r: R| r] b3210;
        U32 U32 S32 [|r: R| r.bytes::<7, 0, 5, 2>()] [|r: R| r.bytes::<1, 6, 3, 4>()] b31;
        U32 S32 U32 [|r: R| r.bytes::<0, 0, 7, 7>()] [|r: R| r] b0;
        U32 S32 S32 [|r: R| r] [|r: R| r.b3210()] b210;
        S32 U32 U32 [|r: R| r.bytes::<4, 5, 6, 7>()] [|r: R| r.bytes::<3, 2, 1, 0>()] b32;
        S32 U32 S32 [|r: R| r] [|r: R| r] b20;
        S32 S32 U32 [|r: R| r.bytes::<6, 1, 4, 3>()] [|r: R| r] b321;
        S32 S32 S32 [|r: R| r.b3210()] [|r: R| r.bytes::<2, 7, 0, 5>()] b1;
    ]);
    simd_set!(cx, x, y, z; Vset4; [
        U32 U32 [|r: R| r] [|r: R| r] b30;
        U32 S32 [|r: R| r.bytes::<5, 1, 7, 3>()] [|r: R| r] b3210;
        S32 U32 [|r: R| r] [|r: R| r.bytes::<0, 4, 2, 6>()] b2;
        S32 S32 [|r: R| r.bytes::<3, 3, 4, 4>()] [|r: R| r.bytes::<7, 0, 1, 6>()] b310;
    ]);
}

/// Every form of the `video` table is in exactly one group, and every group kernel
/// assembles (where there is no GPU too).
fn video_groups_cover_every_form_and_assemble() {
    let mut seen = std::collections::HashMap::new();
    for group in GROUPS {
        let (m, _, cases) = build(group, Target::SM_90, 64);
        for c in &cases {
            *seen.entry(c.form.isa_key()).or_insert(0) += 1;
        }
        let text = m.to_ptx().unwrap();
        let px = ptxas(group.name);
        ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble)
            .unwrap_or_else(|e| panic!("{}: {e}", group.name));
    }
    let all: Vec<_> = ptxkit::ops::video::forms().iter().map(|f| f.isa_key()).collect();
    let missing: Vec<_> = all.iter().filter(|k| !seen.contains_key(*k)).collect();
    assert!(missing.is_empty(), "video forms no group runs: {missing:?}");
    let twice: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "video forms run twice: {twice:?}");
    assert_eq!(seen.len(), all.len());
}

fn video_scalar_arithmetic(gpu: Gpu) {
    run_group(&gpu, &GROUPS[0]);
}
fn video_shifts(gpu: Gpu) {
    run_group(&gpu, &GROUPS[1]);
}
fn video_vmad_vset(gpu: Gpu) {
    run_group(&gpu, &GROUPS[2]);
}
fn video_simd2(gpu: Gpu) {
    run_group(&gpu, &GROUPS[3]);
}
fn video_simd4(gpu: Gpu) {
    run_group(&gpu, &GROUPS[4]);
}

pub const TESTS: &[Test] = &[
    host!(video_groups_cover_every_form_and_assemble),
    gpu!(video_scalar_arithmetic),
    gpu!(video_shifts),
    gpu!(video_vmad_vset),
    gpu!(video_simd2),
    gpu!(video_simd4),
];
