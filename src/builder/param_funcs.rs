//! Device functions as compilers write them: parameters and results are `.param` variables
//! that the function's body loads and stores itself; a caller declares a `.param` variable
//! per argument and result (in a `{ }` block around the call), stores the arguments, calls
//! with the variables' names and loads the results. Functions may be declared before they
//! are defined (a prototype) or defined in another module (`.extern`), and called through
//! their address with a `.callprototype`.
//!
//! [`Module::func`] and [`Kernel::call`] do all of this for a function of registers; this
//! is the level below, where the `.param` variables are the values.

use super::params::ScalarParam;
use super::ParamBytes;
use crate::core::ir::{CallStmt, Callee, Opnd};
use crate::core::kernel::BodyKind;
use crate::core::module::Item;
use crate::core::names::intern;
use crate::core::{check_ident, Error, Kernel, Module};
use crate::regs::{ParamPtr, Ptr, SymAddr};
use crate::types::{DataType, Reg, U64};
use std::sync::Arc;

/// Where a device function is seen from: only its own module (no keyword), every module
/// linked with it (`.visible`), every module, one definition winning (`.weak`), or defined
/// in another module and only declared in this one (`.extern`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Linkage {
    #[default]
    Internal,
    Visible,
    Weak,
    Extern,
}

impl Linkage {
    /// The keyword with its trailing space, or nothing.
    fn prefix(self) -> &'static str {
        match self {
            Linkage::Internal => "",
            Linkage::Visible => ".visible ",
            Linkage::Weak => ".weak ",
            Linkage::Extern => ".extern ",
        }
    }
}

/// A `.param` variable: a scalar ([`ParamPtr<T>`], declared `.param .T name`) or a block of
/// bytes ([`ParamBytes<N, A>`], `.param .align A .b8 name[N]`).
pub trait ParamVar: Copy {
    /// The declaration of a variable called `name`, without the `;`.
    #[doc(hidden)]
    fn decl(name: &str) -> String;
    #[doc(hidden)]
    fn at(sym: u32, owner: u32) -> Self;
    /// The variable's symbol and owner, if it is a variable's address with no offset.
    #[doc(hidden)]
    fn sym(&self) -> Option<(u32, u32)>;
}

impl<T: ScalarParam> ParamVar for ParamPtr<T> {
    fn decl(name: &str) -> String {
        format!(".param .{} {name}", <T::Mem as DataType>::NAME)
    }
    fn at(sym: u32, owner: u32) -> Self {
        Ptr::from_sym(sym, owner)
    }
    fn sym(&self) -> Option<(u32, u32)> {
        self.sym_base()
    }
}

impl<const N: usize, const A: usize> ParamVar for ParamBytes<N, A> {
    fn decl(name: &str) -> String {
        <Self as super::KernelParam>::decl(name)
    }
    fn at(sym: u32, owner: u32) -> Self {
        ParamBytes::from_sym(sym, owner)
    }
    fn sym(&self) -> Option<(u32, u32)> {
        self.ptr::<crate::types::B8>().sym_base()
    }
}

/// A tuple of [`ParamVar`]s: a device function's parameters, or its results.
pub trait ParamVars: Copy {
    /// The declarations, the `i`-th called `name(i)`.
    #[doc(hidden)]
    fn decls(name: &dyn Fn(usize) -> String) -> Vec<String>;
    #[doc(hidden)]
    fn at(syms: &[u32], owner: u32) -> Self;
    #[doc(hidden)]
    fn syms(&self) -> Vec<Option<(u32, u32)>>;
}

