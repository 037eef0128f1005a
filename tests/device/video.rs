//! The video instructions on the device: every form of the `video` table, reached through
//! its typed key (`Op<op::VaddSat, (S32, U32, S32, m::Sat)>`, the type a `ptx!` call of
//! `"vadd.s32.u32.s32.sat"` names), with byte, half-word and lane selectors and masks from
//! the operands' methods. One kernel per group evaluates every form of the group on each
//! thread's inputs (edge values and random words), into a poisoned output, and each result
//! is compared bit for bit with the model of `video_ref.rs`; a failure lists every form that
//! disagrees.

use super::video_ref::Spec;
use super::*;
use ptxkit::core::{FormDesc, Sel};
use ptxkit::ops::sel::Selector;
use ptxkit::ops::{m, op, v, Call, Form, IntoDst, Op};
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
    ($cx:ident, $key:ty, ($($m:ty),*), $var:ident, $a:expr, $b:expr $(, $c:expr)?) => {{
        let (a, b) = ($a, $b);
        let sels = [Sel::NONE, a.sel_of(), b.sel_of()];
        let d = <Op<$key, ($($m,)*), v::$var> as Call<_>>::call($cx.k, (a, b $(, $c)?));
        $cx.record(<$key as Form<($($m,)*), v::$var>>::DESC, sels, d.bitcast());
    }};
}

/// A form writing part of its destination (`as dsel`, `as mask`): `=> d.$part()`.
macro_rules! form_into {
    ($cx:ident, $key:ty, ($($m:ty),*), $var:ident, $D:ty, $part:ident, $a:expr, $b:expr, $c:expr) => {{
        let (a, b) = ($a, $b);
        let (asel, bsel) = (a.sel_of(), b.sel_of());
        let d = $cx.k.reg::<$D>();
        let dst = <Op<$key, ($($m,)*), v::$var> as Call<_>>::call_into($cx.k, IntoDst::into_dst(d.$part()), (a, b, $c));
        $cx.record(<$key as Form<($($m,)*), v::$var>>::DESC, [dst.sel(), asel, bsel], d.bitcast());
    }};
}

