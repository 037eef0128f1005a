//! Device functions and calls: the `.reg` ABI (values passed in registers) and the `.param`
//! ABI (values passed through `.param` variables, as nvcc does), direct calls, `call.uni`,
//! and calls through a function's address with a `.callprototype`.

use super::params::FuncValues;
use crate::core::ir::{CallStmt, Callee, Opnd, RegRef, RegSpace};
use crate::core::kernel::BodyKind;
use crate::core::names::intern;
use crate::core::{Error, Kernel, Module, RegClass};
use crate::ops::m;
use crate::ptx;
use crate::regs::{Ptr, SymAddr};
use crate::types::{Reg, B16, B32, B64, U64};
use std::sync::Arc;

/// How a device function takes its parameters and returns its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Abi {
    /// `.func (.reg .b32 %rv0) f(.reg .b32 %pa0)`: values in registers, the call's operands.
    #[default]
    Reg,
    /// `.func (.param .b32 f_retval_0) f(.param .b32 f_param_0)`: values in `.param`
    /// variables. The caller declares them in a block around the call, stores the
    /// arguments and loads the results; the function loads its parameters and stores its
    /// results. The only ABI that can be called through an address ([`Kernel::call_indirect`]).
    /// Predicates, 8-bit and 128-bit registers cannot be `.param` values, and a function
    /// returns one value at most (ptxas: "multiple return parameters require .register
    /// state space").
    Param,
}

/// A built device function taking `P` and returning `R`.
#[derive(Clone, Debug)]
pub struct FuncRef<P, R> {
    name: Arc<str>,
    module: u32,
    abi: Abi,
    _p: std::marker::PhantomData<fn(P) -> R>,
}

impl<P, R> FuncRef<P, R> {
    /// The function's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Its ABI.
    pub fn abi(&self) -> Abi {
        self.abi
    }
}

/// The address of a device function of the `.param` ABI, in a register
/// ([`Kernel::func_addr`]): what [`Kernel::call_indirect`] calls.
#[derive(Clone, Copy, Debug)]
pub struct FuncPtr<P, R> {
    addr: Reg<U64>,
    _p: std::marker::PhantomData<fn(P) -> R>,
}

impl<P, R> FuncPtr<P, R> {
    /// The address as a 64-bit register.
    pub fn reg(&self) -> Reg<U64> {
        self.addr
    }

    /// `selp.u64`: `if_true` where `p` holds, else `if_false` (two functions of one
    /// signature; the choice may differ from thread to thread).
    #[track_caller]
    pub fn select(k: &mut Kernel, p: Reg<crate::types::Pred>, if_true: Self, if_false: Self) -> Self {
        let addr = ptx!(k, "selp.u64", if_true.addr, if_false.addr, p);
        FuncPtr { addr, _p: std::marker::PhantomData }
    }
}

/// The `.param` type of a register class, or why it has none.
fn param_type(c: RegClass) -> Result<&'static str, &'static str> {
    match c {
        RegClass::B16 => Ok("b16"),
        RegClass::B32 => Ok("b32"),
        RegClass::B64 => Ok("b64"),
        RegClass::Pred => Err("a predicate (pass it as a Reg<U32>)"),
        RegClass::B8 => Err("an 8-bit register"),
        RegClass::B128 => Err("a 128-bit register (pass it as two Reg<B64>)"),
    }
}

/// The `.param` variable `name` of the body being built.
fn param_var<T: crate::types::DataType>(k: &Kernel, name: &str) -> Ptr<m::Param, T> {
    Ptr::from_sym(intern(name), k.id)
}

/// `ld.param.bN` of the `.param` variable `name` into a fresh register of class `c`.
#[track_caller]
fn ld_param(k: &mut Kernel, c: RegClass, name: &str) -> RegRef {
    match c {
        RegClass::B16 => {
            let p = param_var::<B16>(k, name);
            ptx!(k, "ld.param.b16", p).checked(k)
        }
        RegClass::B64 => {
            let p = param_var::<B64>(k, name);
            ptx!(k, "ld.param.b64", p).checked(k)
        }
        _ => {
            let p = param_var::<B32>(k, name);
            ptx!(k, "ld.param.b32", p).checked(k)
        }
    }
}

/// `st.param.bN` of the register `r` into the `.param` variable `name`.
#[track_caller]
fn st_param(k: &mut Kernel, r: RegRef, name: &str) {
    let id = k.id;
    match r.class() {
        RegClass::B16 => {
            let p = param_var::<B16>(k, name);
            ptx!(k, "st.param.b16", p, Reg::<B16>::new(r, id))
        }
        RegClass::B64 => {
            let p = param_var::<B64>(k, name);
            ptx!(k, "st.param.b64", p, Reg::<B64>::new(r, id))
        }
        _ => {
            let p = param_var::<B32>(k, name);
            ptx!(k, "st.param.b32", p, Reg::<B32>::new(r, id))
        }
    }
}

impl Module {
    /// Builds a device function (`.func`) with `.reg` parameters and results.
    #[track_caller]
    pub fn func<P: FuncValues, R: FuncValues>(
        &mut self,
        name: &str,
        body: impl FnOnce(&mut Kernel, P) -> R,
    ) -> Result<FuncRef<P, R>, Error> {
        self.func_with(name, Abi::Reg, body)
    }

