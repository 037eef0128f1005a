//! The typed module API: kernels and device functions built from Rust closures, typed
//! handles to them, calls, and module variables.

use super::params::KernelParams;
use crate::core::kernel::BodyKind;
use crate::core::module::Item;
use crate::core::names::intern;
use crate::core::{check_ident, Error, Kernel, Module, Probes, RegClass};
use crate::ops::{m, StateSpace};
use crate::regs::Ptr;
use crate::types::DataType;
use std::sync::Arc;

/// A built kernel; `P` is its parameter tuple (the launch checks host arguments against it).
#[derive(Clone, Debug)]
pub struct KernelRef<P> {
    name: Arc<str>,
    /// The module that built it (`u32::MAX` for a kernel of PTX text).
    module: u32,
    probes: Arc<Probes>,
    _p: std::marker::PhantomData<fn(P)>,
}
impl<P> KernelRef<P> {
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The kernel's address as an operand (`mov.u64 %rd1, k;`), as a device-side launch
    /// (`cudaLaunchDevice`) passes it; a body of the module that built the kernel may use it.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// let mut m = Module::new(Target::SM_80);
    /// let child = m.kernel("child", |_, (): ()| {})?;
    /// m.kernel("parent", |k, (out,): (GlobalPtr<U64>,)| {
    ///     let a = ptx!(k, "mov.u64", child.addr());
    ///     ptx!(k, "st.global.u64", out.offset(0), a);
    /// })?;
    /// assert!(m.to_ptx()?.contains(", child;"));
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn addr(&self) -> crate::regs::SymAddr<crate::types::U64> {
        crate::regs::SymAddr::new(intern(&self.name), self.module)
    }
    /// What the kernel's probes write by number: the barriers and Rust locations of its
    /// recorded waits, its timeline's event names (empty for a kernel of PTX text).
    pub fn probes(&self) -> &Arc<Probes> {
        &self.probes
    }
}

impl<P: KernelParams> KernelRef<P> {
    /// The kernel `name` of PTX text made elsewhere (a build script's output, say), typed by
    /// `P`: fails unless the text declares `.entry name` with exactly the parameters `P`
    /// declares, so a launch through it is as checked as one through [`Module::kernel`].
    pub fn from_ptx(ptx: &str, name: &str) -> Result<KernelRef<P>, Error> {
        check_ident(name)?;
        let head = format!(".entry {name}(");
        let bad = |what: String| Error::InvalidArgument { kernel: name.to_string(), what };
        let at = ptx.find(&head).ok_or_else(|| bad(format!("the PTX text has no `.entry {name}`")))?;
        let rest = &ptx[at + head.len()..];
        let close = rest.find(')').ok_or_else(|| bad("unterminated parameter list".into()))?;
        let found: Vec<String> =
            rest[..close].split(',').map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|p| !p.is_empty()).collect();
        let want = P::decls(name);
        if found != want {
            return Err(bad(format!("parameters are ({}) in the text but ({}) in the Rust type", found.join(", "), want.join(", "))));
        }
        Ok(KernelRef { name: name.into(), module: u32::MAX, probes: Default::default(), _p: std::marker::PhantomData })
    }
}

/// A module-scope variable (`.global` or `.const`) of `T` elements.
#[derive(Clone, Debug)]
pub struct Var<S, T> {
    name: Arc<str>,
    module: u32,
    _t: std::marker::PhantomData<(S, T)>,
}
impl<S: StateSpace, T: DataType> Var<S, T> {
    /// A pointer to the variable's first element.
    pub fn ptr(&self) -> Ptr<S, T> {
        Ptr::from_sym(intern(&self.name), self.module)
    }
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Initial values of module variables, written exactly (floats in hex).
pub trait InitValue: Copy {
    #[doc(hidden)]
    fn ptx(self) -> String;
}
macro_rules! init_ints { ($($t:ty)*) => {$(impl InitValue for $t { fn ptx(self) -> String { self.to_string() } })*}; }
init_ints!(u8 u16 u32 u64 i8 i16 i32 i64);
impl InitValue for f32 {
    fn ptx(self) -> String {
        format!("0f{:08X}", self.to_bits())
    }
}
impl InitValue for f64 {
    fn ptx(self) -> String {
        format!("0d{:016X}", self.to_bits())
    }
}

impl Module {
    /// Builds a kernel (`.visible .entry`). `body` receives the kernel and its parameters,
    /// declared and loaded from the parameter tuple's types.
    ///
    /// The body is checked when it ends: an instruction or directive the module's target
    /// lacks, an undefined label, an immediate out of range, directives that do not go
    /// together are each an `Err` naming what is wrong. A module one of whose kernels failed
    /// to build prints no text ([`Module::to_ptx`] returns the error).
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let mut m = Module::new(Target::SM_75);
    /// let e = m.kernel("k", |k, (a,): (Reg<B32>,)| {
    ///     let _ = ptx!(k, "cvt.rn.bf16x2.f32", a.bitcast::<F32>(), a.bitcast::<F32>());
    /// });
    /// let msg = e.err().unwrap().to_string();
    /// assert!(msg.contains("`cvt.rn.bf16x2.f32` is not on sm_75: it needs sm_80 or newer"), "{msg}");
    /// assert!(m.to_ptx().is_err());
    /// ```
    #[track_caller]
    pub fn kernel<P: KernelParams>(&mut self, name: &str, body: impl FnOnce(&mut Kernel, P)) -> Result<KernelRef<P>, Error> {
        // With line info, the parameter loads and the closing `ret` point at this call.
        let here = std::panic::Location::caller();
        let probes = self.add_body(name, |m| {
            let mut k = m.new_body(name, BodyKind::Entry);
            k.loc_override = Some(here);
            let params = P::declare_all(&mut k);
            k.loc_override = None;
            body(&mut k, params);
            k.loc_override = Some(here);
            k.close();
            if !m.unchecked {
                k.check_target(m.target);
            }
            k.check_directives(m.target);
            k.finish()?;
            let probes = Arc::new(std::mem::take(&mut k.probes));
            Ok((k, probes))
        })?;
        Ok(KernelRef { name: name.into(), module: self.id, probes, _p: std::marker::PhantomData })
    }

