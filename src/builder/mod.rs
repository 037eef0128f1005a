//! Modules, kernels and device functions; labels, structured control flow, variables and
//! directives; version/target inference and the printer.

pub mod error;
pub mod ir;
mod param_bytes;
mod print;
pub mod target;

use crate::ops::{self, m, op, Call, FormDesc, Op, StateSpace};
use crate::regs::{Base, Label, Ptr, Reg, SymAddr};
use crate::types::{DataType, Pred, RegClass, S32, S64, U32, U64};
pub use error::{check_ident, Error};
use ir::{Guard, Opnd, RegRef, RegSpace, Stmt};
pub use param_bytes::ParamBytes;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
pub use target::{Suffix, Target, Version};

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// Symbol names (kernel parameters, variables, shared arrays) are interned process-wide,
/// so pointers to them are `Copy`. The table only grows by distinct names.
fn names() -> &'static std::sync::RwLock<(Vec<&'static str>, std::collections::HashMap<&'static str, u32>)> {
    static N: std::sync::OnceLock<std::sync::RwLock<(Vec<&'static str>, std::collections::HashMap<&'static str, u32>)>> =
        std::sync::OnceLock::new();
    N.get_or_init(Default::default)
}

pub(crate) fn intern(name: &str) -> u32 {
    if let Some(i) = names().read().unwrap_or_else(|e| e.into_inner()).1.get(name) {
        return *i;
    }
    let mut w = names().write().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = w.1.get(name) {
        return *i;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    let i = w.0.len() as u32;
    w.0.push(s);
    w.1.insert(s, i);
    i
}

pub(crate) fn sym_name(id: u32) -> &'static str {
    names().read().unwrap_or_else(|e| e.into_inner()).0[id as usize]
}
fn fresh_id() -> u32 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// A kernel directive.
#[derive(Clone, Debug, PartialEq)]
pub enum Directive {
    MaxNTid(u32, u32, u32),
    ReqNTid(u32, u32, u32),
    MinNCtaPerSm(u32),
    MaxNReg(u32),
    ReqNCtaPerCluster(u32, u32, u32),
    ExplicitCluster,
    MaxClusterRank(u32),
}

impl Directive {
    /// The directive keyword, also its key in the ISA table.
    pub fn keyword(&self) -> &'static str {
        match self {
            Directive::MaxNTid(..) => ".maxntid",
            Directive::ReqNTid(..) => ".reqntid",
            Directive::MinNCtaPerSm(_) => ".minnctapersm",
            Directive::MaxNReg(_) => ".maxnreg",
            Directive::ReqNCtaPerCluster(..) => ".reqnctapercluster",
            Directive::ExplicitCluster => ".explicitcluster",
            Directive::MaxClusterRank(_) => ".maxclusterrank",
        }
    }
}

#[derive(Clone, Debug)]
struct LabelInfo {
    name: Option<String>,
    placed: bool,
    used: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Entry,
    Func,
}

/// The body of a kernel (`.entry`) or device function (`.func`) under construction.
///
/// Instructions are added with [`ptx!`](crate::ptx) or the helper methods; errors (an
/// out-of-range immediate, a register from another kernel, a bad label) are collected and
/// returned by [`Module::kernel`] / [`Module::func`].
pub struct Kernel {
    pub(crate) id: u32,
    module: u32,
    pub(crate) name: Arc<str>,
    kind: BodyKind,
    nregs: [u32; 5],
    stmts: Vec<Stmt>,
    opnds: Vec<Opnd>,
    scratch: Vec<Opnd>,
    labels: Vec<LabelInfo>,
    params: Vec<String>,
    func_params: Vec<RegRef>,
    func_rets: Vec<RegRef>,
    locals: Vec<String>,
    local_names: Vec<String>,
    directives: Vec<Directive>,
    errors: Vec<Error>,
    guard: Guard,
    dyn_smem: bool,
}

impl Kernel {
    fn new(name: &str, module: u32, kind: BodyKind) -> Kernel {
        Kernel {
            id: fresh_id(),
            module,
            name: name.into(),
            kind,
            nregs: [0; 5],
            stmts: Vec::with_capacity(64),
            opnds: Vec::with_capacity(192),
            scratch: Vec::new(),
            labels: Vec::new(),
            params: Vec::new(),
            func_params: Vec::new(),
            func_rets: Vec::new(),
            locals: Vec::new(),
            local_names: Vec::new(),
            directives: Vec::new(),
            errors: Vec::new(),
            guard: None,
            dyn_smem: false,
        }
    }

