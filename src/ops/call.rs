//! Emitting a form: operands lowered to the IR, destinations allocated or given, guards.

use super::sel::{In, SelectorSet};
use super::{Instr, LabelOp, TargetsOp};
use crate::core::ir::{Guard, Opnd};
use crate::core::{BranchTargets, DstKind, Kernel, Label, Sel};
use crate::types::{Accepts, DataType, IntoGuard, NotPred, Pred, Reg};

/// A value usable as an operand of kind `K`.
#[diagnostic::on_unimplemented(message = "`{Self}` is not a valid `{K}` operand", label = "PTX expects a `{K}` operand here")]
pub trait Operand<K> {
    fn lower(self, k: &mut Kernel) -> Opnd;
}

impl<I: Accepts<T>, T: DataType> Operand<I> for Reg<T> {
    #[inline]
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::Reg(self.checked(k))
    }
}
impl Operand<Pred> for NotPred {
    fn lower(self, k: &mut Kernel) -> Opnd {
        Opnd::NotPred(self.0.checked(k))
    }
}
impl Operand<Pred> for bool {
    fn lower(self, _: &mut Kernel) -> Opnd {
        Opnd::int(self as i64)
    }
}
impl Operand<LabelOp> for Label {
    fn lower(self, k: &mut Kernel) -> Opnd {
        k.use_label(self);
        Opnd::Label(self.id)
    }
}
impl Operand<TargetsOp> for BranchTargets {
    fn lower(self, k: &mut Kernel) -> Opnd {
        k.use_label(self.0);
        Opnd::Label(self.0.id)
    }
}

/// Braced vectors: `[a, b, c, d]` for a `.v4` operand, a run in the operand arena.
impl<K, X: Operand<K>, const N: usize> Operand<super::Vector<K, N>> for [X; N] {
    fn lower(self, k: &mut Kernel) -> Opnd {
        let mut ops = [Opnd::Sink; N];
        for (o, x) in ops.iter_mut().zip(self) {
            *o = x.lower(k);
        }
        let (start, len) = k.push_run(&ops);
        Opnd::Vec { start, len }
    }
}

/// Braced vectors of mixed operands: a tuple, `(0u32, hi)` for `{0, %r1}` (an immediate and a
/// register; an array takes operands of one Rust type).
macro_rules! vector_tuples {
    ($($n:literal: ($($a:ident)*);)*) => {$(
        #[allow(non_snake_case)]
        impl<K, $($a: Operand<K>),*> Operand<super::Vector<K, $n>> for ($($a,)*) {
            fn lower(self, k: &mut Kernel) -> Opnd {
                let ($($a,)*) = self;
                let ops = [$($a.lower(k)),*];
                let (start, len) = k.push_run(&ops);
                Opnd::Vec { start, len }
            }
        }
    )*};
}
vector_tuples! {
    2: (A B);
    4: (A B C D);
}

/// A destination: lowered to its operands (a register, a braced run, ...).
pub trait Dst: Sized {
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>);
}

/// A destination a call can allocate (every destination but a tied accumulator and a
/// register with a part selector).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a destination the call cannot make: this PTX form needs it passed",
    label = "pass the destination with `=> dst`",
    note = "write `ptx!(k, \"...\" => dst, operands...)`: a tied accumulator from `k.zeroed_acc()` or `Acc::from(regs)`, or a register with its part selector, `d.h1()`"
)]
pub trait Alloc: Dst {
    fn alloc(k: &mut Kernel) -> Self;
}

impl Dst for () {
    fn lower_dst(&self, _: &mut Kernel, _: &mut Vec<Opnd>) {}
}
#[diagnostic::do_not_recommend]
impl Alloc for () {
    fn alloc(_: &mut Kernel) -> Self {}
}
impl<T: DataType> Dst for Reg<T> {
    #[inline]
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>) {
        out.push(Opnd::Reg(self.checked(k)));
    }
}
#[diagnostic::do_not_recommend]
impl<T: DataType> Alloc for Reg<T> {
    #[inline]
    fn alloc(k: &mut Kernel) -> Self {
        k.reg()
    }
}
impl<A: Dst, B: Dst> Dst for (A, B) {
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>) {
        self.0.lower_dst(k, out);
        self.1.lower_dst(k, out);
    }
}
#[diagnostic::do_not_recommend]
impl<A: Alloc, B: Alloc> Alloc for (A, B) {
    fn alloc(k: &mut Kernel) -> Self {
        (A::alloc(k), B::alloc(k))
    }
}
impl<T: DataType, const N: usize> Dst for [Reg<T>; N] {
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>) {
        out.push(run(k, self));
    }
}
#[diagnostic::do_not_recommend]
impl<T: DataType, const N: usize> Alloc for [Reg<T>; N] {
    fn alloc(k: &mut Kernel) -> Self {
        core::array::from_fn(|_| k.reg())
    }
}