    fn var<S: StateSpace, T: DataType, H: InitValue>(
        &mut self,
        space: &str,
        name: &str,
        len: u32,
        init: Option<&[H]>,
    ) -> Result<Var<S, T>, Error> {
        if T::CLASS == RegClass::Pred {
            return Err(Error::InvalidArgument { kernel: name.to_string(), what: "variables cannot hold .pred".into() });
        }
        if let Some(v) = init {
            if v.len() != len as usize {
                return Err(Error::InvalidArgument {
                    kernel: name.to_string(),
                    what: format!("{} initial values for {len} elements", v.len()),
                });
            }
        }
        if len == 0 {
            return Err(Error::InvalidArgument { kernel: name.to_string(), what: "a variable needs at least one element".into() });
        }
        self.claim(name)?;
        let align = crate::regs::elem_bytes::<T>();
        let ty = match T::FAMILY {
            crate::types::Family::Float | crate::types::Family::Unsigned | crate::types::Family::Signed | crate::types::Family::Bits
                if T::NAME != "f16" =>
            {
                T::NAME.to_string()
            }
            _ => format!("b{}", T::BITS),
        };
        let mut s = format!(".{space} .align {align} .{ty} {name}[{len}]");
        if let Some(v) = init {
            s.push_str(" = {");
            s.push_str(&v.iter().map(|x| x.ptx()).collect::<Vec<_>>().join(", "));
            s.push('}');
        }
        s.push(';');
        self.items.push(Item::Var(s));
        Ok(Var { name: name.into(), module: self.id, _t: std::marker::PhantomData })
    }

    /// Module-scope PTX text, printed as written: a variable of a shape the typed calls lack
    /// (an initialiser of addresses, a texture reference), an external function's
    /// declaration, a `.file` line. The module's escape hatch, as [`Kernel::raw`] is a
    /// body's: nothing in it is checked. `defines` names the symbols it declares, which
    /// then belong to the module ([`Module::symbol`] hands out pointers to them).
    ///
    /// ```
    /// use ptxkit::prelude::*;
    /// let mut m = Module::new(Target::SM_80);
    /// m.raw(".global .align 8 .u64 table[2] = {generic(table), 0};", &["table"])?;
    /// let table: Ptr<ptxkit::ops::m::Global, U64> = m.symbol("table")?;
    /// m.kernel("k", |k, (): ()| {
    ///     let v = ptx!(k, "ld.global.u64", table.offset(1));
    ///     ptx!(k, "st.global.u64", table, v);
    /// })?;
    /// assert!(m.to_ptx()?.contains("[table+8]"));
    /// assert!(m.symbol::<ptxkit::ops::m::Global, U64>("nothing").is_err());
    /// # Ok::<(), ptxkit::Error>(())
    /// ```
    pub fn raw(&mut self, text: &str, defines: &[&str]) -> Result<(), Error> {
        for name in defines {
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%')) {
                return Err(Error::InvalidIdentifier {
                    name: name.to_string(),
                    why: "a PTX identifier has letters, digits, `_`, `$` and `%`",
                });
            }
            self.claim_imported(name)?;
        }
        self.items.push(Item::Var(text.to_string()));
        Ok(())
    }

    /// A pointer to the module-scope symbol `name`, declared by [`Module::raw`] (or a
    /// variable's typed call), viewed in space `S` with elements `T`.
    pub fn symbol<S: StateSpace, T: DataType>(&self, name: &str) -> Result<Ptr<S, T>, Error> {
        if !self.claimed(name) {
            return Err(Error::InvalidArgument { kernel: String::new(), what: format!("the module declares no symbol `{name}`") });
        }
        Ok(Ptr::from_sym(intern(name), self.id))
    }

    /// A `.global` array of `len` elements, zero-initialised.
    pub fn global<T: DataType>(&mut self, name: &str, len: u32) -> Result<Var<m::Global, T>, Error> {
        self.var::<m::Global, T, u8>("global", name, len, None)
    }

    /// A `.global` array with initial values.
    pub fn global_init<T: DataType>(&mut self, name: &str, init: &[T::Host]) -> Result<Var<m::Global, T>, Error>
    where
        T::Host: InitValue,
    {
        self.var::<m::Global, T, T::Host>("global", name, init.len() as u32, Some(init))
    }

    /// A `.const` array with initial values.
    pub fn constant<T: DataType>(&mut self, name: &str, init: &[T::Host]) -> Result<Var<m::Const, T>, Error>
    where
        T::Host: InitValue,
    {
        self.var::<m::Const, T, T::Host>("const", name, init.len() as u32, Some(init))
    }
}