    /// The kernel or function name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of instructions so far.
    pub fn len(&self) -> usize {
        self.stmts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }

    // ---- the untyped core --------------------------------------------------------------

    pub fn alloc(&mut self, class: RegClass) -> RegRef {
        self.nregs[class as usize] += 1;
        let n = self.nregs[class as usize];
        if n > RegRef::MAX_IDX {
            let e = Error::InvalidArgument {
                kernel: self.name.to_string(),
                what: format!("more than {} registers of one class", RegRef::MAX_IDX),
            };
            self.error(e);
        }
        RegRef::new(class, RegSpace::Body, n)
    }

    /// A fresh register of type `T`.
    pub fn reg<T: DataType>(&mut self) -> Reg<T> {
        let r = self.alloc(T::CLASS);
        Reg::new(r, self.id)
    }

    pub(crate) fn take_guard(&mut self) -> Guard {
        self.guard.take()
    }
    pub(crate) fn set_guard(&mut self, r: RegRef, neg: bool) {
        self.guard = Some((r, neg));
    }
    pub(crate) fn take_scratch(&mut self) -> Vec<Opnd> {
        std::mem::take(&mut self.scratch)
    }
    pub(crate) fn put_scratch(&mut self, mut v: Vec<Opnd>) {
        v.clear();
        if self.scratch.capacity() < v.capacity() {
            self.scratch = v;
        }
    }

    /// Appends one instruction of a typed form; the operands are drained from `ops`.
    pub fn push_ins(&mut self, form: &'static FormDesc, guard: Guard, ops: &mut Vec<Opnd>) {
        let start = self.opnds.len() as u32;
        self.opnds.extend(ops.drain(..));
        let len = self.opnds.len() as u32 - start;
        self.stmts.push(Stmt::Ins { form, guard, ops: (start, len as u16) });
    }

    /// Emits a form found by its chain text, with operands already lowered. For internal
    /// helpers whose types are known only at run time; user code goes through `ptx!`.
    pub(crate) fn emit_chain(&mut self, chain: &str, ops: Vec<Opnd>) {
        let form = ops::find_form(chain, "plain").unwrap_or_else(|| panic!("internal: no form `{chain}` in the tables"));
        let guard = self.take_guard();
        let mut ops = ops;
        self.push_ins(form, guard, &mut ops);
    }

    pub(crate) fn error(&mut self, e: Error) {
        self.errors.push(e);
    }
    pub(crate) fn check_owner(&mut self, owner: u32, what: impl FnOnce() -> String) {
        if owner != self.id {
            let e = Error::ForeignValue { kernel: self.name.to_string(), what: what() };
            self.error(e);
        }
    }
    pub(crate) fn check_module(&mut self, owner: u32, sym: &str) {
        if owner != self.module && owner != self.id {
            let e = Error::ForeignValue { kernel: self.name.to_string(), what: format!("symbol `{sym}`") };
            self.error(e);
        }
    }
    pub(crate) fn imm_error(&mut self, value: String, ty: &'static str) {
        let e = Error::ImmediateOutOfRange { kernel: self.name.to_string(), value, ty };
        self.error(e);
    }

    /// Raw PTX text, printed verbatim (with a trailing `;`). The escape hatch: nothing in it
    /// is checked, and its ISA needs are not inferred.
    pub fn raw(&mut self, text: &str) {
        if text.contains(['\n', ';']) {
            self.error(Error::InvalidArgument {
                kernel: self.name.to_string(),
                what: format!("raw text `{text}` must be one instruction without `;` or newlines"),
            });
            return;
        }
        self.stmts.push(Stmt::Raw(text.into()));
    }

    /// A `//` comment line.
    pub fn comment(&mut self, text: &str) {
        for line in text.lines() {
            self.stmts.push(Stmt::Comment(line.into()));
        }
    }

    // ---- labels and control flow ---------------------------------------------------------

    /// A new label, placed later with [`Kernel::place`].
    pub fn label(&mut self) -> Label {
        self.labels.push(LabelInfo { name: None, placed: false, used: false });
        Label { id: self.labels.len() as u32 - 1, owner: self.id }
    }

    /// A new label with a chosen name (a PTX identifier, unique in this body).
    pub fn named_label(&mut self, name: &str) -> Label {
        if let Err(e) = check_ident(name) {
            self.error(e);
        } else if self.labels.iter().any(|l| l.name.as_deref() == Some(name)) || self.local_names.iter().any(|n| n == name) {
            let e = Error::DuplicateLabel { kernel: self.name.to_string(), label: name.to_string() };
            self.error(e);
        }
        let l = self.label();
        self.labels[l.id as usize].name = Some(name.to_string());
        l
    }