/// A destination that stands where a form writes `Out`: `Out` itself, or a braced vector some
/// of whose elements are dropped, `[Some(a), None]` (`{%r1, _}`) for `[Reg<T>; N]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a destination of this form, which writes `{Out}`",
    label = "pass a destination of the form's type"
)]
pub trait DstFor<Out>: Dst {}
#[diagnostic::do_not_recommend]
impl<D: Dst> DstFor<D> for D {}
#[diagnostic::do_not_recommend]
impl<T: DataType, const N: usize> DstFor<[Reg<T>; N]> for [Option<Reg<T>>; N] {}

/// What `ptx!` takes for the destination of `ld`, `ldu` and `cvt`: one that stands for the
/// form's ([`DstFor`]), or a register wider than the form's type
/// ([`Wide`](crate::regs::Wide)); for `ld` and `ldu` (`B` = [`Braceable`](super::Braceable))
/// also either in braces ([`Braced`](crate::regs::Braced)).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a destination of this form, which writes `{Out}`",
    label = "pass a destination of the form's type, or a wider register (`r.wide()`)"
)]
pub trait WideDst<Out, B = super::Bare> {
    type Dst: DstFor<Out>;
    fn into_dst(self) -> Self::Dst;
}
#[diagnostic::do_not_recommend]
impl<Out, B, D: DstFor<Out>> WideDst<Out, B> for D {
    type Dst = D;
    fn into_dst(self) -> D {
        self
    }
}

/// A braced vector destination with dropped elements: `[Some(lo), None]` is `{%r1, _}` (PTX
/// takes `_` for an element an instruction need not write, as in `mov.b64 {%r1, _}, %rd1;`,
/// but not for all of them).
///
/// ```
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("k", |k, (x,): (Reg<B64>,)| {
///     let hi = k.reg::<B32>();
///     ptx!(k, "mov.b64" as unpack => [None, Some(hi)], x);
///     // And back, with an immediate low half: a vector source of mixed operands is a tuple.
///     let y: Reg<B64> = ptx!(k, "mov.b64" as pack, (0u32, hi));
///     let _ = y;
/// })?;
/// let text = m.to_ptx()?;
/// assert!(text.contains("mov.b64 {_, %r1}, %rd1;"), "{text}");
/// assert!(text.contains("mov.b64 %rd2, {0, %r1};"), "{text}");
/// # Ok::<(), ptxkit::Error>(())
/// ```
impl<T: DataType, const N: usize> Dst for [Option<Reg<T>>; N] {
    #[track_caller]
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>) {
        if self.iter().all(Option::is_none) {
            k.invalid("a vector destination that drops every element".into());
        }
        let mut ops = k.take_scratch();
        for r in self {
            let o = match r {
                Some(r) => Opnd::Reg(r.checked(k)),
                None => Opnd::Sink,
            };
            ops.push(o);
        }
        let (start, len) = k.push_run(&ops);
        k.put_scratch(ops);
        out.push(Opnd::Vec { start, len });
    }
}

/// The registers as a braced run in the operand arena.
fn run<T: DataType>(k: &mut Kernel, regs: &[Reg<T>]) -> Opnd {
    let mut ops = k.take_scratch();
    ops.extend(regs.iter().map(|r| Opnd::Reg(r.checked(k))));
    let (start, len) = k.push_run(&ops);
    k.put_scratch(ops);
    Opnd::Vec { start, len }
}

/// A tied accumulator: `N` registers of `T` that a form (wgmma) reads and writes in place.
/// A call cannot allocate one, so it must be passed with `=> acc`; chaining k-steps into the
/// same accumulator needs no copies.
#[derive(Clone, Copy, Debug)]
pub struct Acc<T: DataType, const N: usize>(pub [Reg<T>; N]);

impl<T: DataType, const N: usize> From<[Reg<T>; N]> for Acc<T, N> {
    fn from(r: [Reg<T>; N]) -> Self {
        Acc(r)
    }
}
impl<T: DataType, const N: usize> core::ops::Deref for Acc<T, N> {
    type Target = [Reg<T>; N];
    fn deref(&self) -> &[Reg<T>; N] {
        &self.0
    }
}
impl<T: DataType, const N: usize> Dst for Acc<T, N> {
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>) {
        out.push(run(k, &self.0));
    }
}

