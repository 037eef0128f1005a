//! Structured control flow emitted as real PTX branches and loops, guarded scopes, and
//! moves into existing registers.

use crate::core::ir::{Guard, Stmt};
use crate::core::kernel::branch_target_count_ok;
use crate::core::{Kernel, Label};
use crate::ops::access::{MovOp, MovType};
use crate::ops::{Call, Operand};
use crate::ptx;
use crate::types::{DataType, IntoGuard, Pred, Reg, S32, S64, U32, U64};

/// Labels of a [`Kernel::loop_`].
#[derive(Clone, Copy, Debug)]
pub struct LoopLabels {
    /// Jump here to leave the loop.
    pub brk: Label,
    /// Jump here to start the next iteration.
    pub cont: Label,
}

impl Kernel {
    /// `bra target;`
    #[track_caller]
    pub fn bra(&mut self, target: Label) {
        ptx!(self, "bra", target);
    }

    /// `@p bra target;` (or `@!p` for a [`NotPred`](crate::NotPred)).
    #[track_caller]
    pub fn bra_if(&mut self, p: impl IntoGuard, target: Label) {
        ptx!(self, @p, "bra", target);
    }

    /// `match index { 0 => case(k, 0), .., n - 1 => case(k, n - 1), _ => {} }` as a jump
    /// table: a [`.branchtargets`](Kernel::branch_targets) list of the `n` cases and
    /// `@p brx.idx index, list` under `p = index < n` (PTX leaves an index past the list
    /// undefined), each case ending in a branch past the others. `n` is 1 to
    /// [`MAX_BRANCH_TARGETS`](crate::builder::MAX_BRANCH_TARGETS); another count is an error.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_90);
    /// m.kernel("pick", |k, (out,): (GlobalPtr<U32>,)| {
    ///     let t = ptx!(k, "mov.u32", sreg::TID_X);
    ///     let sel = ptx!(k, "rem.u32", t, 4u32);
    ///     let r = ptx!(k, "mov.u32", 0u32);
    ///     k.switch_(sel, 3, |k, case| k.assign(r, 10 * case as u32 + 1));
    ///     ptx!(k, "st.global.u32", out.at(t), r);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains(": .branchtargets $L__0, $L__1, $L__2;"));
    /// assert!(text.contains("brx.idx %r"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn switch_(&mut self, index: Reg<U32>, cases: usize, mut case: impl FnMut(&mut Kernel, usize)) {
        if !branch_target_count_ok(self, cases) {
            return;
        }
        let labels: Vec<Label> = (0..cases).map(|_| self.label()).collect();
        let list = self.branch_targets(&labels);
        let end = self.label();
        let inb = ptx!(self, "setp.lt.u32", index, cases as u32);
        ptx!(self, @inb, "brx.idx", index, list);
        self.bra(end);
        for (i, l) in labels.into_iter().enumerate() {
            self.place(l);
            case(self, i);
            if i + 1 < cases {
                self.bra(end);
            }
        }
        self.place(end);
    }

    /// `if p { then }`: a forward branch around the body.
    #[track_caller]
    pub fn if_(&mut self, p: impl IntoGuard, then: impl FnOnce(&mut Kernel)) {
        let end = self.label();
        ptx!(self, @!p, "bra", end);
        then(self);
        self.place(end);
    }

    /// `if p { then } else { els }`.
    #[track_caller]
    pub fn if_else(&mut self, p: impl IntoGuard, then: impl FnOnce(&mut Kernel), els: impl FnOnce(&mut Kernel)) {
        let (lelse, end) = (self.label(), self.label());
        ptx!(self, @!p, "bra", lelse);
        then(self);
        self.bra(end);
        self.place(lelse);
        els(self);
        self.place(end);
    }

    /// Runs `body` with every instruction it emits guarded by `p` (`@p`, or `@!p` for
    /// `!p`): the whole helper call takes effect only in threads where the predicate holds.
    /// An instruction in the scope that has a guard of its own (a branch of a loop, say)
    /// gets the conjunction of both; a nested scope, the conjunction of all.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// let mut m = Module::new(Target::SM_80);
    /// m.kernel("k", |k, (x, n): (GlobalPtr<U32>, Reg<U32>)| {
    ///     let i = k.global_thread_index_x();
    ///     let inb = ptx!(k, "setp.lt.u32", i, n);
    ///     let v = k.guarded(inb, |k| k.ld(x.at(i)));   // address arithmetic and load: @p
    ///     k.guarded(inb, |k| k.st(x.at(i), v));
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.lines().filter(|l| l.contains("ld.global.u32") || l.contains("st.global.u32")).all(|l| l.trim_start().starts_with("@%p")));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn guarded<R>(&mut self, p: impl IntoGuard, body: impl FnOnce(&mut Kernel) -> R) -> R {
        let g = p.into_guard(self);
        let scope: Guard = match self.scope_guard() {
            None => Some(g),
            Some(outer) => {
                let saved = self.set_scope_guard(None);
                let c = crate::ops::conjunction(self, outer, g);
                self.set_scope_guard(saved);
                Some((c.r, false))
            }
        };
        let saved = self.set_scope_guard(scope);
        let r = body(self);
        self.set_scope_guard(saved);
        r
    }

    /// A loop: `cond` runs at the head each iteration and returns the predicate to go on.
    #[track_caller]
    pub fn while_(&mut self, cond: impl FnMut(&mut Kernel) -> Reg<Pred>, body: impl FnMut(&mut Kernel)) {
        let (mut cond, mut body) = (cond, body);
        let (head, exit) = (self.label(), self.label());
        self.place(head);
        let p = cond(self);
        self.bra_if(!p, exit);
        body(self);
        self.bra(head);
        self.place(exit);
    }

    /// A counted loop `for i in (start..end).step_by(step)`, emitted as a real PTX loop
    /// (compare, body, increment, back edge). `i` is one register updated in place.
    #[track_caller]
    pub fn for_range<E: LoopBound>(&mut self, start: impl Operand<E::T>, end: E, step: u32, mut body: impl FnMut(&mut Kernel, Reg<E::T>)) {
        if step == 0 {
            self.invalid("for_range step must be positive".into());
            return;
        }
        let i: Reg<E::T> = self.reg();
        E::T::mov(self, i, start);
        let (head, exit) = (self.label(), self.label());
        self.place(head);
        let p = E::T::ge(self, i, end);
        self.bra_if(p, exit);
        body(self, i);
        E::T::add(self, i, step);
        self.bra(head);
        self.place(exit);
    }

    /// A loop with explicit exits: `body` gets the loop's `break` and `continue` labels.
    #[track_caller]
    pub fn loop_(&mut self, body: impl FnOnce(&mut Kernel, LoopLabels)) {
        let (head, exit) = (self.label(), self.label());
        self.place(head);
        body(self, LoopLabels { brk: exit, cont: head });
        self.bra(head);
        self.place(exit);
    }

    /// `ret;`
    #[track_caller]
    pub fn ret(&mut self) {
        ptx!(self, "ret");
    }

    /// The `ret` that closes a body, unless the body already ends with one: an unguarded
    /// `ret` followed by nothing but labels no branch names (`ret; $L__func_end0:`, as
    /// compilers end a body for their debug information). A second `ret` there would be
    /// unreachable, but ptxas without optimisation still assembles it.
    #[track_caller]
    pub(crate) fn close(&mut self) {
        let mut ends = false;
        let mut after = vec![];
        for s in self.stmts.iter() {
            match s {
                Stmt::Label(l) => after.push(*l),
                Stmt::Ins { form, guard, .. } => {
                    ends = guard.unpack().is_none() && self.forms[*form as usize].chain == "ret";
                    after.clear();
                }
                _ => {
                    ends = false;
                    after.clear();
                }
            }
        }
        if !ends || after.iter().any(|l| self.labels[*l as usize].used) {
            self.ret();
        }
    }

    /// `mov` into an existing register (for loop-carried values): `mov.u32` for a `u32`,
    /// `mov.b16` for an `f16`, `mov.u16` for a `u8` (8-bit values sit in 16-bit registers).
    #[track_caller]
    pub fn assign<T: MovType, V>(&mut self, dst: Reg<T>, src: V)
    where
        crate::ops::op::Mov: crate::ops::Select<(T::Mov,)>,
        MovOp<T>: Call<(V,), Out = Reg<T::Mov>>,
    {
        <MovOp<T> as Call<(V,)>>::call_into(self, dst.retype(), (src,));
    }
}