    /// Places a label at the current position.
    pub fn place(&mut self, l: Label) {
        if l.owner != self.id {
            self.check_owner(l.owner, || "a label".into());
            return;
        }
        let info = &mut self.labels[l.id as usize];
        if info.placed {
            let e = Error::DuplicateLabel { kernel: self.name.to_string(), label: self.label_name(l.id) };
            self.error(e);
            return;
        }
        info.placed = true;
        self.stmts.push(Stmt::Label(l.id));
    }

    pub fn use_label(&mut self, l: Label) {
        if l.owner != self.id {
            self.check_owner(l.owner, || "a label".into());
        } else {
            self.labels[l.id as usize].used = true;
        }
    }

    pub(crate) fn label_name(&self, id: u32) -> String {
        match &self.labels[id as usize].name {
            Some(n) => n.clone(),
            None => format!("$L__{id}"),
        }
    }

    /// `bra target;`
    pub fn bra(&mut self, target: Label) {
        <Op<op::Bra, ()> as Call<_>>::call(self, (target,));
    }

    /// `@p bra target;` (or `@!p` for a [`NotPred`](crate::NotPred)).
    pub fn bra_if(&mut self, p: impl crate::regs::IntoGuard, target: Label) {
        ops::guard_next(self, p, false);
        self.bra(target);
    }

    /// `if p { then }`: a forward branch around the body.
    pub fn if_(&mut self, p: impl crate::regs::IntoGuard, then: impl FnOnce(&mut Kernel)) {
        let end = self.label();
        ops::guard_next(self, p, true);
        self.bra(end);
        then(self);
        self.place(end);
    }

    /// `if p { then } else { els }`.
    pub fn if_else(&mut self, p: impl crate::regs::IntoGuard, then: impl FnOnce(&mut Kernel), els: impl FnOnce(&mut Kernel)) {
        let (lelse, end) = (self.label(), self.label());
        ops::guard_next(self, p, true);
        self.bra(lelse);
        then(self);
        self.bra(end);
        self.place(lelse);
        els(self);
        self.place(end);
    }