/// A register of `T` and a part selector from the set `S`: the destination of a form that
/// writes some lanes (`vadd ... as dsel`, `vadd2 ... as mask`), made from `d.h1()`,
/// `d.b31()`, ... by `ptx!(k, "..." as dsel => d.h1(), ..)`.
#[derive(Clone, Copy, Debug)]
pub struct PartDst<T: DataType, S> {
    pub reg: Reg<T>,
    sel: Sel,
    _s: core::marker::PhantomData<S>,
}
impl<T: DataType, S: SelectorSet> PartDst<T, S> {
    /// The register with the selector `P` of the set.
    pub fn new<P: In<S>>(reg: Reg<T>, _: P) -> Self {
        PartDst { reg, sel: P::SEL, _s: core::marker::PhantomData }
    }
    /// The selector.
    pub fn sel(&self) -> Sel {
        self.sel
    }
}
impl<T: DataType, S> Dst for PartDst<T, S> {
    fn lower_dst(&self, k: &mut Kernel, out: &mut Vec<Opnd>) {
        out.push(Opnd::Part { reg: self.reg.checked(k), sel: self.sel, neg: false });
    }
}

/// What `ptx!(k, "..." => d, ..)` takes for a destination with a part selector: a register
/// with a selector of the form's set (`d.h1()`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a destination of this form, which writes `{D}`",
    label = "pass the register with a part selector of the form's set",
    note = "`as dsel` takes d.b0()..d.b3(), d.h0(), d.h1(); a 2-lane `as mask` d.h0(), d.h1(), d.h10(); a 4-lane `as mask` d.b0() to d.b3210()"
)]
pub trait IntoDst<D> {
    fn into_dst(self) -> D;
}
impl<D: Dst> IntoDst<D> for D {
    fn into_dst(self) -> D {
        self
    }
}

/// A tuple of operands matching a tuple of kinds.
#[diagnostic::on_unimplemented(
    message = "operands `{Self}` do not fit this PTX form, which takes `{K}`",
    label = "wrong number or kinds of operands"
)]
pub trait Lower<K> {
    fn lower_into(self, k: &mut Kernel, out: &mut Vec<Opnd>);
}

macro_rules! lower_tuples {
    ($(($($a:ident $k:ident),*);)*) => {$(
        #[allow(non_snake_case, unused_variables)]
        impl<$($a: Operand<$k>, $k,)*> Lower<($($k,)*)> for ($($a,)*) {
            fn lower_into(self, k: &mut Kernel, out: &mut Vec<Opnd>) {
                let ($($a,)*) = self;
                $( out.push($a.lower(k)); )*
            }
        }
    )*};
}
lower_tuples! {
    ();
    (A KA);
    (A KA, B KB);
    (A KA, B KB, C KC);
    (A KA, B KB, C KC, D KD);
    (A KA, B KB, C KC, D KD, E KE);
    (A KA, B KB, C KC, D KD, E KE, F KF);
    (A KA, B KB, C KC, D KD, E KE, F KF, G KG);
    (A KA, B KB, C KC, D KD, E KE, F KF, G KG, H KH);
    (A KA, B KB, C KC, D KD, E KE, F KF, G KG, H KH, I KI);
    (A KA, B KB, C KC, D KD, E KE, F KF, G KG, H KH, I KI, J KJ);
    (A KA, B KB, C KC, D KD, E KE, F KF, G KG, H KH, I KI, J KJ, L KL);
    (A KA, B KB, C KC, D KD, E KE, F KF, G KG, H KH, I KI, J KJ, L KL, N KN);
}

/// Emitting a form. `guard` is the instruction's own `@p`; inside a `Kernel::guarded`
/// scope the scope's guard is added to it.
pub trait Call<Args> {
    type Out: Dst;
    /// Emits into the destination `dst` under `guard`.
    fn call_into_if(k: &mut Kernel, guard: Guard, dst: Self::Out, args: Args) -> Self::Out;

    /// Emits into a fresh destination.
    #[track_caller]
    fn call(k: &mut Kernel, args: Args) -> Self::Out
    where
        Self::Out: Alloc,
    {
        Self::call_if(k, None, args)
    }
    /// Emits into a fresh destination under `guard`.
    #[track_caller]
    fn call_if(k: &mut Kernel, guard: Guard, args: Args) -> Self::Out
    where
        Self::Out: Alloc,
    {
        let d = <Self::Out as Alloc>::alloc(k);
        Self::call_into_if(k, guard, d, args)
    }
    /// Writes into an existing destination instead of allocating one.
    #[track_caller]
    fn call_into(k: &mut Kernel, dst: Self::Out, args: Args) -> Self::Out {
        Self::call_into_if(k, None, dst, args)
    }
}

impl<F, Args> Call<Args> for F
where
    F: Instr,
    Args: Lower<F::Src>,
{
    type Out = F::Out;
    #[inline]
    #[track_caller]
    fn call_into_if(k: &mut Kernel, guard: Guard, dst: F::Out, args: Args) -> F::Out {
        emit::<F>(k, guard, dst, |k, out| args.lower_into(k, out))
    }
}