/// The keys of an opcode's forms by the chain's last part (`op::VaddSat` holds the
/// `vadd...sat` forms): those ending in b's type.
trait Last {
    type U32;
    type S32;
}
/// ... in `.sat` and `.add`.
trait SatAdd: Last {
    type Sat;
    type Add;
}
/// ... in `.min` and `.max` (the scalar secondary operations).
trait MinMax: SatAdd {
    type Min;
    type Max;
}
macro_rules! keys {
    ($($t:ident: $u:ident $s:ident $(, $sat:ident $add:ident $(, $min:ident $max:ident)?)?;)*) => {$(
        struct $t;
        impl Last for $t { type U32 = op::$u; type S32 = op::$s; }
        $(
            impl SatAdd for $t { type Sat = op::$sat; type Add = op::$add; }
            $( impl MinMax for $t { type Min = op::$min; type Max = op::$max; } )?
        )?
    )*};
}
keys! {
    Vadd: VaddU32 VaddS32, VaddSat VaddAdd, VaddMin VaddMax;
    Vsub: VsubU32 VsubS32, VsubSat VsubAdd, VsubMin VsubMax;
    Vabsdiff: VabsdiffU32 VabsdiffS32, VabsdiffSat VabsdiffAdd, VabsdiffMin VabsdiffMax;
    Vmin: VminU32 VminS32, VminSat VminAdd, VminMin VminMax;
    Vmax: VmaxU32 VmaxS32, VmaxSat VmaxAdd, VmaxMin VmaxMax;
    Vadd2: Vadd2U32 Vadd2S32, Vadd2Sat Vadd2Add;
    Vsub2: Vsub2U32 Vsub2S32, Vsub2Sat Vsub2Add;
    Vavrg2: Vavrg2U32 Vavrg2S32, Vavrg2Sat Vavrg2Add;
    Vabsdiff2: Vabsdiff2U32 Vabsdiff2S32, Vabsdiff2Sat Vabsdiff2Add;
    Vmin2: Vmin2U32 Vmin2S32, Vmin2Sat Vmin2Add;
    Vmax2: Vmax2U32 Vmax2S32, Vmax2Sat Vmax2Add;
    Vadd4: Vadd4U32 Vadd4S32, Vadd4Sat Vadd4Add;
    Vsub4: Vsub4U32 Vsub4S32, Vsub4Sat Vsub4Add;
    Vavrg4: Vavrg4U32 Vavrg4S32, Vavrg4Sat Vavrg4Add;
    Vabsdiff4: Vabsdiff4U32 Vabsdiff4S32, Vabsdiff4Sat Vabsdiff4Add;
    Vmin4: Vmin4U32 Vmin4S32, Vmin4Sat Vmin4Add;
    Vmax4: Vmax4U32 Vmax4S32, Vmax4Sat Vmax4Add;
    Vmad: VmadU32 VmadS32;
}
/// The keys of vshl and vshr.
trait ShiftKeys {
    type Clamp;
    type Wrap;
    type Add;
    type Min;
    type Max;
}
macro_rules! shift_keys {
    ($($t:ident: $c:ident $w:ident $add:ident $min:ident $max:ident;)*) => {$(
        struct $t;
        impl ShiftKeys for $t { type Clamp = op::$c; type Wrap = op::$w; type Add = op::$add; type Min = op::$min; type Max = op::$max; }
    )*};
}
shift_keys! {
    Vshl: VshlClamp VshlWrap VshlAdd VshlMin VshlMax;
    Vshr: VshrClamp VshrWrap VshrAdd VshrMin VshrMax;
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
        form!($cx, <$O as Last>::$B, ($D, $A, $B), Plain, a, b);
        form!($cx, <$O as SatAdd>::Sat, ($D, $A, $B, m::Sat), Plain, a, b);
        form!($cx, <$O as SatAdd>::Add, ($D, $A, $B, m::Add), Plain, a, b, $z);
        form!($cx, <$O as SatAdd>::Add, ($D, $A, $B, m::Sat, m::Add), Plain, a, b, $z);
        form!($cx, <$O as MinMax>::Min, ($D, $A, $B, m::Min), Plain, a, b, $z);
        form!($cx, <$O as MinMax>::Min, ($D, $A, $B, m::Sat, m::Min), Plain, a, b, $z);
        form!($cx, <$O as MinMax>::Max, ($D, $A, $B, m::Max), Plain, a, b, $z);
        form!($cx, <$O as MinMax>::Max, ($D, $A, $B, m::Sat, m::Max), Plain, a, b, $z);
        form_into!($cx, <$O as Last>::$B, ($D, $A, $B), Dsel, $D, $ds, a, b, $z);
        form_into!($cx, <$O as SatAdd>::Sat, ($D, $A, $B, m::Sat), Dsel, $D, $ds, a, b, $z);
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
        form!($cx, <$O as ShiftKeys>::$mode, ($D, $A, U32, m::$mode), Plain, $a, $b);
        form!($cx, <$O as ShiftKeys>::$mode, ($D, $A, U32, m::Sat, m::$mode), Plain, $a, $b);
        form!($cx, <$O as ShiftKeys>::Add, ($D, $A, U32, m::$mode, m::Add), Plain, $a, $b, $z);
        form!($cx, <$O as ShiftKeys>::Add, ($D, $A, U32, m::Sat, m::$mode, m::Add), Plain, $a, $b, $z);
        form!($cx, <$O as ShiftKeys>::Min, ($D, $A, U32, m::$mode, m::Min), Plain, $a, $b, $z);
        form!($cx, <$O as ShiftKeys>::Min, ($D, $A, U32, m::Sat, m::$mode, m::Min), Plain, $a, $b, $z);
        form!($cx, <$O as ShiftKeys>::Max, ($D, $A, U32, m::$mode, m::Max), Plain, $a, $b, $z);
        form!($cx, <$O as ShiftKeys>::Max, ($D, $A, U32, m::Sat, m::$mode, m::Max), Plain, $a, $b, $z);
        form_into!($cx, <$O as ShiftKeys>::$mode, ($D, $A, U32, m::$mode), Dsel, $D, $ds, $a, $b, $z);
        form_into!($cx, <$O as ShiftKeys>::$mode, ($D, $A, U32, m::Sat, m::$mode), Dsel, $D, $ds, $a, $b, $z);
    };
}