macro_rules! param_vars {
    ($(($($t:ident $i:tt),*);)*) => {$(
        #[allow(unused_variables, clippy::unused_unit)]
        impl<$($t: ParamVar),*> ParamVars for ($($t,)*) {
            fn decls(name: &dyn Fn(usize) -> String) -> Vec<String> {
                vec![$($t::decl(&name($i))),*]
            }
            fn at(syms: &[u32], owner: u32) -> Self {
                ($($t::at(syms[$i], owner),)*)
            }
            fn syms(&self) -> Vec<Option<(u32, u32)>> {
                vec![$(self.$i.sym()),*]
            }
        }
    )*};
}
param_vars! {
    ();
    (A 0);
    (A 0, B 1);
    (A 0, B 1, C 2);
    (A 0, B 1, C 2, D 3);
    (A 0, B 1, C 2, D 3, E 4);
    (A 0, B 1, C 2, D 3, E 4, F 5);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
}

/// A device function whose parameters `P` and results `R` are `.param` variables
/// ([`Module::param_func`], [`Module::declare_func`]), called with [`Kernel::call_func`].
#[derive(Clone, Debug)]
pub struct ParamFunc<P, R> {
    name: Arc<str>,
    module: u32,
    linkage: Linkage,
    defined: bool,
    _p: std::marker::PhantomData<fn(P) -> R>,
}

impl<P, R> ParamFunc<P, R> {
    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The function's address as an operand (`mov.u64 %rd1, f;`), to call it through
    /// ([`Kernel::call_func_indirect`]).
    pub fn addr(&self) -> SymAddr<U64> {
        SymAddr::new(intern(&self.name), self.module)
    }
}

/// A `.callprototype` declared in a body ([`Kernel::call_prototype`]): the parameter list of
/// the functions [`Kernel::call_func_indirect`] calls through an address.
#[derive(Clone, Debug)]
pub struct CallPrototype<P, R> {
    name: Arc<str>,
    owner: u32,
    _p: std::marker::PhantomData<fn(P) -> R>,
}

/// The names of a function's parameters and results, as nvcc writes them.
fn param_name(func: &str) -> impl Fn(usize) -> String + '_ {
    move |i| format!("{func}_param_{i}")
}
fn retval_name(i: usize) -> String {
    format!("func_retval{i}")
}

impl Module {
    /// Builds the device function `name` with [`Linkage`] `linkage` (not `Extern`). The body
    /// receives its parameters `P` and results `R` as `.param` variables (named
    /// `name_param_i` and `func_retvali`), loads the one and stores the other itself, and may
    /// return early with `ret`. A function [declared](Self::declare_func) before is defined
    /// by its handle's name with the same types.
    ///
    /// ```
    /// use ptxkit::builder::{Linkage, ParamBytes};
    /// use ptxkit::prelude::*;
    /// use ptxkit::regs::ParamPtr;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// // float dot2(float2 v) { return v.x * v.y; }
    /// let dot2 = m.param_func("dot2", Linkage::Visible, |k, (v,): (ParamBytes<8, 8>,), (ret,): (ParamPtr<F32>,)| {
    ///     let x = ptx!(k, "ld.param.f32", v.ptr::<F32>());
    ///     let y = ptx!(k, "ld.param.f32", v.ptr::<F32>().offset(1));
    ///     let p = ptx!(k, "mul.rn.f32", x, y);
    ///     ptx!(k, "st.param.f32", ret, p);
    /// })?;
    /// m.kernel("k", |k, (out,): (GlobalPtr<F32>,)| {
    ///     let r = k.block(|k| {
    ///         let arg: ParamBytes<8, 8> = k.param_var("param0");
    ///         let ret: ParamPtr<F32> = k.param_var("retval0");
    ///         ptx!(k, "st.param.f32", arg.ptr::<F32>(), 2.0f32);
    ///         ptx!(k, "st.param.f32", arg.ptr::<F32>().offset(1), 3.0f32);
    ///         k.call_func_uni(&dot2, (ret,), (arg,));
    ///         ptx!(k, "ld.param.f32", ret)
    ///     });
    ///     ptx!(k, "st.global.f32", out.offset(0), r);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains(".visible .func (.param .f32 func_retval0) dot2(.param .align 8 .b8 dot2_param_0[8])"), "{text}");
    /// assert!(text.contains("\t.param .align 8 .b8 param0[8];\n"), "{text}");
    /// assert!(text.contains("call.uni (retval0), dot2, (param0);"), "{text}");
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn param_func<P: ParamVars, R: ParamVars>(
        &mut self,
        name: &str,
        linkage: Linkage,
        body: impl FnOnce(&mut Kernel, P, R),
    ) -> Result<ParamFunc<P, R>, Error> {
        self.define_param_func(name, linkage, body)
    }