/// Emits the form `F` into `dst` under `guard`, its operands lowered by `lower` after the
/// destination: what [`Call`] does with a tuple of operands, and what `ptx!` writes, one
/// operand at a time (so that a wrong one is reported where it is written).
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn emit<F: Instr>(k: &mut Kernel, guard: Guard, dst: F::Out, lower: impl FnOnce(&mut Kernel, &mut Vec<Opnd>)) -> F::Out {
    emit_into::<F, F::Out>(k, guard, dst, lower)
}

/// [`emit`] into a destination that stands for the form's ([`DstFor`]): what `ptx!(k, "..."
/// => dst, ..)` writes.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn emit_into<F: Instr, D: DstFor<F::Out>>(k: &mut Kernel, guard: Guard, dst: D, lower: impl FnOnce(&mut Kernel, &mut Vec<Opnd>)) -> D {
    let mut buf = k.take_scratch();
    // With line info, what lowering the operands emits (address arithmetic) takes this
    // instruction's location.
    let set = k.line_info && k.loc_override.is_none();
    if set {
        k.loc_override = Some(std::panic::Location::caller());
    }
    dst.lower_dst(k, &mut buf);
    group_dst(F::DESC.dst, &mut buf);
    // ptxas takes special registers as operands of `mov` and `cvt` only: elsewhere the
    // operand reads them into a register first.
    let c = F::DESC.chain.as_bytes();
    let direct = std::mem::replace(&mut k.sreg_direct, c.starts_with(b"mov.") || c.starts_with(b"cvt."));
    lower(k, &mut buf);
    k.sreg_direct = direct;
    if set {
        k.loc_override = None;
    }
    let guard = in_scope(k, guard);
    k.push_ins(F::DESC, guard, &mut buf);
    k.put_scratch(buf);
    dst
}

/// [`emit`] into a fresh destination.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn emit_new<F: Instr>(k: &mut Kernel, guard: Guard, lower: impl FnOnce(&mut Kernel, &mut Vec<Opnd>)) -> F::Out
where
    F::Out: Alloc,
{
    let d = <F::Out as Alloc>::alloc(k);
    emit::<F>(k, guard, d, lower)
}

/// The destination operands as the instruction writes them: a sink, a grouped pair `d|p`,
/// `_|p`, a vector and a predicate.
fn group_dst(kind: DstKind, buf: &mut Vec<Opnd>) {
    match kind {
        DstKind::Sink => buf.push(Opnd::Sink),
        DstKind::Pair(..) => {
            if let [Opnd::Reg(a), Opnd::Reg(b)] = buf[..] {
                buf.clear();
                buf.push(Opnd::Pair(a, b));
            }
        }
        DstKind::SinkPair(..) => {
            if let [Opnd::Reg(p)] = buf[..] {
                buf[0] = Opnd::SinkPair(p);
            }
        }
        DstKind::VecPred(..) => {
            if let [Opnd::Vec { start, len }, Opnd::Reg(pred)] = buf[..] {
                buf.clear();
                buf.push(Opnd::VecPred { start, len, pred });
            }
        }
        _ => {}
    }
}

/// The guard `@p` or `@!p` (`negate` flips it) of a `ptx!(k, @p, ...)` call (what the
/// macro's expansion calls).
#[doc(hidden)]
pub fn guard_of<P: IntoGuard>(k: &mut Kernel, p: P, negate: bool) -> Guard {
    let (r, n) = p.into_guard(k);
    Some((r, n ^ negate))
}

/// The guard an instruction gets: its own, the enclosing scope's, or, when it has both,
/// their conjunction in a fresh predicate (computed unguarded, so it is defined in every
/// thread).
pub(crate) fn in_scope(k: &mut Kernel, own: Guard) -> Guard {
    match (k.scope_guard(), own) {
        (None, g) | (g, None) => g,
        (Some(s), Some(o)) => {
            let saved = k.set_scope_guard(None);
            let c = conjunction(k, s, o);
            k.set_scope_guard(saved);
            Some((c.r, false))
        }
    }
}

/// `a && b` of two guards, as a predicate register.
pub(crate) fn conjunction(k: &mut Kernel, a: (crate::core::ir::RegRef, bool), b: (crate::core::ir::RegRef, bool)) -> Reg<Pred> {
    let id = k.id;
    let positive = |k: &mut Kernel, (r, neg): (crate::core::ir::RegRef, bool)| -> Reg<Pred> {
        let p = Reg::<Pred>::new(r, id);
        if neg {
            crate::ptx!(k, "not.pred", p)
        } else {
            p
        }
    };
    let (pa, pb) = (positive(k, a), positive(k, b));
    crate::ptx!(k, "and.pred", pa, pb)
}
