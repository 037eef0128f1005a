//! The untyped instruction list under the typed facade. Typed calls lower at once to
//! [`Stmt::Ins`]: a form descriptor, an optional guard and a run of plain operands.

use crate::ops::FormDesc;
use crate::types::RegClass;
use std::sync::Arc;

/// Which name space a register lives in: ordinary body registers, `.func` parameters
/// or `.func` return values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegSpace {
    Body,
    FuncParam,
    FuncRet,
}

/// A register as the IR sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegRef {
    pub class: RegClass,
    pub space: RegSpace,
    pub idx: u32,
}

/// Base of an address operand.
#[derive(Clone, Debug, PartialEq)]
pub enum AddrBase {
    Reg(RegRef),
    /// Index into the body's symbol table.
    Sym(u32),
}

/// A plain operand.
#[derive(Clone, Debug, PartialEq)]
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
    /// A special register or predefined constant, verbatim.
    SReg(&'static str),
    /// `[base+off]`
    Addr(AddrBase, i64),
    /// A symbol used as a value (`mov.u64 %rd1, table;`), by symbol-table index.
    Sym(u32),
    /// `{a, b, ...}`
    Vec(Box<[Opnd]>),
    /// `d|p`
    Pair(RegRef, RegRef),
    Label(u32),
    /// `_`
    Sink,
}

/// A guard `@p` or `@!p`.
pub type Guard = Option<(RegRef, bool)>;

/// `call (rets), func, (args);`
#[derive(Clone, Debug)]
pub struct CallStmt {
    pub guard: Guard,
    pub func: Arc<str>,
    pub rets: Vec<Opnd>,
    pub args: Vec<Opnd>,
}

/// One statement of a body.
#[derive(Clone, Debug)]
pub enum Stmt {
    Ins {
        form: &'static FormDesc,
        guard: Guard,
        ops: (u32, u32),
    },
    /// `call (rets), name, (args);`
    Call(Box<CallStmt>),
    Label(u32),
    Comment(String),
    /// Unchecked text from the escape hatch, printed verbatim with a `;`.
    Raw(String),
}