    /// Defines the function `f` [declared](Self::declare_func) before (with a linkage other
    /// than `Extern`, which the definition keeps: ptxas refuses a definition whose linkage
    /// differs from its declaration's), as [`param_func`](Self::param_func) does.
    #[track_caller]
    pub fn define_func<P: ParamVars, R: ParamVars>(
        &mut self,
        f: &ParamFunc<P, R>,
        body: impl FnOnce(&mut Kernel, P, R),
    ) -> Result<ParamFunc<P, R>, Error> {
        if f.module != self.id || f.linkage == Linkage::Extern || f.defined || self.body(&f.name).is_some() {
            return Err(Error::InvalidArgument {
                kernel: f.name.to_string(),
                what: "only a function declared in this module, not `.extern` and not yet defined, can be defined".into(),
            });
        }
        // The declaration holds the name; the definition takes it over.
        self.unclaim(&f.name);
        self.define_param_func(&f.name, f.linkage, body)
    }

    #[track_caller]
    fn define_param_func<P: ParamVars, R: ParamVars>(
        &mut self,
        name: &str,
        linkage: Linkage,
        body: impl FnOnce(&mut Kernel, P, R),
    ) -> Result<ParamFunc<P, R>, Error> {
        if linkage == Linkage::Extern {
            return Err(Error::InvalidArgument {
                kernel: name.to_string(),
                what: "an `.extern` function is declared (Module::declare_func), not defined".into(),
            });
        }
        self.add_body(name, |m| {
            let mut k = m.new_body(name, BodyKind::Func);
            k.linkage = linkage.prefix();
            k.params = P::decls(&param_name(name));
            k.func_ret_params = R::decls(&retval_name);
            let psyms: Vec<u32> = (0..k.params.len()).map(|i| intern(&param_name(name)(i))).collect();
            let rsyms: Vec<u32> = (0..k.func_ret_params.len()).map(|i| intern(&retval_name(i))).collect();
            let (params, rets) = (P::at(&psyms, k.id), R::at(&rsyms, k.id));
            body(&mut k, params, rets);
            k.close();
            k.check_target(m.target);
            k.finish()?;
            Ok((k, ()))
        })?;
        Ok(ParamFunc { name: name.into(), module: self.id, linkage, defined: true, _p: std::marker::PhantomData })
    }

