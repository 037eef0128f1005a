//! Virtual registers typed by a data type, predicates negated with `!`, and guards.

use super::{DataType, Pred};
use crate::core::ir::RegRef;
use crate::core::Kernel;
use core::marker::PhantomData;

/// A virtual register holding a `T`. Copy it freely; it belongs to the kernel that made it.
pub struct Reg<T> {
    pub(crate) r: RegRef,
    pub(crate) owner: u32,
    _t: PhantomData<T>,
}

impl<T> Clone for Reg<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Reg<T> {}
impl<T> PartialEq for Reg<T> {
    fn eq(&self, o: &Self) -> bool {
        self.r == o.r && self.owner == o.owner
    }
}
impl<T: DataType> core::fmt::Debug for Reg<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(f, "Reg<{}>({}{})", T::NAME, self.r.class().prefix(), self.r.idx())
    }
}

impl<T: DataType> Reg<T> {
    pub(crate) fn new(r: RegRef, owner: u32) -> Self {
        Reg { r, owner, _t: PhantomData }
    }
    /// The same register seen as another type of the same register class (no instruction).
    pub fn bitcast<U: DataType>(self) -> Reg<U> {
        const { assert!(T::CLASS as u8 == U::CLASS as u8, "bitcast needs the same register class; use cvt or mov to change width") };
        Reg::new(self.r, self.owner)
    }
    /// Same register, another type; only where the class is known to match.
    pub(crate) fn retype<U: DataType>(self) -> Reg<U> {
        Reg::new(self.r, self.owner)
    }
    /// The register, after checking it belongs to `k`.
    pub(crate) fn checked(self, k: &mut Kernel) -> RegRef {
        k.check_owner(self.owner, || format!("register {}{}", self.r.class().prefix(), self.r.idx()));
        self.r
    }
}

impl Kernel {
    /// A fresh register of type `T`.
    pub fn reg<T: DataType>(&mut self) -> Reg<T> {
        let r = self.alloc(T::CLASS);
        Reg::new(r, self.id)
    }
}

/// `!p`: a negated predicate operand.
#[derive(Clone, Copy, Debug)]
pub struct NotPred(pub Reg<Pred>);

impl core::ops::Not for Reg<Pred> {
    type Output = NotPred;
    fn not(self) -> NotPred {
        NotPred(self)
    }
}
impl core::ops::Not for NotPred {
    type Output = Reg<Pred>;
    fn not(self) -> Reg<Pred> {
        self.0
    }
}

/// Something that can guard an instruction: `p` (`@p`) or `!p` (`@!p`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot guard an instruction",
    label = "a guard is a `Reg<Pred>` or its negation `!p`",
    note = "compare with `setp` to get a predicate: `let p = ptx!(k, \"setp.lt.u32\", a, b);`"
)]
pub trait IntoGuard {
    fn into_guard(self, k: &mut Kernel) -> (RegRef, bool);
}
#[diagnostic::do_not_recommend]
impl IntoGuard for Reg<Pred> {
    fn into_guard(self, k: &mut Kernel) -> (RegRef, bool) {
        (self.checked(k), false)
    }
}
#[diagnostic::do_not_recommend]
impl IntoGuard for NotPred {
    fn into_guard(self, k: &mut Kernel) -> (RegRef, bool) {
        (self.0.checked(k), true)
    }
}