    /// Builds a device function (`.func`) of the `.reg` ABI whose body writes its results
    /// itself: it is given the parameters and the result registers, writes the results
    /// where it likes and may `ret` anywhere (as PTX written by hand or imported has it).
    /// [`func`](Self::func) is the same with the results returned and moved into place.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_80);
    /// let clamp = m.func_into("clamp", |k, (x,): (Reg<S32>,), (r,): (Reg<S32>,)| {
    ///     ptx!(k, "mov.s32" => r, x);
    ///     let neg = ptx!(k, "setp.lt.s32", x, 0i32);
    ///     k.if_(neg, |k| {
    ///         ptx!(k, "mov.s32" => r, 0i32);
    ///         k.ret();
    ///     });
    /// })?;
    /// m.kernel("caller", |k, (out,): (GlobalPtr<S32>,)| {
    ///     let x = ptx!(k, "mov.s32", -3i32);
    ///     let y = k.reg::<S32>();
    ///     k.call_into(&clamp, (y,), (x,));
    ///     ptx!(k, "st.global.s32", out, y);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains(".func (.reg .b32 %rvr0) clamp(.reg .b32 %par0)"), "{text}");
    /// assert!(text.contains("call (%r2), clamp, (%r1);"), "{text}");
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn func_into<P: FuncValues, R: FuncValues>(
        &mut self,
        name: &str,
        body: impl FnOnce(&mut Kernel, P, R),
    ) -> Result<FuncRef<P, R>, Error> {
        self.add_body(name, |m| {
            let mut k = m.new_body(name, BodyKind::Func);
            let (prefs, rrefs) = reg_abi::<P, R>(&mut k);
            let (params, results) = (P::from_refs(&prefs, k.id), R::from_refs(&rrefs, k.id));
            body(&mut k, params, results);
            k.close();
            k.check_target(m.target);
            k.finish()?;
            Ok((k, ()))
        })?;
        Ok(FuncRef { name: name.into(), module: self.id, abi: Abi::Reg, _p: std::marker::PhantomData })
    }

    /// Builds a device function (`.func`) with the given [`Abi`].
    ///
    /// ```
    /// use ptxkit::builder::Abi;
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_90);
    /// let fma = m.func_with("fma3", Abi::Param, |k, (a, b): (Reg<F32>, Reg<U64>)| {
    ///     let w = ptx!(k, "cvt.rn.f32.u64", b);
    ///     ptx!(k, "fma.rn.f32", a, w, 3.0f32)
    /// })?;
    /// m.kernel("caller", |k, (out,): (GlobalPtr<F32>,)| {
    ///     let x = ptx!(k, "mov.f32", 1.5f32);
    ///     let n = ptx!(k, "mov.u64", 2u64);
    ///     let y = k.call(&fma, (x, n));
    ///     let f = k.func_addr(&fma);
    ///     let z = k.call_indirect(f, (y, n));
    ///     ptx!(k, "st.global.f32", out.offset(0), z);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains(".func (.param .b32 fma3_retval_0) fma3(.param .b32 fma3_param_0, .param .b64 fma3_param_1)"));
    /// assert!(text.contains("call (__ptxkit_ret0), fma3, (__ptxkit_arg0, __ptxkit_arg1);"));
    /// assert!(text.contains(".callprototype (.param .b32 _) _ (.param .b32 _, .param .b64 _);"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    #[track_caller]
    pub fn func_with<P: FuncValues, R: FuncValues>(
        &mut self,
        name: &str,
        abi: Abi,
        body: impl FnOnce(&mut Kernel, P) -> R,
    ) -> Result<FuncRef<P, R>, Error> {
        self.add_body(name, |m| {
            let mut k = m.new_body(name, BodyKind::Func);
            match abi {
                Abi::Reg => {
                    let (prefs, rrefs) = reg_abi::<P, R>(&mut k);
                    let params = P::from_refs(&prefs, k.id);
                    let result = body(&mut k, params);
                    result.mov_into(&mut k, &rrefs);
                }
                Abi::Param => {
                    let mut prefs = Vec::new();
                    for (i, c) in P::classes().into_iter().enumerate() {
                        let pname = format!("{name}_param_{i}");
                        match param_type(c) {
                            Ok(t) => k.params.push(format!(".param .{t} {pname}")),
                            Err(what) => k.invalid(format!("parameter {i} of a .param-ABI function is {what}")),
                        }
                        prefs.push(ld_param(&mut k, c, &pname));
                    }
                    if R::classes().len() > 1 {
                        k.invalid(format!("a .param-ABI function returns one value at most, not {}", R::classes().len()));
                    }
                    for (i, c) in R::classes().into_iter().enumerate() {
                        match param_type(c) {
                            Ok(t) => k.func_ret_params.push(format!(".param .{t} {name}_retval_{i}")),
                            Err(what) => k.invalid(format!("result {i} of a .param-ABI function is {what}")),
                        }
                    }
                    let params = P::from_refs(&prefs, k.id);
                    let result = body(&mut k, params);
                    for (i, r) in result.regs(&mut k).into_iter().enumerate() {
                        if let Opnd::Reg(r) = r {
                            st_param(&mut k, r, &format!("{name}_retval_{i}"));
                        }
                    }
                }
            }
            k.close();
            k.check_target(m.target);
            k.finish()?;
            Ok((k, ()))
        })?;
        let name: Arc<str> = name.into();
        Ok(FuncRef { name, module: self.id, abi, _p: std::marker::PhantomData })
    }
}