    /// Declares the device function `name` without its body: a prototype (`.func (.param
    /// .b32 func_retval0) f(.param .b32 f_param_0);`) for a function that this module
    /// defines later ([`define_func`](Self::define_func)), or with [`Linkage::Extern`], one
    /// that another module defines (`vprintf`, `malloc`, a function of a library linked
    /// with `-rdc`). A call may name it from here on.
    ///
    /// ```
    /// use ptxkit::builder::Linkage;
    /// use ptxkit::prelude::*;
    /// use ptxkit::regs::ParamPtr;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// let free = m.declare_func::<(ParamPtr<B64>,), ()>("free", Linkage::Extern)?;
    /// let twice = m.declare_func::<(ParamPtr<B32>,), (ParamPtr<B32>,)>("twice", Linkage::Internal)?;
    /// m.kernel("k", |k, (p,): (Reg<U64>,)| {
    ///     k.block(|k| {
    ///         let a: ParamPtr<B64> = k.param_var("param0");
    ///         ptx!(k, "st.param.b64", a, p);
    ///         k.call_func(&free, (), (a,));
    ///     });
    /// })?;
    /// m.define_func(&twice, |k, (x,), (r,)| {
    ///     let v = ptx!(k, "ld.param.b32", x);
    ///     let d = ptx!(k, "add.s32", v.bitcast::<S32>(), v.bitcast::<S32>());
    ///     ptx!(k, "st.param.b32", r, d.bitcast::<B32>());
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains(".extern .func free(.param .b64 free_param_0);"), "{text}");
    /// assert!(text.contains(".func (.param .b32 func_retval0) twice(.param .b32 twice_param_0);"), "{text}");
    /// assert!(text.contains("call free, (param0);"), "{text}");
    /// assert!(m.define_func(&twice, |_, _, _| {}).is_err());
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn declare_func<P: ParamVars, R: ParamVars>(&mut self, name: &str, linkage: Linkage) -> Result<ParamFunc<P, R>, Error> {
        self.claim(name)?;
        let rets = R::decls(&retval_name);
        let rets = if rets.is_empty() { String::new() } else { format!("({}) ", rets.join(", ")) };
        let params = P::decls(&param_name(name)).join(", ");
        self.items.push(Item::Var(format!("{}.func {rets}{name}({params});", linkage.prefix())));
        Ok(ParamFunc { name: name.into(), module: self.id, linkage, defined: false, _p: std::marker::PhantomData })
    }
}

impl Kernel {
    /// A `{ }` block of PTX around what `body` emits: the `.param` variables of a call
    /// ([`param_var`](Self::param_var)) declared in it are its own, so each call's block may
    /// name them alike.
    pub fn block<R>(&mut self, body: impl FnOnce(&mut Kernel) -> R) -> R {
        self.push_text("\t{".into());
        self.blocks.push(Vec::new());
        let r = body(self);
        self.blocks.pop();
        self.push_text("\t}".into());
        r
    }

    /// Declares the `.param` variable `name` here (a call's argument or result: `.param .b32
    /// param0;`), seen until the enclosing [`block`](Self::block) ends. A name declared twice
    /// in one block is an error when the body is built.
    #[track_caller]
    pub fn param_var<V: ParamVar>(&mut self, name: &str) -> V {
        if let Err(e) = check_ident(name) {
            self.error(e);
        } else if self.blocks.last().is_some_and(|b| b.iter().any(|n| n == name)) || self.local_names.iter().any(|n| n == name) {
            self.error(Error::DuplicateSymbol { name: name.to_string() });
        } else {
            let at = self.blocks.len() - 1;
            self.blocks[at].push(name.to_string());
        }
        self.push_text(format!("\t{};", V::decl(name)));
        V::at(intern(name), self.id)
    }

    /// `call (rets), f, (args);`: calls `f` with the `.param` variables `args` (stored before)
    /// and `rets` (loaded after), declared in this body with [`param_var`](Self::param_var).
    #[track_caller]
    pub fn call_func<P: ParamVars, R: ParamVars>(&mut self, f: &ParamFunc<P, R>, rets: R, args: P) {
        self.call_params(f, rets, args, false)
    }

    /// `call.uni`: as [`call_func`](Self::call_func), for a call every active thread of the
    /// warp makes.
    #[track_caller]
    pub fn call_func_uni<P: ParamVars, R: ParamVars>(&mut self, f: &ParamFunc<P, R>, rets: R, args: P) {
        self.call_params(f, rets, args, true)
    }

    #[track_caller]
    fn call_params<P: ParamVars, R: ParamVars>(&mut self, f: &ParamFunc<P, R>, rets: R, args: P, uni: bool) {
        if f.module != self.module {
            let e = Error::ForeignValue { kernel: self.name.to_string(), what: format!("function `{}`", f.name) };
            self.error(e);
        }
        self.push_param_call(Callee::Direct(f.name.clone()), None, rets.syms(), args.syms(), uni);
    }