impl Kernel {
    /// A tied accumulator of `N` fresh registers, each set to zero bits (`mov.b32 r, 0`).
    #[track_caller]
    pub fn zeroed_acc<T: DataType, const N: usize>(&mut self) -> crate::ops::Acc<T, N> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        crate::ops::Acc::from(core::array::from_fn(|_| {
            let r: Reg<T> = self.reg();
            match T::CLASS {
                crate::types::RegClass::B16 => {
                    ptx!(self, "mov.b16" => r.retype::<crate::types::B16>(), 0u16);
                }
                crate::types::RegClass::B8 => {
                    let z = ptx!(self, "mov.u32", 0u32);
                    ptx!(self, "cvt.u8.u32" => r.retype::<crate::types::U8>(), z);
                }
                crate::types::RegClass::B32 => {
                    ptx!(self, "mov.b32" => r.retype::<crate::types::B32>(), 0u32);
                }
                crate::types::RegClass::B64 => {
                    ptx!(self, "mov.b64" => r.retype::<crate::types::B64>(), 0u64);
                }
                crate::types::RegClass::B128 => {
                    let z = ptx!(self, "mov.b64", 0u64);
                    ptx!(self, "mov.b128" as pack => r.retype::<crate::types::B128>(), [z, z]);
                }
                crate::types::RegClass::Pred => {
                    ptx!(self, "mov.pred" => r.retype::<Pred>(), false);
                }
            }
            r
        }))
    }
}

