//! The untyped instruction list under the typed facade. Typed calls lower at once to
//! [`Stmt::Ins`]: a form descriptor, an optional guard and a run of plain operands.

use super::dtype::RegClass;
use super::sel::Sel;
use std::sync::Arc;

// The IR is the builder's hot path: keep its pieces small.
// (At 10^6 instructions the builder's time is mostly page faults on its memory.)
const _: () = assert!(std::mem::size_of::<Opnd>() == 12 && std::mem::size_of::<Stmt>() == 16);

/// Which name space a register lives in: ordinary body registers, `.func` parameters,
/// `.func` return values, or registers of imported text, which keep the name they were
/// declared with (`Module::from_ptx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegSpace {
    Body,
    FuncParam,
    FuncRet,
    /// The index is the interned name (`crate::core::names`).
    Named,
}

/// A register as the IR sees it: class, name space and index packed in 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegRef(u32);

impl RegRef {
    /// The largest register index (2^27 - 1).
    pub const MAX_IDX: u32 = (1 << 27) - 1;
    pub fn new(class: RegClass, space: RegSpace, idx: u32) -> RegRef {
        RegRef((idx.min(Self::MAX_IDX) << 5) | (space as u32) << 3 | class as u32)
    }
    pub fn class(self) -> RegClass {
        RegClass::ALL[(self.0 & 7) as usize]
    }
    pub fn space(self) -> RegSpace {
        [RegSpace::Body, RegSpace::FuncParam, RegSpace::FuncRet, RegSpace::Named][(self.0 >> 3 & 3) as usize]
    }
    pub fn idx(self) -> u32 {
        self.0 >> 5
    }
    /// The register's name before its index: the space's prefix (none for a body register,
    /// `%pa` for a function parameter, `%rv` for a return value) and the class's (`%r`,
    /// `_rd`, ...): `%r7`, `%pa_r1`, `%rv_rd0`. A named register has no prefix: see
    /// [`RegRef::name`].
    pub fn prefix(self) -> (&'static str, &'static str) {
        let class = self.class().prefix();
        match self.space() {
            RegSpace::Body => ("", class),
            RegSpace::FuncParam => ("%pa", &class[1..]),
            RegSpace::FuncRet => ("%rv", &class[1..]),
            RegSpace::Named => ("", ""),
        }
    }
    /// The register's name as PTX writes it: `%r7`, `%pa_r1`, or an imported name.
    pub fn name(self) -> String {
        match self.space() {
            RegSpace::Named => super::names::sym_name(self.idx()).to_string(),
            _ => {
                let (space, class) = self.prefix();
                format!("{space}{class}{}", self.idx())
            }
        }
    }
}

/// Base of an address operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AddrBase {
    Reg(RegRef),
    /// An interned symbol name.
    Sym(u32),
}

/// A 64-bit value held as two 32-bit halves, so that an operand aligns to 4 bytes and
/// takes 12 rather than 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bits64([u32; 2]);

impl From<u64> for Bits64 {
    fn from(v: u64) -> Bits64 {
        Bits64::new(v)
    }
}

impl Bits64 {
    pub const fn new(v: u64) -> Bits64 {
        Bits64([v as u32, (v >> 32) as u32])
    }
    pub const fn get(self) -> u64 {
        self.0[0] as u64 | (self.0[1] as u64) << 32
    }
}