/// The parameter and result registers of a `.reg`-ABI function, declared in its signature.
fn reg_abi<P: FuncValues, R: FuncValues>(k: &mut Kernel) -> (Vec<RegRef>, Vec<RegRef>) {
    let space = |s| move |(i, c): (usize, RegClass)| RegRef::new(c, s, i as u32);
    let prefs: Vec<RegRef> = P::classes().into_iter().enumerate().map(space(RegSpace::FuncParam)).collect();
    let rrefs: Vec<RegRef> = R::classes().into_iter().enumerate().map(space(RegSpace::FuncRet)).collect();
    k.func_params = prefs.clone();
    k.func_rets = rrefs.clone();
    (prefs, rrefs)
}

impl Kernel {
    /// `call (rets), f, (args);`: a call of a device function of the same module, with its
    /// ABI's conventions.
    #[track_caller]
    pub fn call<P: FuncValues, R: FuncValues>(&mut self, f: &FuncRef<P, R>, args: P) -> R {
        self.call_with(f, args, None, false)
    }

    /// `call.uni`: as [`call`](Self::call), where the call is known not to diverge (every
    /// active thread of the warp executes it, under the same guard).
    #[track_caller]
    pub fn call_uni<P: FuncValues, R: FuncValues>(&mut self, f: &FuncRef<P, R>, args: P) -> R {
        self.call_with(f, args, None, true)
    }

    /// As [`call`](Self::call), with the results written into the registers `rets` (of a
    /// `.reg`-ABI function: `call (%r3, %r4), f, (%r1, %r2);` names them).
    #[track_caller]
    pub fn call_into<P: FuncValues, R: FuncValues>(&mut self, f: &FuncRef<P, R>, rets: R, args: P) {
        self.call_with(f, args, Some(rets), false);
    }

    /// As [`call_into`](Self::call_into), with `call.uni`.
    #[track_caller]
    pub fn call_uni_into<P: FuncValues, R: FuncValues>(&mut self, f: &FuncRef<P, R>, rets: R, args: P) {
        self.call_with(f, args, Some(rets), true);
    }

    #[track_caller]
    fn call_with<P: FuncValues, R: FuncValues>(&mut self, f: &FuncRef<P, R>, args: P, rets: Option<R>, uni: bool) -> R {
        if f.module != self.module {
            let e = Error::ForeignValue { kernel: self.name.to_string(), what: format!("function `{}`", f.name) };
            self.error(e);
        }
        if rets.is_some() && f.abi == Abi::Param {
            self.invalid(format!("`{}` has the .param ABI: its results come back in new registers (`call`), not in given ones", f.name));
        }
        self.push_call_of(Callee::Direct(f.name.clone()), f.abi == Abi::Param, args, rets, uni)
    }

    /// The address of `f` (`mov.u64 %rd, f;`), for [`call_indirect`](Self::call_indirect).
    /// Only a function of the [`.param` ABI](Abi::Param) can be called through an address.
    #[track_caller]
    pub fn func_addr<P: FuncValues, R: FuncValues>(&mut self, f: &FuncRef<P, R>) -> FuncPtr<P, R> {
        if f.abi != Abi::Param {
            self.invalid(format!("`{}` has the .reg ABI: only a .param-ABI function can be called through its address", f.name));
        }
        let addr = ptx!(self, "mov.u64", SymAddr::<U64>::new(intern(&f.name), f.module));
        FuncPtr { addr, _p: std::marker::PhantomData }
    }

    /// `call (rets), %rd, (args), prototype;`: a call through a function's address, with a
    /// `.callprototype` of its parameter list declared in the call's block.
    #[track_caller]
    pub fn call_indirect<P: FuncValues, R: FuncValues>(&mut self, f: FuncPtr<P, R>, args: P) -> R {
        let addr = f.addr.checked(self);
        self.push_call_of(Callee::Indirect(addr), true, args, None, false)
    }

    /// The call, its results in `into` or in new registers.
    #[track_caller]
    fn push_call_of<P: FuncValues, R: FuncValues>(&mut self, func: Callee, param: bool, args: P, into: Option<R>, uni: bool) -> R {
        let guard = crate::ops::in_scope(self, None);
        let args = args.regs(self);
        let out = match into {
            Some(r) => r,
            None => {
                let refs: Vec<RegRef> = R::classes().into_iter().map(|c| self.alloc(c)).collect();
                R::from_refs(&refs, self.id)
            }
        };
        let rets = out.regs(self);
        self.push_call(CallStmt { guard, func, rets, args, uni, param, proto: None });
        out
    }
}