    /// Declares a `.callprototype` of the functions taking `P` and returning `R` here (`name :
    /// .callprototype (.param .b32 _) _ (.param .b32 _);`), for
    /// [`call_func_indirect`](Self::call_func_indirect).
    ///
    /// ```
    /// use ptxkit::builder::Linkage;
    /// use ptxkit::prelude::*;
    /// use ptxkit::regs::ParamPtr;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// let neg = m.param_func("neg", Linkage::Internal, |k, (x,): (ParamPtr<F32>,), (r,): (ParamPtr<F32>,)| {
    ///     let v = ptx!(k, "ld.param.f32", x);
    ///     let n = ptx!(k, "neg.f32", v);
    ///     ptx!(k, "st.param.f32", r, n);
    /// })?;
    /// m.kernel("k", |k, (out,): (GlobalPtr<F32>,)| {
    ///     let f = ptx!(k, "mov.u64", neg.addr());
    ///     let v = k.block(|k| {
    ///         let (a, r): (ParamPtr<F32>, ParamPtr<F32>) = (k.param_var("param0"), k.param_var("retval0"));
    ///         ptx!(k, "st.param.f32", a, 1.5f32);
    ///         let proto = k.call_prototype::<(ParamPtr<F32>,), (ParamPtr<F32>,)>("prototype_0");
    ///         k.call_func_indirect(f, &proto, (r,), (a,));
    ///         ptx!(k, "ld.param.f32", r)
    ///     });
    ///     ptx!(k, "st.global.f32", out.offset(0), v);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains("prototype_0 : .callprototype (.param .f32 _) _ (.param .f32 _);"), "{text}");
    /// assert!(text.contains("call (retval0), %rd") && text.contains(", (param0), prototype_0;"), "{text}");
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn call_prototype<P: ParamVars, R: ParamVars>(&mut self, name: &str) -> CallPrototype<P, R> {
        if let Err(e) = check_ident(name) {
            self.error(e);
        }
        let rets = R::decls(&|_| "_".into());
        let rets = if rets.is_empty() { String::new() } else { format!("({}) ", rets.join(", ")) };
        self.push_text(format!("\t{name} : .callprototype {rets}_ ({});", P::decls(&|_| "_".into()).join(", ")));
        CallPrototype { name: name.into(), owner: self.id, _p: std::marker::PhantomData }
    }

    /// `call (rets), addr, (args), proto;`: calls the function whose address is `addr` (`mov.u64
    /// %rd, f;`), of the parameter list `proto`, as [`call_func`](Self::call_func) does.
    #[track_caller]
    pub fn call_func_indirect<P: ParamVars, R: ParamVars>(&mut self, addr: Reg<U64>, proto: &CallPrototype<P, R>, rets: R, args: P) {
        if proto.owner != self.id {
            let e = Error::ForeignValue { kernel: self.name.to_string(), what: format!("call prototype `{}`", proto.name) };
            self.error(e);
        }
        let a = addr.checked(self);
        self.push_param_call(Callee::Indirect(a), Some(proto.name.clone()), rets.syms(), args.syms(), false);
    }

    #[track_caller]
    fn push_param_call(
        &mut self,
        func: Callee,
        proto: Option<Arc<str>>,
        rets: Vec<Option<(u32, u32)>>,
        args: Vec<Option<(u32, u32)>>,
        uni: bool,
    ) {
        let ops = |k: &mut Kernel, vals: Vec<Option<(u32, u32)>>| -> Vec<Opnd> {
            vals.into_iter()
                .map(|v| match v {
                    Some((s, owner)) => {
                        k.check_owner(owner, || format!("the .param variable `{}`", crate::core::names::sym_name(s)));
                        Opnd::Sym(s)
                    }
                    None => {
                        k.invalid("a call's argument or result is a `.param` variable itself, with no offset".into());
                        Opnd::Sink
                    }
                })
                .collect()
        };
        let rets = ops(self, rets);
        let args = ops(self, args);
        let guard = crate::ops::in_scope(self, None);
        self.push_call(CallStmt { guard, func, rets, args, uni, param: false, proto });
    }
}