/// A plain operand. Braced vectors are runs of operands in the body's operand arena, so
/// an operand is 12 bytes and `Copy`, and a vector of any length costs no allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Opnd {
    Reg(RegRef),
    /// `!p`
    NotPred(RegRef),
    /// A signed immediate (see [`Opnd::int`]).
    Int(Bits64),
    /// An unsigned immediate (see [`Opnd::uint`]).
    UInt(Bits64),
    /// `0fXXXXXXXX`
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`
    F64(Bits64),
    /// `[reg+off]`
    Addr(RegRef, i32),
    /// `[symbol+off]`, the symbol interned
    SymAddr(u32, i32),
    /// `[reg+0]`: a zero offset written out, as imported text has it. ptxas without
    /// optimisation (`-G`) assembles it as an add where `[reg]` is a move.
    AddrZero(RegRef),
    /// `[symbol+0]` (see [`Opnd::AddrZero`]).
    SymAddrZero(u32),
    /// An interned name printed verbatim: a symbol used as a value (`mov.u64 %rd1, table;`)
    /// or a special register (`%tid.x`).
    Sym(u32),
    /// `{a, b, ...}`: `len` operands from `start` in the operand arena.
    Vec {
        start: u32,
        len: u16,
    },
    /// `[h0, .., {c0, c1, ...}]`: `handles` opaque handles (a tensor map's address; a
    /// texture, a sampler or a surface, in a register or by name) then `coords` coordinates,
    /// one run in the operand arena; `[h0]` when there are no coordinates.
    HandleAddr {
        start: u32,
        handles: u8,
        coords: u8,
    },
    /// `d|p`
    Pair(RegRef, RegRef),
    /// `_|p`
    SinkPair(RegRef),
    /// A register with a part selector, negated where `neg`: `%r1.b1`, `-%r2.h0`.
    Part {
        reg: RegRef,
        sel: Sel,
        neg: bool,
    },
    /// `{d0, d1, ...}|p`: a braced run of destinations and a predicate.
    VecPred {
        start: u32,
        len: u16,
        pred: RegRef,
    },
    Label(u32),
    /// `_`
    Sink,
}

impl Opnd {
    pub const fn int(v: i64) -> Opnd {
        Opnd::Int(Bits64::new(v as u64))
    }
    pub const fn uint(v: u64) -> Opnd {
        Opnd::UInt(Bits64::new(v))
    }
    /// `0d...` with the bits of an f64.
    pub const fn f64_bits(v: u64) -> Opnd {
        Opnd::F64(Bits64::new(v))
    }
    /// `[base+off]`
    pub const fn addr(base: AddrBase, off: i32) -> Opnd {
        match base {
            AddrBase::Reg(r) => Opnd::Addr(r, off),
            AddrBase::Sym(s) => Opnd::SymAddr(s, off),
        }
    }
    /// The value of an integer immediate.
    pub fn int_value(&self) -> Option<i128> {
        match self {
            Opnd::Int(v) => Some(v.get() as i64 as i128),
            Opnd::UInt(v) => Some(v.get() as i128),
            _ => None,
        }
    }
}

/// A guard `@p` or `@!p`.
pub type Guard = Option<(RegRef, bool)>;

/// A [`Guard`] in 32 bits, as a statement holds it: 0 for none, else the predicate's
/// register with bit 0 set and bit 1 the negation (a predicate's class bits are 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedGuard(u32);

impl PackedGuard {
    pub fn pack(g: Guard) -> PackedGuard {
        match g {
            None => PackedGuard(0),
            Some((r, neg)) => {
                debug_assert_eq!(r.class(), RegClass::Pred, "a guard is a predicate");
                PackedGuard(r.0 & !7 | 1 | (neg as u32) << 1)
            }
        }
    }
    pub fn unpack(self) -> Guard {
        (self.0 != 0).then_some((RegRef(self.0 & !7), self.0 & 2 != 0))
    }
}

/// What a `call` calls: a function by name, or the address in a register (through a
/// `.callprototype` of the call's parameter list).
#[derive(Clone, Debug)]
pub enum Callee {
    Direct(Arc<str>),
    Indirect(RegRef),
}

/// `call{.uni} (rets), func, (args);`. With the `.reg` ABI the values are the call's
/// operands; with the `.param` ABI (`param`) the call is a block that declares a `.param`
/// per value, stores the arguments, calls with the `.param` names and loads the results.
#[derive(Clone, Debug)]
pub struct CallStmt {
    pub guard: Guard,
    pub func: Callee,
    pub rets: Vec<Opnd>,
    pub args: Vec<Opnd>,
    pub uni: bool,
    pub param: bool,
    /// The `.callprototype` a call through an address names, where the body declares it
    /// itself (`call (r), %rd1, (a), prototype_0;`).
    pub proto: Option<Arc<str>>,
}

/// One statement of a body: `Copy`, with no heap parts of its own (a call and a text are
/// held by the body and named by index), so a body's statements drop without a walk.
#[derive(Clone, Copy, Debug)]
pub enum Stmt {
    /// `form`: the index of the form among the body's distinct forms (`Kernel::forms`);
    /// `start`, `len`: the operands' run in the body's operand arena.
    Ins {
        form: u32,
        start: u32,
        len: u16,
        guard: PackedGuard,
    },
    /// `call (rets), name, (args);`: the index of the body's call.
    Call(u32),
    Label(u32),
    /// `label: .branchtargets t0, t1, ...;`: the label of the list, and the targets (label
    /// operands) as a run in the operand arena.
    Targets {
        label: u32,
        start: u32,
        len: u16,
    },
    /// A comment line: the index of the body's text.
    Comment(u32),
    /// Unchecked text from the escape hatch, printed verbatim with a `;` (a guard in scope
    /// is already written into it): the index of the body's text.
    Raw(u32),
    /// A line of imported text kept as written (a declaration, a directive, a block's
    /// brace, a call of the `.param` ABI), printed as it is: the index of the body's text.
    Text(u32),
}