    /// A loop: `cond` runs at the head each iteration and returns the predicate to go on.
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
    pub fn for_range<E: LoopBound>(
        &mut self,
        start: impl ops::Operand<E::T>,
        end: E,
        step: u32,
        mut body: impl FnMut(&mut Kernel, Reg<E::T>),
    ) {
        if step == 0 {
            self.error(Error::InvalidArgument { kernel: self.name.to_string(), what: "for_range step must be positive".into() });
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
    pub fn loop_(&mut self, body: impl FnOnce(&mut Kernel, LoopLabels)) {
        let (head, exit) = (self.label(), self.label());
        self.place(head);
        body(self, LoopLabels { brk: exit, cont: head });
        self.bra(head);
        self.place(exit);
    }

    /// `ret;`
    pub fn ret(&mut self) {
        <Op<op::Ret, ()> as Call<_>>::call(self, ());
    }

    /// `mov` into an existing register (for loop-carried values).
    pub fn assign<T: DataType>(&mut self, dst: Reg<T>, src: impl ops::Operand<T>)
    where
        Reg<T>: ops::Operand<T>,
    {
        let mut buf = self.take_scratch();
        let guard = self.take_guard();
        buf.push(Opnd::Reg(dst.checked(self)));
        buf.push(src.lower(self));
        let chain = format!("mov.{}", mov_type(T::ID));
        let form = ops::find_form(&chain, "plain").expect("mov form for every register class");
        self.push_ins(form, guard, &mut buf);
        self.put_scratch(buf);
    }

    // ---- memory ----------------------------------------------------------------------------

    /// A `.shared` array of `len` elements declared in this body; its address is 32-bit.
    pub fn shared_array<T: DataType>(&mut self, name: &str, len: u32, align: u32) -> Ptr<m::Shared, T> {
        self.local_array::<T>("shared", name, len, align);
        Ptr::from_base(Base::Sym(intern(name), self.id))
    }

    /// A `.local` array of `len` elements (per-thread memory).
    pub fn local_array<T: DataType>(&mut self, space: &str, name: &str, len: u32, align: u32) -> Ptr<m::Local, T> {
        if let Err(e) = check_ident(name) {
            self.error(e);
        } else if self.local_names.iter().any(|n| n == name) || self.labels.iter().any(|l| l.name.as_deref() == Some(name)) {
            self.error(Error::DuplicateSymbol { name: name.to_string() });
        }
        if !align.is_power_of_two() || align < crate::regs::elem_bytes::<T>() {
            self.error(Error::InvalidArgument {
                kernel: self.name.to_string(),
                what: format!("alignment {align} of `{name}` must be a power of two no smaller than its element"),
            });
        }
        let bytes = len as u64 * crate::regs::elem_bytes::<T>() as u64;
        self.locals.push(format!(".{space} .align {align} .b8 {name}[{bytes}];"));
        self.local_names.push(name.to_string());
        Ptr::from_base(Base::Sym(intern(name), self.id))
    }

    /// The dynamic shared memory of the launch (`.extern .shared` at module scope).
    pub fn dynamic_shared<T: DataType>(&mut self) -> Ptr<m::Shared, T> {
        self.dyn_smem = true;
        Ptr::from_base(Base::Sym(intern(DYN_SMEM), self.module))
    }

    /// `base + off` in a 64-bit register, for offsets an address operand cannot hold.
    pub(crate) fn add_offset(&mut self, b: ir::AddrBase, base: &Base, off: i64) -> RegRef {
        match (b, base) {
            (ir::AddrBase::Reg(r), Base::Reg(_)) => {
                let r: Reg<S64> = Reg::new(r, self.id);
                <Op<op::Add, (S64,)> as Call<_>>::call(self, (r, off)).r
            }
            _ => {
                let e = Error::InvalidArgument {
                    kernel: self.name.to_string(),
                    what: format!("address offset {off} does not fit a 32-bit address operand"),
                };
                self.error(e);
                self.alloc(RegClass::B64)
            }
        }
    }

    /// The address of a pointer in a register of its space's width.
    pub(crate) fn materialize<S: StateSpace, T: DataType>(&mut self, p: &Ptr<S, T>) -> Reg<S::AddrT> {
        let wide = S::SPACE.addr_bits() == 64;
        let base: RegRef = match &p.base {
            Base::Reg(r) => r.checked(self),
            Base::Reg32(r) => r.checked(self),
            Base::Sym(s, owner) => {
                let (s, owner) = (*s, *owner);
                if wide {
                    let sym = SymAddr::<U64>::new(s, owner);
                    <Op<op::Mov, (U64,)> as Call<_>>::call(self, (sym,)).r
                } else {
                    let sym = SymAddr::<U32>::new(s, owner);
                    <Op<op::Mov, (U32,)> as Call<_>>::call(self, (sym,)).r
                }
            }
        };
        let r = if p.off == 0 {
            base
        } else if wide {
            let b: Reg<S64> = Reg::new(base, self.id);
            <Op<op::Add, (S64,)> as Call<_>>::call(self, (b, p.off)).r
        } else {
            let b: Reg<S32> = Reg::new(base, self.id);
            <Op<op::Add, (S32,)> as Call<_>>::call(self, (b, p.off as i32)).r
        };
        Reg::new(r, self.id)
    }

    /// Address of element `i` of `p` (without `p`'s constant offset, which the operand keeps).
    pub(crate) fn index_address<S: StateSpace, T: DataType, I: DataType>(&mut self, p: &Ptr<S, T>, i: Reg<I>) -> RegRef {
        let size = crate::regs::elem_bytes::<T>();
        let base_ptr: Ptr<S, T> = Ptr::from_base(p.base.clone());
        let base = self.materialize(&base_ptr).r;
        let id = self.id;
        match (S::SPACE.addr_bits(), I::ID.bits(), I::FAMILY == crate::types::Family::Signed) {
            (64, 32, false) => {
                let b: Reg<U64> = Reg::new(base, id);
                <Op<op::Mad, (m::Wide, U32)> as Call<_>>::call(self, (i.retype::<U32>(), size, b)).r
            }
            (64, 32, true) => {
                let b: Reg<S64> = Reg::new(base, id);
                <Op<op::Mad, (m::Wide, S32)> as Call<_>>::call(self, (i.retype::<S32>(), size as i32, b)).r
            }
            (64, _, _) => {
                let b: Reg<U64> = Reg::new(base, id);
                <Op<op::Mad, (m::Lo, U64)> as Call<_>>::call(self, (i.retype::<U64>(), size as u64, b)).r
            }
            (_, 32, _) => {
                let b: Reg<U32> = Reg::new(base, id);
                <Op<op::Mad, (m::Lo, U32)> as Call<_>>::call(self, (i.retype::<U32>(), size, b)).r
            }
            _ => {
                let lo = <Op<op::Cvt, (U32, U64)> as Call<_>>::call(self, (i.retype::<U64>(),));
                let b: Reg<U32> = Reg::new(base, id);
                <Op<op::Mad, (m::Lo, U32)> as Call<_>>::call(self, (lo, size, b)).r
            }
        }
    }

    /// `ld{.space}.type d, [addr]`, with the space and type taken from the address
    /// (8-bit types load into their 16-bit register; f16/bf16 and packed types as `.bN`).
    pub fn ld<A: crate::regs::Address>(&mut self, addr: A) -> Reg<A::Elem> {
        let d: Reg<A::Elem> = self.reg();
        let a = addr.lower(self);
        self.emit_access("ld", A::Space::SPACE, <A::Elem as DataType>::ID, vec![Opnd::Reg(d.r), a]);
        d
    }

    /// `st{.space}.type [addr], v`, with the space and type taken from the address.
    pub fn st<A: crate::regs::Address>(&mut self, addr: A, v: impl ops::Operand<A::Elem>) {
        let a = addr.lower(self);
        let v = v.lower(self);
        self.emit_access("st", A::Space::SPACE, <A::Elem as DataType>::ID, vec![a, v]);
    }

    pub(crate) fn emit_access(&mut self, opcode: &str, space: ops::Space, t: crate::types::DType, ops: Vec<Opnd>) {
        let ty = match t.family() {
            crate::types::Family::Float if t.bits() >= 32 => t.name().to_string(),
            crate::types::Family::Float | crate::types::Family::Packed => format!("b{}", t.bits().max(8)),
            _ => t.name().to_string(),
        };
        let chain = format!("{opcode}{}.{ty}", space.chain_part());
        match ops::find_form(&chain, "plain") {
            Some(form) => {
                let guard = self.take_guard();
                let mut ops = ops;
                self.push_ins(form, guard, &mut ops);
            }
            None => self.error(Error::InvalidArgument {
                kernel: self.name.to_string(),
                what: format!("no `{chain}` form for a {} value", t.name()),
            }),
        }
    }

    // ---- indices ---------------------------------------------------------------------------

    /// `%ctaid.x * %ntid.x + %tid.x`
    pub fn global_thread_index_x(&mut self) -> Reg<U32> {
        use crate::regs::sreg;
        let tid = <Op<op::Mov, (U32,)> as Call<_>>::call(self, (sreg::TID_X,));
        let ntid = <Op<op::Mov, (U32,)> as Call<_>>::call(self, (sreg::NTID_X,));
        let ctaid = <Op<op::Mov, (U32,)> as Call<_>>::call(self, (sreg::CTAID_X,));
        <Op<op::Mad, (m::Lo, U32)> as Call<_>>::call(self, (ctaid, ntid, tid))
    }

    // ---- directives --------------------------------------------------------------------------

    fn directive(&mut self, d: Directive, vals: &[u32]) {
        if self.kind != BodyKind::Entry {
            self.error(Error::InvalidArgument { kernel: self.name.to_string(), what: format!("{} applies to kernels only", d.keyword()) });
        } else if vals.iter().any(|v| *v == 0) {
            self.error(Error::InvalidArgument { kernel: self.name.to_string(), what: format!("{} takes positive values", d.keyword()) });
        } else if self.directives.iter().any(|x| x.keyword() == d.keyword()) {
            self.error(Error::InvalidArgument { kernel: self.name.to_string(), what: format!("{} given twice", d.keyword()) });
        } else {
            self.directives.push(d);
        }
    }
    /// `.maxntid x, y, z`
    pub fn maxntid(&mut self, x: u32, y: u32, z: u32) {
        self.directive(Directive::MaxNTid(x, y, z), &[x, y, z]);
    }
    /// `.reqntid x, y, z`
    pub fn reqntid(&mut self, x: u32, y: u32, z: u32) {
        self.directive(Directive::ReqNTid(x, y, z), &[x, y, z]);
    }
    /// `.minnctapersm n`
    pub fn minnctapersm(&mut self, n: u32) {
        self.directive(Directive::MinNCtaPerSm(n), &[n]);
    }
    /// `.maxnreg n` (at most 255)
    pub fn maxnreg(&mut self, n: u32) {
        if n > 255 {
            self.error(Error::InvalidArgument { kernel: self.name.to_string(), what: format!(".maxnreg {n} exceeds 255") });
            return;
        }
        self.directive(Directive::MaxNReg(n), &[n]);
    }
    /// `.reqnctapercluster x, y, z`
    pub fn reqnctapercluster(&mut self, x: u32, y: u32, z: u32) {
        self.directive(Directive::ReqNCtaPerCluster(x, y, z), &[x, y, z]);
    }
    /// `.explicitcluster`
    pub fn explicitcluster(&mut self) {
        self.directive(Directive::ExplicitCluster, &[1]);
    }
    /// `.maxclusterrank n`
    pub fn maxclusterrank(&mut self, n: u32) {
        self.directive(Directive::MaxClusterRank(n), &[n]);
    }

    fn finish(&mut self) -> Result<(), Error> {
        for (i, l) in self.labels.iter().enumerate() {
            if l.used && !l.placed {
                return Err(Error::UndefinedLabel { kernel: self.name.to_string(), label: self.label_name(i as u32) });
            }
        }
        match self.errors.first() {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

/// Labels of a [`Kernel::loop_`].
#[derive(Clone, Copy, Debug)]
pub struct LoopLabels {
    /// Jump here to leave the loop.
    pub brk: Label,
    /// Jump here to start the next iteration.
    pub cont: Label,
}

pub(crate) const DYN_SMEM: &str = "ptxkit_dynamic_smem";

fn mov_type(t: crate::types::DType) -> &'static str {
    t.class().decl()
}

/// The end of a [`Kernel::for_range`]: a register or a constant; it fixes the index type.
pub trait LoopBound: ops::Operand<Self::T> + Copy {
    type T: LoopIndex;
}
impl<T: LoopIndex> LoopBound for Reg<T>
where
    Reg<T>: ops::Operand<T>,
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
    fn mov(k: &mut Kernel, i: Reg<Self>, v: impl ops::Operand<Self>);
    #[doc(hidden)]
    fn ge(k: &mut Kernel, i: Reg<Self>, end: impl ops::Operand<Self>) -> Reg<Pred>;
    #[doc(hidden)]
    fn add(k: &mut Kernel, i: Reg<Self>, step: u32);
}
macro_rules! loop_index {
    ($($t:ident)*) => {$(
        impl LoopIndex for $t {
            fn mov(k: &mut Kernel, i: Reg<Self>, v: impl ops::Operand<Self>) {
                <Op<op::Mov, ($t,)> as Call<_>>::call_into(k, i, (v,));
            }
            fn ge(k: &mut Kernel, i: Reg<Self>, end: impl ops::Operand<Self>) -> Reg<Pred> {
                <Op<op::Setp, (m::Ge, $t)> as Call<_>>::call(k, (i, end))
            }
            fn add(k: &mut Kernel, i: Reg<Self>, step: u32) {
                <Op<op::Add, ($t,)> as Call<_>>::call_into(k, i, (i, step));
            }
        }
    )*};
}
loop_index!(U32 S32 U64 S64);

// ---- parameters ---------------------------------------------------------------------------

/// A kernel parameter type: how it is declared and loaded.
pub trait KernelParam: Sized {
    #[doc(hidden)]
    fn declare(k: &mut Kernel, name: &str) -> Self;
    /// The `.param` declaration of a parameter called `name`.
    #[doc(hidden)]
    fn decl(name: &str) -> String;
}

/// Scalar types a kernel can take by value.
pub trait ScalarParam: DataType {
    /// The `.param` and `ld.param` type.
    const PARAM: &'static str;
}
macro_rules! scalar_params { ($($t:ident $p:literal)*) => {$(impl ScalarParam for crate::types::$t { const PARAM: &'static str = $p; })*}; }
scalar_params!(B8 "b8" B16 "b16" B32 "b32" B64 "b64" U8 "u8" U16 "u16" U32 "u32" U64 "u64" S8 "s8" S16 "s16" S32 "s32" S64 "s64"
    F32 "f32" F64 "f64" F16 "b16" Bf16 "b16" F16x2 "b32" Bf16x2 "b32");

impl<T: ScalarParam> KernelParam for Reg<T> {
    fn decl(name: &str) -> String {
        format!(".param .{} {name}", T::PARAM)
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        let r = k.reg::<T>();
        let addr = Opnd::Addr(ir::AddrBase::Sym(intern(name)), 0);
        debug_assert!(std::mem::size_of_val(&addr) == 16);
        k.emit_chain(&format!("ld.param.{}", T::PARAM), vec![Opnd::Reg(r.r), addr]);
        r
    }
}

impl<T: DataType> KernelParam for Ptr<m::Global, T> {
    fn decl(name: &str) -> String {
        format!(".param .u64 {name}")
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        let p = Ptr::<m::Param, U64>::from_base(Base::Sym(intern(name), k.id));
        let raw = <Op<op::Ld, (m::Param, U64)> as Call<_>>::call(k, (p,));
        let g = <Op<op::Cvta, (m::To, m::Global, U64)> as Call<_>>::call(k, (raw,));
        Ptr::from_reg(g)
    }
}

impl<T: DataType> KernelParam for Ptr<ops::Generic, T> {
    fn decl(name: &str) -> String {
        format!(".param .u64 {name}")
    }
    fn declare(k: &mut Kernel, name: &str) -> Self {
        k.params.push(Self::decl(name));
        let p = Ptr::<m::Param, U64>::from_base(Base::Sym(intern(name), k.id));
        Ptr::from_reg(<Op<op::Ld, (m::Param, U64)> as Call<_>>::call(k, (p,)))
    }
}

/// The parameter list of a kernel: a tuple of [`KernelParam`]s.
pub trait KernelParams: Sized {
    #[doc(hidden)]
    fn declare_all(k: &mut Kernel) -> Self;
    /// The `.param` declarations of a kernel called `kernel` with these parameters.
    #[doc(hidden)]
    fn decls(kernel: &str) -> Vec<String>;
}

fn param_name(kernel: &str, i: usize) -> String {
    format!("{kernel}_param_{i}")
}

/// Parameters and results of a device function: a tuple of registers passed as `.reg`.
pub trait FuncValues: Sized {
    #[doc(hidden)]
    fn classes() -> Vec<RegClass>;
    #[doc(hidden)]
    fn from_refs(refs: &[RegRef], owner: u32) -> Self;
    #[doc(hidden)]
    fn regs(&self, k: &mut Kernel) -> Vec<Opnd>;
}

macro_rules! tuples {
    ($(($($t:ident),*);)*) => {$(
        #[allow(non_snake_case, unused_variables, unused_mut)]
        #[allow(unused_assignments)]
        impl<$($t: KernelParam),*> KernelParams for ($($t,)*) {
            fn declare_all(k: &mut Kernel) -> Self {
                let mut i = 0;
                ($({ let n = param_name(&k.name, i); i += 1; $t::declare(k, &n) },)*)
            }
            fn decls(kernel: &str) -> Vec<String> {
                let mut i = 0;
                vec![$({ i += 1; $t::decl(&param_name(kernel, i - 1)) }),*]
            }
        }
        #[allow(non_snake_case, unused_variables, unused_mut, unused_assignments)]
        impl<$($t: DataType),*> FuncValues for ($(Reg<$t>,)*) {
            fn classes() -> Vec<RegClass> { vec![$($t::CLASS),*] }
            fn from_refs(refs: &[RegRef], owner: u32) -> Self {
                let mut i = 0;
                ($({ i += 1; Reg::<$t>::new(refs[i - 1], owner) },)*)
            }
            fn regs(&self, k: &mut Kernel) -> Vec<Opnd> {
                let ($($t,)*) = self;
                vec![$(Opnd::Reg($t.checked(k))),*]
            }
        }
    )*};
}
tuples! {
    ();
    (A);
    (A, B);
    (A, B, C);
    (A, B, C, D);
    (A, B, C, D, E);
    (A, B, C, D, E, F);
    (A, B, C, D, E, F, G);
    (A, B, C, D, E, F, G, H);
    (A, B, C, D, E, F, G, H, I);
    (A, B, C, D, E, F, G, H, I, J);
    (A, B, C, D, E, F, G, H, I, J, K2);
    (A, B, C, D, E, F, G, H, I, J, K2, L);
}

impl<T: DataType> FuncValues for Reg<T> {
    fn classes() -> Vec<RegClass> {
        vec![T::CLASS]
    }
    fn from_refs(refs: &[RegRef], owner: u32) -> Self {
        Reg::new(refs[0], owner)
    }
    fn regs(&self, k: &mut Kernel) -> Vec<Opnd> {
        vec![Opnd::Reg(self.checked(k))]
    }
}

// ---- the module -----------------------------------------------------------------------------

/// A built kernel; `P` is its parameter tuple (the launch checks host arguments against it).
#[derive(Clone, Debug)]
pub struct KernelRef<P> {
    name: Arc<str>,
    _p: std::marker::PhantomData<fn(P)>,
}
impl<P> KernelRef<P> {
    pub fn name(&self) -> &str {
        &self.name
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
        Ok(KernelRef { name: name.into(), _p: std::marker::PhantomData })
    }
}

/// A built device function taking `P` and returning `R`.
#[derive(Clone, Debug)]
pub struct FuncRef<P, R> {
    name: Arc<str>,
    module: u32,
    _p: std::marker::PhantomData<fn(P) -> R>,
}

impl Kernel {
    /// `call (rets), f, (args);` — a call of a device function of the same module.
    pub fn call<P: FuncValues, R: FuncValues>(&mut self, f: &FuncRef<P, R>, args: P) -> R {
        if f.module != self.module {
            let e = Error::ForeignValue { kernel: self.name.to_string(), what: format!("function `{}`", f.name) };
            self.error(e);
        }
        let guard = self.take_guard();
        let args = args.regs(self);
        let refs: Vec<RegRef> = R::classes().into_iter().map(|c| self.alloc(c)).collect();
        let out = R::from_refs(&refs, self.id);
        let rets = refs.iter().map(|r| Opnd::Reg(*r)).collect();
        self.stmts.push(Stmt::Call(Box::new(ir::CallStmt { guard, func: f.name.clone(), rets, args })));
        out
    }
}

enum Item {
    Body(Kernel),
    Var(String),
}

/// A PTX module: target, variables, device functions and kernels.
pub struct Module {
    id: u32,
    target: Target,
    version: Option<Version>,
    items: Vec<Item>,
    names: Vec<String>,
    /// Skip the ISA checks (for the ptxas sweep, which asks ptxas instead).
    #[doc(hidden)]
    pub unchecked: bool,
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
        Ptr::from_base(Base::Sym(intern(&self.name), self.module))
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
    /// A module for `target`; `.version` is inferred from what the module uses.
    pub fn new(target: Target) -> Module {
        Module { id: fresh_id(), target, version: None, items: Vec::new(), names: Vec::new(), unchecked: false }
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// Asks for a specific `.version`; printing fails if the module needs a newer one.
    pub fn set_version(&mut self, v: Version) {
        self.version = Some(v);
    }

    fn claim(&mut self, name: &str) -> Result<(), Error> {
        check_ident(name)?;
        if self.names.iter().any(|n| n == name) || name == DYN_SMEM {
            return Err(Error::DuplicateSymbol { name: name.to_string() });
        }
        self.names.push(name.to_string());
        Ok(())
    }

    /// Builds a kernel (`.visible .entry`). `body` receives the kernel and its parameters,
    /// declared and loaded from the parameter tuple's types.
    pub fn kernel<P: KernelParams>(&mut self, name: &str, body: impl FnOnce(&mut Kernel, P)) -> Result<KernelRef<P>, Error> {
        self.claim(name)?;
        let mut k = Kernel::new(name, self.id, BodyKind::Entry);
        let params = P::declare_all(&mut k);
        body(&mut k, params);
        k.ret();
        k.finish()?;
        let name: Arc<str> = name.into();
        self.items.push(Item::Body(k));
        Ok(KernelRef { name, _p: std::marker::PhantomData })
    }

    /// Builds a device function (`.func`) with `.reg` parameters and results.
    pub fn func<P: FuncValues, R: FuncValues>(
        &mut self,
        name: &str,
        body: impl FnOnce(&mut Kernel, P) -> R,
    ) -> Result<FuncRef<P, R>, Error> {
        self.claim(name)?;
        let mut k = Kernel::new(name, self.id, BodyKind::Func);
        let prefs: Vec<RegRef> = P::classes().into_iter().enumerate().map(|(i, c)| RegRef::new(c, RegSpace::FuncParam, i as u32)).collect();
        let rrefs: Vec<RegRef> = R::classes().into_iter().enumerate().map(|(i, c)| RegRef::new(c, RegSpace::FuncRet, i as u32)).collect();
        k.func_params = prefs.clone();
        k.func_rets = rrefs.clone();
        let params = P::from_refs(&prefs, k.id);
        let result = body(&mut k, params);
        let vals = result.regs(&mut k);
        for (r, v) in rrefs.iter().zip(vals) {
            let chain = format!("mov.{}", mov_type_class(r.class()));
            k.emit_chain(&chain, vec![Opnd::Reg(*r), v]);
        }
        k.ret();
        k.finish()?;
        let name: Arc<str> = name.into();
        self.items.push(Item::Body(k));
        Ok(FuncRef { name, module: self.id, _p: std::marker::PhantomData })
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

    /// The whole module as PTX text, with `.version` inferred and every instruction
    /// checked against the target.
    pub fn to_ptx(&self) -> Result<String, Error> {
        print::module(self)
    }
}

fn mov_type_class(c: RegClass) -> &'static str {
    c.decl()
}