/// The end of a [`Kernel::for_range`]: a register or a constant; it fixes the index type.
pub trait LoopBound: Operand<Self::T> + Copy {
    type T: LoopIndex;
}
impl<T: LoopIndex> LoopBound for Reg<T>
where
    Reg<T>: Operand<T>,
{
    type T = T;
}
impl LoopBound for u32 {
    type T = U32;
}
impl LoopBound for i32 {
    type T = S32;
}
impl LoopBound for u64 {
    type T = U64;
}
impl LoopBound for i64 {
    type T = S64;
}

/// Integer types usable as [`Kernel::for_range`] indices.
pub trait LoopIndex: DataType {
    #[doc(hidden)]
    fn mov(k: &mut Kernel, i: Reg<Self>, v: impl Operand<Self>);
    #[doc(hidden)]
    fn ge(k: &mut Kernel, i: Reg<Self>, end: impl Operand<Self>) -> Reg<Pred>;
    #[doc(hidden)]
    fn add(k: &mut Kernel, i: Reg<Self>, step: u32);
}
macro_rules! loop_index {
    ($($t:ident $mov:literal $ge:literal $add:literal;)*) => {$(
        impl LoopIndex for $t {
            #[track_caller]
            fn mov(k: &mut Kernel, i: Reg<Self>, v: impl Operand<Self>) {
                ptx!(k, $mov => i, v);
            }
            #[track_caller]
            fn ge(k: &mut Kernel, i: Reg<Self>, end: impl Operand<Self>) -> Reg<Pred> {
                ptx!(k, $ge, i, end)
            }
            #[track_caller]
            fn add(k: &mut Kernel, i: Reg<Self>, step: u32) {
                ptx!(k, $add => i, i, step);
            }
        }
    )*};
}
loop_index! {
    U32 "mov.u32" "setp.ge.u32" "add.u32";
    S32 "mov.s32" "setp.ge.s32" "add.s32";
    U64 "mov.u64" "setp.ge.u64" "add.u64";
    S64 "mov.s64" "setp.ge.s64" "add.s64";
}
