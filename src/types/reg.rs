//! Virtual registers typed by a data type, predicates negated with `!`, and guards.

use super::{DataType, Pred};
use crate::core::ir::{RegRef, RegSpace};
use crate::core::names::{intern, sym_name};
use crate::core::{Kernel, RegClass};
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

    /// The register of type `T` named `name` (`%f1`), declared on its own line (`.reg .b32
    /// %f1;`) rather than numbered with the others: for code that reproduces a text with
    /// its register names. ptxas without optimisation (`-G`,
    /// [`Module::set_debug`](crate::Module::set_debug)) assigns hardware registers in an
    /// order that depends on the names, so the same instructions over other names assemble
    /// to other code. The same name gives the same register again; a name of another
    /// register class, a name that is no PTX identifier, or one of the builder's own names
    /// that the kernel also numbers (`%r3` where it has three `.b32` registers) is an error.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// m.set_debug(true);
    /// m.kernel("k", |k, (x,): (Reg<F32>,)| {
    ///     let f: Vec<Reg<F32>> = (0..3).map(|i| k.named_reg(&format!("%f{i}"))).collect();
    ///     ptx!(k, "add.f32" => f[1], x, x);
    ///     ptx!(k, "mul.f32" => f[2], f[1], x);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains("\t.reg .b32 %f2;\n"), "{text}");
    /// assert!(text.contains("mul.f32 %f2, %f1, %r1;"), "{text}");
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn named_reg<T: DataType>(&mut self, name: &str) -> Reg<T> {
        let r = RegRef::new(T::CLASS, RegSpace::Named, intern(name));
        if !self.named.contains(&r) {
            let mut chars = name.chars();
            let first = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%'));
            if !first || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$')) {
                self.invalid(format!("`{name}` is no register name"));
            } else if self.named.iter().any(|n| n.idx() == r.idx()) {
                self.invalid(format!("the register `{name}` named with two register classes"));
            }
            self.named.push(r);
        }
        Reg::new(r, self.id)
    }

    /// Reports a named register whose name is one the kernel's numbered registers have.
    pub(crate) fn check_named(&mut self) {
        let clash = self.named.iter().find_map(|r| {
            let name = sym_name(r.idx());
            RegClass::ALL.into_iter().find_map(|c| {
                let n: u32 = name.strip_prefix(c.prefix())?.parse().ok()?;
                let count = self.nregs[c as usize];
                (count > 0 && n <= count).then(|| name.to_string())
            })
        });
        if let Some(name) = clash {
            self.invalid(format!("the named register `{name}` is also one the builder numbers"));
        }
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
