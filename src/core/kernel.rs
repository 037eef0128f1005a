//! The body of a kernel or device function under construction: the untyped instruction
//! list, the operand arena, registers, labels, declarations and the errors met so far.
//! Typed calls (`crate::ops`) and the builder's helpers (`crate::builder`) add to it.

use super::desc::FormDesc;
use super::dtype::RegClass;
use super::error::{check_ident, Error};
use super::ir::{Guard, Opnd, PackedGuard, RegRef, RegSpace, Stmt};
use super::isa;
use super::segments::Segments;
use super::target::Target;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// A process-wide unique id for a kernel, function or module (values carry their owner's).
pub(crate) fn fresh_id() -> u32 {
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

/// A `.branchtargets` list of one body ([`Kernel::branch_targets`]): the `tlist` operand of
/// `brx.idx`. Only a declared list has this type, so `brx.idx` cannot name a plain label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BranchTargets(pub(crate) Label);

/// A branch target inside one kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    pub(crate) id: u32,
    pub(crate) owner: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct LabelInfo {
    pub(crate) name: Option<String>,
    pub(crate) placed: bool,
    pub(crate) used: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Entry,
    Func,
}

/// The most targets a `.branchtargets` list (and so a [`Kernel::switch_`]) may have.
/// PTX sets no limit, but ptxas 13.0 takes time quadratic in the list (a switch of `n` stores
/// takes 1.5 s at 4,096 cases, 7.7 s at 8,192, 90 s at 16,000) and crashes (SIGSEGV) from
/// 16,383 cases on, for several shapes of case bodies.
pub const MAX_BRANCH_TARGETS: usize = 4_096;

/// Whether `n` targets make a list ptxas takes; records the error if not.
pub(crate) fn branch_target_count_ok(k: &mut Kernel, n: usize) -> bool {
    let ok = (1..=MAX_BRANCH_TARGETS).contains(&n);
    if !ok {
        k.invalid(format!("a .branchtargets list holds 1 to {MAX_BRANCH_TARGETS} labels, not {n}"));
    }
    ok
}

/// The body of a kernel (`.entry`) or device function (`.func`) under construction: what
/// `Module::kernel` and `Module::func` hand their closure.
///
/// Instructions are added with [`ptx!`](crate::ptx) (any form of the tables) or the methods
/// below; errors (an out-of-range immediate, a register from another kernel, a bad label, an
/// instruction the target lacks) are collected and returned by `Module::kernel` /
/// `Module::func`, which check the body when it ends.
///
/// ```
/// use ptxkit::prelude::*;
///
/// let mut m = Module::new(Target::SM_80);
/// m.kernel("scale", |k, (x, a, n): (GlobalPtr<F32>, Reg<F32>, Reg<U32>)| {
///     let i = k.global_thread_index_x();
///     let inb = ptx!(k, "setp.lt.u32", i, n);
///     k.if_(inb, |k| {
///         let v = k.ld(x.at(i));
///         let r = ptx!(k, "mul.rn.f32", v, a);
///         k.st(x.at(i), r);
///     });
/// })?;
/// assert!(m.to_ptx()?.contains("mul.rn.f32"));
/// # Ok::<(), ptxkit::Error>(())
/// ```
///
/// Its own methods are the body's structure; instruction sequences are methods of extension
/// traits, one per module of [`intrinsics`](crate::intrinsics), implemented for `Kernel` only
/// and in scope with `use ptxkit::prelude::*`.
///
/// - **Control flow**: [`label`](Self::label), [`named_label`](Self::named_label),
///   [`place`](Self::place), [`bra`](Self::bra),
///   [`bra_if`](Self::bra_if), [`if_`](Self::if_), [`if_else`](Self::if_else),
///   [`while_`](Self::while_), [`for_range`](Self::for_range), [`loop_`](Self::loop_),
///   [`switch_`](Self::switch_), [`branch_targets`](Self::branch_targets),
///   [`guarded`](Self::guarded) (every instruction of a scope under a predicate),
///   [`ret`](Self::ret).
/// - **Declarations**: [`reg`](Self::reg), [`assign`](Self::assign),
///   [`zeroed_acc`](Self::zeroed_acc), [`shared_array`](Self::shared_array),
///   [`local_array`](Self::local_array), [`dynamic_shared`](Self::dynamic_shared) and
///   [`dynamic_shared_aligned`](Self::dynamic_shared_aligned),
///   [`alloca`](Self::alloca) and [`stack_frame`](Self::stack_frame).
/// - **Directives**: [`maxntid`](Self::maxntid), [`reqntid`](Self::reqntid),
///   [`minnctapersm`](Self::minnctapersm), [`maxnreg`](Self::maxnreg),
///   [`reqnctapercluster`](Self::reqnctapercluster), [`explicitcluster`](Self::explicitcluster),
///   [`maxclusterrank`](Self::maxclusterrank).
/// - **Calls**: [`call`](Self::call), [`call_uni`](Self::call_uni),
///   [`call_indirect`](Self::call_indirect) of the module's device functions, and
///   [`func_addr`](Self::func_addr).
/// - **Text**: [`comment`](Self::comment), [`raw`](Self::raw) (an unchecked line).
///
/// The extension traits:
///
/// - [`MemoryOps`](crate::intrinsics::order::MemoryOps): `ld` and `st` (weak, any state
///   space), `ld_ordered`, `st_ordered` and `fence` (with an ordering and a scope).
/// - [`VectorOps`](crate::intrinsics::vector::VectorOps): `vload`/`vstore` (vectors).
/// - [`ThreadIndex`](crate::intrinsics::thread::ThreadIndex): `global_thread_index_x`,
///   `thread_rank`, `lane_id`, `warp_size`.
/// - [`WarpOps`](crate::intrinsics::warp::WarpOps): `shfl`, `warp_reduce`, `warp_scan`,
///   `vote_all`, `ballot`, ...
/// - [`BlockOps`](crate::intrinsics::block::BlockOps): `block_reduce`, `block_scan`, ...
/// - [`BarrierOps`](crate::intrinsics::mbarrier::BarrierOps): `mbarriers` (bounded waits,
///   rings of stages), `init_barriers`, `cluster_sync`, `map_shared`.
/// - [`DescriptorOps`](crate::intrinsics::gmma::DescriptorOps): `gmma_desc` and
///   `tcgen05_desc` (shared-memory matrix descriptors).
pub struct Kernel {
    pub(crate) id: u32,
    pub(crate) module: u32,
    pub(crate) name: Arc<str>,
    pub(crate) kind: BodyKind,
    pub(crate) nregs: [u32; 6],
    /// Registers declared by name (`Kernel::named_reg`), in the order they were made.
    pub(crate) named: Vec<RegRef>,
    pub(crate) stmts: Segments<Stmt>,
    pub(crate) opnds: Segments<Opnd>,
    /// The calls and the texts (comments, raw lines) that statements name by index.
    pub(crate) calls: Vec<super::ir::CallStmt>,
    pub(crate) texts: Vec<Box<str>>,
    scratch: Vec<Opnd>,
    pub(crate) labels: Vec<LabelInfo>,
    pub(crate) params: Vec<String>,
    pub(crate) func_params: Vec<RegRef>,
    pub(crate) func_rets: Vec<RegRef>,
    /// The `.param` results of a device function of the `.param` ABI, as declared.
    pub(crate) func_ret_params: Vec<String>,
    /// A device function's linkage keyword with its space (`.visible `), or nothing.
    pub(crate) linkage: &'static str,
    /// The names of the `.param` variables declared in each open `{ }` block, the body's own
    /// scope first.
    pub(crate) blocks: Vec<Vec<String>>,
    pub(crate) locals: Vec<String>,
    pub(crate) local_names: Vec<String>,
    pub(crate) directives: Vec<Directive>,
    errors: Vec<Error>,
    /// The guard of a `Kernel::guarded` scope: every instruction emitted in it carries it.
    scope: Guard,
    /// The alignment the body asks of the launch's dynamic shared memory, if it uses it.
    pub(crate) dyn_smem: Option<u32>,
    /// Names made up so far by [`Kernel::fresh_name`].
    fresh: u32,
    /// Bytes of static `.shared` and `.local` arrays declared so far (with alignment).
    pub(crate) shared_bytes: u64,
    pub(crate) local_bytes: u64,
    /// Instructions so far (statements other than labels and comments).
    count: usize,
    /// The module's texturing mode (texture lookups of the other mode are errors).
    pub(crate) tex_mode: super::desc::TexMode,
    /// The distinct forms used so far, in order of first use: what the checks against the
    /// target and the version inference look at, so they never walk the statements.
    /// A statement names its form by its index here.
    pub(crate) forms: Vec<&'static FormDesc>,
    form_index: HashMap<usize, u32, BuildHasherDefault<AddrHash>>,
    /// Forms met lately (address, index), by a hash of their address: most instructions
    /// repeat one of them, and skip the map.
    recent: Box<[(usize, u32); 64]>,
    /// With line info on ([`crate::Module::set_line_info`]): the Rust source location that
    /// emitted each instruction, as (statement index, location), in statement order.
    pub(crate) line_info: bool,
    pub(crate) locs: Vec<(u32, &'static std::panic::Location<'static>)>,
    /// The location recorded instead of the caller's, for what the builder emits on a
    /// call's behalf (a kernel's parameter loads and closing `ret`: that `Module::kernel`).
    pub(crate) loc_override: Option<&'static std::panic::Location<'static>>,
    /// What the kernel's probes (recorded waits, timeline stamps) refer to.
    pub(crate) probes: super::probes::Probes,
    /// Whether the instruction whose operands are being lowered takes a special register
    /// as an operand (`mov`, `cvt`); other instructions get it read into a register first.
    pub(crate) sreg_direct: bool,
    /// The special registers (and `WARP_SZ`) read so far, in order of first use: the target
    /// check and the version inference look at them as at the forms.
    pub(crate) sregs: Vec<&'static str>,
    /// The signature of an imported body (linkage, kind, name, parameters, directives), as
    /// written: printed instead of the one the builder composes.
    pub(crate) header: Option<Box<str>>,
}

thread_local! {
    /// With line info: where the outermost instruction helper running now was called.
    static HELPER_CALLER: std::cell::Cell<Option<&'static std::panic::Location<'static>>> = const { std::cell::Cell::new(None) };
}

/// While alive, the instructions a helper emits (through closures, loops and other helpers
/// alike) take the location its caller called it from: `#[track_caller]` alone stops at the
/// first closure. The outermost helper wins. Nothing happens with line info off.
#[doc(hidden)]
pub struct HelperScope(bool);

impl HelperScope {
    #[track_caller]
    #[inline]
    pub fn enter(line_info: bool) -> HelperScope {
        if !line_info {
            return HelperScope(false);
        }
        let at = std::panic::Location::caller();
        HelperScope(HELPER_CALLER.with(|c| {
            c.get().is_none() && {
                c.set(Some(at));
                true
            }
        }))
    }
}

impl Drop for HelperScope {
    fn drop(&mut self) {
        if self.0 {
            HELPER_CALLER.with(|c| c.set(None));
        }
    }
}

/// Hashes form addresses cheaply (they are distinct and 8-aligned).
#[derive(Default)]
struct AddrHash(u64);
impl std::hash::Hasher for AddrHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, b: &[u8]) {
        for x in b {
            self.0 = (self.0 << 8 | *x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, v: usize) {
        self.0 = (v as u64 >> 3).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The value of an integer immediate operand.
fn int_imm(o: Option<&Opnd>) -> Option<i128> {
    o.and_then(Opnd::int_value)
}

impl Kernel {
    pub(crate) fn new(name: &str, module: u32, kind: BodyKind) -> Kernel {
        Kernel {
            id: fresh_id(),
            module,
            name: name.into(),
            kind,
            nregs: [0; 6],
            named: Vec::new(),
            stmts: Segments::with_capacity(64),
            opnds: Segments::with_capacity(192),
            calls: Vec::new(),
            texts: Vec::new(),
            scratch: Vec::new(),
            labels: Vec::new(),
            params: Vec::new(),
            func_params: Vec::new(),
            func_rets: Vec::new(),
            func_ret_params: Vec::new(),
            linkage: "",
            blocks: vec![Vec::new()],
            locals: Vec::new(),
            local_names: Vec::new(),
            directives: Vec::new(),
            errors: Vec::new(),
            scope: None,
            dyn_smem: None,
            fresh: 0,
            shared_bytes: 0,
            local_bytes: 0,
            count: 0,
            tex_mode: super::desc::TexMode::Unified,
            forms: Vec::new(),
            form_index: HashMap::default(),
            recent: Box::new([(0, 0); 64]),
            line_info: false,
            locs: Vec::new(),
            loc_override: None,
            probes: Default::default(),
            sreg_direct: true,
            sregs: Vec::new(),
            header: None,
        }
    }

    /// The kernel or function name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The typed forms of the body's instructions, in order (calls and text lines aside).
    pub fn instruction_forms(&self) -> impl Iterator<Item = &'static FormDesc> + '_ {
        self.stmts.iter().filter_map(|s| match s {
            Stmt::Ins { form, .. } => Some(self.forms[*form as usize]),
            _ => None,
        })
    }

    /// Number of instructions so far (labels and comments not counted).
    pub fn len(&self) -> usize {
        self.count
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A fresh register of a class.
    pub(crate) fn alloc(&mut self, class: RegClass) -> RegRef {
        self.nregs[class as usize] += 1;
        let n = self.nregs[class as usize];
        if n == RegRef::MAX_IDX + 1 {
            let e = Error::InvalidArgument {
                kernel: self.name.to_string(),
                what: format!("more than {} registers of one class", RegRef::MAX_IDX),
            };
            self.error(e);
        }
        RegRef::new(class, RegSpace::Body, n)
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

    /// A symbol name no other `fresh_name` of this body returns: `{prefix}_{n}`.
    pub(crate) fn fresh_name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}_{}", self.fresh - 1)
    }

    /// Appends operands to the arena as one run (a braced vector's elements).
    pub(crate) fn push_run(&mut self, ops: &[Opnd]) -> (u32, u16) {
        (self.opnds.push_run(ops), ops.len() as u16)
    }

    /// The operands of a run in the arena.
    pub(crate) fn run(&self, start: u32, len: usize) -> &[Opnd] {
        self.opnds.run(start, len)
    }

    /// Appends one instruction of a form; the operands are drained from `ops`. With line
    /// info on, records the caller's source location (through `#[track_caller]` callers:
    /// `ptx!`'s expansion names the user's line).
    #[track_caller]
    pub(crate) fn push_ins(&mut self, form: &'static FormDesc, guard: Guard, ops: &mut Vec<Opnd>) {
        // Immediates ptxas bounds beyond their type: `bar{.cta}.*` and `barrier{.cta}.*` (not
        // `bar.warp.sync` or `barrier.cluster.*`), `createpolicy` (a byte test first: this runs
        // for every instruction).
        let c = form.chain;
        if c.as_bytes().first() == Some(&b'b')
            && (c.starts_with("bar.") || c.starts_with("barrier."))
            && !c.starts_with("bar.warp")
            && !c.starts_with("barrier.cluster")
        {
            self.check_barrier_operands(form, ops);
        } else if c.as_bytes().first() == Some(&b'c') && c.starts_with("createpolicy.") {
            self.check_policy_operands(form, ops);
        }
        let addr = form as *const FormDesc as usize;
        let slot = &mut self.recent[(addr >> 3).wrapping_mul(0x9E37_79B9) >> 26 & 63];
        if slot.0 != addr {
            let forms = &mut self.forms;
            let index = *self.form_index.entry(addr).or_insert_with(|| {
                forms.push(form);
                forms.len() as u32 - 1
            });
            *slot = (addr, index);
        }
        let form = slot.1;
        let len = ops.len() as u16;
        let start = self.opnds.append(ops);
        self.stmts.push(Stmt::Ins { form, start, len, guard: PackedGuard::pack(guard) });
        self.count += 1;
        if self.line_info {
            // The outermost helper's caller, else the builder's stand-in, else the caller.
            // (Not `unwrap_or_else(Location::caller)`: called through `FnOnce`, that names
            // the standard library.)
            let at = self.source_location();
            self.locs.push((self.stmts.len() as u32 - 1, at));
        }
    }

    /// The Rust source location of what is being emitted: the outermost helper's caller
    /// (with line info on), else the builder's stand-in, else the caller. (Not
    /// `unwrap_or_else(Location::caller)`: called through `FnOnce`, that names the standard
    /// library.)
    #[track_caller]
    pub(crate) fn source_location(&self) -> &'static std::panic::Location<'static> {
        match (HELPER_CALLER.get(), self.loc_override) {
            (Some(at), _) | (None, Some(at)) => at,
            (None, None) => std::panic::Location::caller(),
        }
    }

    /// Immediates of `bar`/`barrier` that ptxas refuses: a barrier number beyond 15, a
    /// thread count that is not a positive multiple of the warp size.
    fn check_barrier_operands(&mut self, form: &'static FormDesc, ops: &[Opnd]) {
        let first = ops.len().saturating_sub(form.src.len());
        if let Some(id) = int_imm(ops.get(first)).filter(|id| !(0..=15).contains(id)) {
            self.invalid(format!("`{}`: barrier number {id} is outside 0..=15", form.chain));
        }
        // The thread count: the second operand of `sync`/`arrive` (where there are two), of
        // `red` where there are three (`d, a, b, {!}c`).
        let counted = if form.chain.contains(".red.") { form.src.len() == 3 } else { form.src.len() >= 2 };
        if let Some(n) = int_imm(ops.get(first + 1)).filter(|n| counted && (*n <= 0 || n % 32 != 0)) {
            self.invalid(format!("`{}`: thread count {n} is not a positive multiple of 32", form.chain));
        }
    }

    /// Immediates of `createpolicy` that ptxas refuses: a fraction outside (0, 1], a range's
    /// primary size above its total size.
    fn check_policy_operands(&mut self, form: &'static FormDesc, ops: &[Opnd]) {
        let first = ops.len().saturating_sub(form.src.len());
        if form.chain.starts_with("createpolicy.fractional") {
            if let Some(Opnd::F32(bits)) = ops.get(first) {
                let f = f32::from_bits(*bits);
                if !(f > 0.0 && f <= 1.0) {
                    self.invalid(format!("`{}`: fraction {f} is outside (0, 1]", form.chain));
                }
            }
        } else if form.chain.starts_with("createpolicy.range") {
            if let (Some(p), Some(t)) = (int_imm(ops.get(first + 1)), int_imm(ops.get(first + 2))) {
                if p > t {
                    self.invalid(format!("`{}`: primary size {p} exceeds the total size {t}", form.chain));
                }
            }
        }
    }

    /// Appends a `call` statement.
    pub(crate) fn push_call(&mut self, c: super::ir::CallStmt) {
        self.stmts.push(Stmt::Call(self.calls.len() as u32));
        self.calls.push(c);
        self.count += 1;
    }

    /// The guard of the enclosing `guarded` scope, if any.
    pub(crate) fn scope_guard(&self) -> Guard {
        self.scope
    }
    pub(crate) fn set_scope_guard(&mut self, g: Guard) -> Guard {
        std::mem::replace(&mut self.scope, g)
    }

    pub(crate) fn error(&mut self, e: Error) {
        self.errors.push(e);
    }
    pub(crate) fn invalid(&mut self, what: String) {
        let e = Error::InvalidArgument { kernel: self.name.to_string(), what };
        self.error(e);
    }
    #[inline]
    pub(crate) fn check_owner(&mut self, owner: u32, what: impl FnOnce() -> String) {
        if owner != self.id {
            self.foreign(what());
        }
    }
    #[cold]
    #[inline(never)]
    fn foreign(&mut self, what: String) {
        let e = Error::ForeignValue { kernel: self.name.to_string(), what };
        self.error(e);
    }
    pub(crate) fn check_module(&mut self, owner: u32, sym: &str) {
        if owner != self.module && owner != self.id {
            let e = Error::ForeignValue { kernel: self.name.to_string(), what: format!("symbol `{sym}`") };
            self.error(e);
        }
    }
    /// Records an error unless the module's texturing mode is `mode` (`what` names the
    /// operand that needs it).
    pub(crate) fn require_tex_mode(&mut self, mode: super::desc::TexMode, what: &str) {
        if self.tex_mode != mode {
            let (need, have) = (mode.name(), self.tex_mode.name());
            self.invalid(format!("{what} needs the {need} texturing mode; the module is in the {have} mode (Module::set_tex_mode)"));
        }
    }
    pub(crate) fn imm_error(&mut self, value: String, ty: &'static str) {
        let e = Error::ImmediateOutOfRange { kernel: self.name.to_string(), value, ty };
        self.error(e);
    }

    /// Raw PTX text, printed verbatim (with a trailing `;`). The escape hatch: nothing in it
    /// is checked, and its ISA needs are not inferred. Inside a `guarded` scope the scope's
    /// guard is written in front of it; raw text with a guard of its own is refused there.
    pub fn raw(&mut self, text: &str) {
        if text.contains(['\n', ';']) {
            self.invalid(format!("raw text `{text}` must be one instruction without `;` or newlines"));
            return;
        }
        let text = match self.scope {
            None => text.to_string(),
            Some(_) if text.trim_start().starts_with('@') => {
                self.invalid(format!("raw text `{text}` has a guard of its own inside a guarded scope"));
                return;
            }
            Some((r, neg)) => format!("{}{} {text}", if neg { "@!" } else { "@" }, r.name()),
        };
        self.stmts.push(Stmt::Raw(self.texts.len() as u32));
        self.texts.push(text.into());
        self.count += 1;
    }

    /// A line of imported text, printed as it is (see [`Stmt::Text`]).
    pub(crate) fn push_text(&mut self, text: String) {
        self.stmts.push(Stmt::Text(self.texts.len() as u32));
        self.texts.push(text.into());
    }

    /// `//` comment lines, one per line of `text` (any line break, `\r` and Unicode ones
    /// included). ptxas reads ASCII only: other characters, control characters and `\\`
    /// (which could continue the comment onto the next line) are written as `\u{..}`.
    pub fn comment(&mut self, text: &str) {
        for line in text.lines().flat_map(|l| l.split(['\r', '\u{85}', '\u{2028}', '\u{2029}'])) {
            let mut out = String::with_capacity(line.len());
            for c in line.chars() {
                if c == ' ' || c == '\t' || (c.is_ascii_graphic() && c != '\\') {
                    out.push(c);
                } else {
                    out.push_str(&format!("\\u{{{:x}}}", c as u32));
                }
            }
            self.stmts.push(Stmt::Comment(self.texts.len() as u32));
            self.texts.push(out.into());
        }
    }

    // ---- labels ------------------------------------------------------------------------------

    /// A new label, placed later with [`Kernel::place`].
    pub fn label(&mut self) -> Label {
        self.labels.push(LabelInfo { name: None, placed: false, used: false });
        Label { id: self.labels.len() as u32 - 1, owner: self.id }
    }

    /// A new label with a chosen name (a PTX identifier, unique in this body). A name of the
    /// `$` names compilers write (`$L__BB0_1`, `$L__tmp3`) is taken too, but not the
    /// builder's own `$L__` and a number.
    pub fn named_label(&mut self, name: &str) -> Label {
        let ours = name.strip_prefix("$L__").is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        let checked = match name.strip_prefix('$') {
            Some(rest) if !ours => check_ident(&format!("L{rest}")).map_err(|_| check_ident(name).unwrap_err()),
            _ => check_ident(name),
        };
        if let Err(e) = checked {
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

    /// A `.branchtargets` list of `targets` (labels of this body, placed before or after),
    /// declared here, for [`brx.idx`](crate::ops::control): `brx.idx index, list` continues at
    /// `targets[index]`. PTX leaves an index past the end undefined; `Kernel::switch_`
    /// checks it. An empty list, or more than [`MAX_BRANCH_TARGETS`] targets, is an error.
    pub fn branch_targets(&mut self, targets: &[Label]) -> BranchTargets {
        let list = self.label();
        if !branch_target_count_ok(self, targets.len()) {
            return BranchTargets(list);
        }
        let mut ops = Vec::with_capacity(targets.len());
        for &t in targets {
            if t.owner != self.id {
                self.check_owner(t.owner, || "a label".into());
                return BranchTargets(list);
            }
            self.use_label(t);
            ops.push(Opnd::Label(t.id));
        }
        let (start, len) = self.push_run(&ops);
        self.labels[list.id as usize].placed = true;
        self.stmts.push(Stmt::Targets { label: list.id, start, len });
        BranchTargets(list)
    }

    /// Records a branch to `l` (it must be placed before the body ends).
    pub(crate) fn use_label(&mut self, l: Label) {
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

    /// Every instruction and directive of the body against `target`, in order of first use:
    /// one the target lacks is an error naming the oldest targets that have it.
    pub(crate) fn check_target(&mut self, target: Target) {
        let bad = self.isa_reqs().find_map(|(key, req)| match req {
            None => Some(Error::NoIsaData { instruction: key.into_owned() }),
            Some(r) if !r.allows(target) => Some(Error::Unsupported {
                kernel: self.name.to_string(),
                instruction: key.into_owned(),
                needs: format!("{} (PTX ISA {})", r.targets_words(), r.version),
                target: target.to_string(),
            }),
            Some(_) => None,
        });
        if let Some(e) = bad {
            self.errors.push(e);
        }
    }

    /// Every distinct instruction, directive and special register of the body, with what
    /// the ISA data records for it (`None`: nothing, the table needs a sweep): what the
    /// target check and the `.version` inference read.
    pub(crate) fn isa_reqs(&self) -> impl Iterator<Item = (std::borrow::Cow<'static, str>, Option<isa::Req>)> + '_ {
        let forms = self.forms.iter().map(|f| (f.isa_key(), f.req()));
        let directives = self.directives.iter().map(|d| (d.keyword().into(), isa::form_req(d.keyword())));
        forms.chain(directives).chain(self.sregs.iter().map(|&r| (r.into(), isa::form_req(r))))
    }

    /// Ends the body: every label branched to is placed, and no error was met.
    pub(crate) fn finish(&mut self) -> Result<(), Error> {
        self.check_named();
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
