//! The untyped instruction list under the typed facade. Typed calls lower at once to
//! [`Stmt::Ins`]: a form descriptor, an optional guard and a run of plain operands.

use super::desc::FormDesc;
use super::dtype::RegClass;
use super::sel::Sel;
use std::sync::Arc;

// The IR is the builder's hot path: keep its pieces small.
const _: () = assert!(std::mem::size_of::<Opnd>() == 16 && std::mem::size_of::<Stmt>() == 24);

/// Which name space a register lives in: ordinary body registers, `.func` parameters
/// or `.func` return values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegSpace {
    Body,
    FuncParam,
    FuncRet,
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
        [RegSpace::Body, RegSpace::FuncParam, RegSpace::FuncRet][(self.0 >> 3 & 3) as usize]
    }
    pub fn idx(self) -> u32 {
        self.0 >> 5
    }
}

/// Base of an address operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AddrBase {
    Reg(RegRef),
    /// An interned symbol name.
    Sym(u32),
}

/// A plain operand. Braced vectors are runs of operands in the body's operand arena, so
/// an operand is 16 bytes and `Copy`, and a vector of any length costs no allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Opnd {
    Reg(RegRef),
    /// `!p`
    NotPred(RegRef),
    Int(i64),
    UInt(u64),
    /// `0fXXXXXXXX`
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`
    F64(u64),
    /// `[base+off]`
    Addr(AddrBase, i32),
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

/// A guard `@p` or `@!p`.
pub type Guard = Option<(RegRef, bool)>;

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
}

/// One statement of a body.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `ops`: start and length of the operands in the body's operand arena.
    Ins {
        form: &'static FormDesc,
        guard: Guard,
        ops: (u32, u16),
    },
    /// `call (rets), name, (args);`
    Call(Box<CallStmt>),
    Label(u32),
    /// `label: .branchtargets t0, t1, ...;`: the label of the list, and the targets (label
    /// operands) as a run in the operand arena.
    Targets {
        label: u32,
        targets: (u32, u16),
    },
    Comment(Box<str>),
    /// Unchecked text from the escape hatch, printed verbatim with a `;` (a guard in scope
    /// is already written into it).
    Raw(Box<str>),
}