/// vmad: each scaling with and without `.sat`, plain and with each negation, and `.po`.
macro_rules! vmad {
    ($cx:ident, $x:ident, $y:ident, $z:ident; $($D:ident $A:ident $B:ident [$sa:expr] [$sb:expr];)*) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        vmad!(@neg $cx, $z, <Vmad as Last>::$B, ($D, $A, $B), a, b);
        vmad!(@neg $cx, $z, op::VmadSat, ($D, $A, $B, m::Sat), a, b);
        vmad!(@neg $cx, $z, op::VmadShr7, ($D, $A, $B, m::Shr7), a, b);
        vmad!(@neg $cx, $z, op::VmadShr15, ($D, $A, $B, m::Shr15), a, b);
        vmad!(@neg $cx, $z, op::VmadShr7, ($D, $A, $B, m::Sat, m::Shr7), a, b);
        vmad!(@neg $cx, $z, op::VmadShr15, ($D, $A, $B, m::Sat, m::Shr15), a, b);
        form!($cx, op::VmadPo, ($D, $A, $B, m::Po), Plain, a, b, $z);
        form!($cx, op::VmadSat, ($D, $A, $B, m::Po, m::Sat), Plain, a, b, $z);
        form!($cx, op::VmadShr7, ($D, $A, $B, m::Po, m::Shr7), Plain, a, b, $z);
        form!($cx, op::VmadShr15, ($D, $A, $B, m::Po, m::Shr15), Plain, a, b, $z);
        form!($cx, op::VmadShr7, ($D, $A, $B, m::Po, m::Sat, m::Shr7), Plain, a, b, $z);
        form!($cx, op::VmadShr15, ($D, $A, $B, m::Po, m::Sat, m::Shr15), Plain, a, b, $z);
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
        vset!(@cmp $cx, $z, $A, $B, a, b, $ds; VsetEq Eq, VsetNe Ne, VsetLt Lt, VsetLe Le, VsetGt Gt, VsetGe Ge);
    })*};
    (@cmp $cx:ident, $z:ident, $A:ident, $B:ident, $a:ident, $b:ident, $ds:ident; $($key:ident $cmp:ident),*) => {$(
        form!($cx, op::$key, ($A, $B, m::$cmp), Plain, $a, $b);
        form!($cx, op::VsetAdd, ($A, $B, m::$cmp, m::Add), Plain, $a, $b, $z);
        form!($cx, op::VsetMin, ($A, $B, m::$cmp, m::Min), Plain, $a, $b, $z);
        form!($cx, op::VsetMax, ($A, $B, m::$cmp, m::Max), Plain, $a, $b, $z);
        form_into!($cx, op::$key, ($A, $B, m::$cmp), Dsel, U32, $ds, $a, $b, $z);
    )*};
}

/// The SIMD arithmetic forms: plain, `.sat`, `.add`, each also with a mask.
macro_rules! simd {
    ($cx:ident, $x:ident, $y:ident, $z:ident; [$($O:ident)*]; $list:tt) => {$(
        simd!(@one $cx, $x, $y, $z, $O; $list);
    )*};
    (@one $cx:ident, $x:ident, $y:ident, $z:ident, $O:ident; [$($D:ident $A:ident $B:ident [$sa:expr] [$sb:expr] $mask:ident;)*]) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        form!($cx, <$O as Last>::$B, ($D, $A, $B), Plain, a, b, $z);
        form!($cx, <$O as SatAdd>::Sat, ($D, $A, $B, m::Sat), Plain, a, b, $z);
        form!($cx, <$O as SatAdd>::Add, ($D, $A, $B, m::Add), Plain, a, b, $z);
        form_into!($cx, <$O as Last>::$B, ($D, $A, $B), Mask, $D, $mask, a, b, $z);
        form_into!($cx, <$O as SatAdd>::Sat, ($D, $A, $B, m::Sat), Mask, $D, $mask, a, b, $z);
        form_into!($cx, <$O as SatAdd>::Add, ($D, $A, $B, m::Add), Mask, $D, $mask, a, b, $z);
    })*};
}

/// vset2, vset4: each comparison, plain and with `.add`, each also with a mask.
macro_rules! simd_set {
    ($cx:ident, $x:ident, $y:ident, $z:ident; $add:ident; $cmps:tt; [$($A:ident $B:ident [$sa:expr] [$sb:expr] $mask:ident;)*]) => {$({
        let (a, b) = (($sa)($x), ($sb)($y));
        simd_set!(@cmp $cx, $z, $add, $A, $B, a, b, $mask; $cmps);
    })*};
    (@cmp $cx:ident, $z:ident, $add:ident, $A:ident, $B:ident, $a:ident, $b:ident, $mask:ident; [$($key:ident $cmp:ident),*]) => {$(
        form!($cx, op::$key, ($A, $B, m::$cmp), Plain, $a, $b, $z);
        form!($cx, op::$add, ($A, $B, m::$cmp, m::Add), Plain, $a, $b, $z);
        form_into!($cx, op::$key, ($A, $B, m::$cmp), Mask, U32, $mask, $a, $b, $z);
        form_into!($cx, op::$add, ($A, $B, m::$cmp, m::Add), Mask, U32, $mask, $a, $b, $z);
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
    simd_set!(cx, x, y, z; Vset2Add; [Vset2Eq Eq, Vset2Ne Ne, Vset2Lt Lt, Vset2Le Le, Vset2Gt Gt, Vset2Ge Ge]; [
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
    simd_set!(cx, x, y, z; Vset4Add; [Vset4Eq Eq, Vset4Ne Ne, Vset4Lt Lt, Vset4Le Le, Vset4Gt Gt, Vset4Ge Ge]; [
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
    let all: Vec<_> = ptxkit::ops::video::FORMS.iter().map(|f| f.isa_key()).collect();
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
