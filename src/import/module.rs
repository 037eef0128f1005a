//! PTX text into a [`Module`]: [`Module::from_ptx`]. Each instruction of each function
//! becomes a statement of the builder's IR with its typed form, so the module's checks (the
//! target, the `.version`) apply to it and the printer writes it; the builder then adds
//! kernels and functions beside it, or replaces some.
//!
//! What the IR has no statement for is kept as text, in place: the signature of an imported
//! function, its declarations (`.reg`, `.shared`, `.local`, a call's `.param`s), the braces
//! of nested blocks, `.loc` and `.pragma`, `.callprototype` and `.calltargets`, and `call`s.
//! So are module variables, `.file` lines and `.section` blocks. Registers keep their
//! declared names ([`RegSpace::Named`]); labels keep theirs.

use super::ast::{self, Arena, Arg, Function, Instruction, Span};
use super::parse::{parse, ParseError};
use super::print;
use super::resolve::{resolve_in, Decls, Finding, FindingKind};
use crate::core::ir::{Opnd, RegRef, RegSpace, Stmt};
use crate::core::kernel::BodyKind;
use crate::core::module::Item;
use crate::core::names::intern;
use crate::core::{DType, Error, Kernel, Kind, Label, Module, RegClass, Target, TexMode, Version};
use std::collections::HashMap;
use std::fmt;

/// Why PTX text did not become a [`Module`].
#[derive(Clone, Debug, PartialEq)]
pub enum ImportError {
    /// The text is not PTX.
    Parse(ParseError),
    /// An instruction names no typed form (a chain the tables lack, operands no form of the
    /// chain takes, or several forms that take them).
    Unresolved(Finding),
    /// Something a module does not hold, at its position: `.address_size 32`, a target
    /// the crate does not know, a guard on a register not declared `.pred`.
    Unsupported { span: Span, what: String },
    /// A function the module's checks refuse: an instruction the target lacks, a
    /// `.version` too old for an instruction, a name defined twice.
    Build(Error),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ImportError::Parse(e) => e.fmt(f),
            ImportError::Unresolved(e) => {
                // The finding's own text after its `line:column: `.
                let text = e.to_string();
                let what = text.split_once(": ").map_or(text.as_str(), |(_, w)| w);
                write!(f, "line {}, column {}: {what}", e.span.line, e.span.col)
            }
            ImportError::Unsupported { span, what } => write!(f, "line {}, column {}: {what}", span.line, span.col),
            ImportError::Build(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ImportError {}

impl From<ParseError> for ImportError {
    fn from(e: ParseError) -> ImportError {
        ImportError::Parse(e)
    }
}

impl Module {
    /// The module of PTX text (what nvcc, Triton or a hand writes): its target, `.version`,
    /// variables and functions, each instruction resolved to its typed form. Kernels and
    /// functions added with the builder go after the imported ones; a name the text defines
    /// cannot be defined again, and [`Module::remove`] takes one out to replace it.
    /// [`Module::to_ptx`] prints it, checked against the target as a built module is; ptxas
    /// assembles the print to the same code as the text.
    ///
    /// ```
    /// use ptxkit::prelude::*;
    ///
    /// let nvcc = ".version 8.0\n.target sm_80\n.address_size 64\n\
    ///     .visible .entry twice(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
    ///     ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
    ///     ld.global.u32 %r1, [%rd2];\nshl.b32 %r2, %r1, 1;\nst.global.u32 [%rd2], %r2;\nret;\n}\n";
    /// let mut m = Module::from_ptx(nvcc)?;
    /// assert_eq!(m.target(), Target::SM_80);
    /// // Beside it, a kernel from the builder.
    /// m.kernel("thrice", |k, (x,): (GlobalPtr<U32>,)| {
    ///     let v = ptx!(k, "ld.global.u32", x.at(0u32));
    ///     let t = ptx!(k, "mul.lo.u32", v, 3u32);
    ///     ptx!(k, "st.global.u32", x.at(0u32), t);
    /// })?;
    /// let text = m.to_ptx()?;
    /// assert!(text.contains("\tshl.b32 %r2, %r1, 1;") && text.contains(".entry thrice("));
    /// // A name the text defines is taken.
    /// assert!(m.kernel("twice", |_, (): ()| {}).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_ptx(text: &str) -> Result<Module, ImportError> {
        let arena = Arena::new();
        let file = parse(text, &arena)?;
        let mut m = header(&file)?;
        for item in &file.items {
            match item {
                ast::Item::Version(..) | ast::Item::Target(..) | ast::Item::AddressSize(..) => {}
                ast::Item::Function(f) if f.body.is_some() => {
                    m.claim_imported(f.name).map_err(ImportError::Build)?;
                    let k = import_function(&m, f)?;
                    m.items.push(Item::Body(k));
                }
                ast::Item::Var(v) => {
                    for n in v.names {
                        if !v.linkage.contains(&".extern") {
                            m.claim_imported(n.name).map_err(ImportError::Build)?;
                        }
                    }
                    m.items.push(Item::Var(item_text(item)));
                }
                _ => m.items.push(Item::Var(item_text(item))),
            }
        }
        Ok(m)
    }
}

/// The text of a module-level item other than a version, target or address size, without
/// its trailing line break (the module printer adds a blank line).
fn item_text(item: &ast::Item) -> String {
    let mut s = String::new();
    print::item(&mut s, item);
    s.trim_matches('\n').to_string()
}

/// A module for the file's `.target`, `.version` and `.address_size`.
fn header(file: &ast::File) -> Result<Module, ImportError> {
    let mut target = None;
    let mut version = None;
    let mut options = Vec::new();
    let mut tex_mode = TexMode::Unified;
    for item in &file.items {
        match item {
            ast::Item::Version(v, span) => {
                let v = Version::parse(v).ok_or_else(|| unsupported(*span, format!("`.version {v}` is not a PTX version")))?;
                version = Some(v);
            }
            ast::Item::Target(words, span) => {
                for &w in *words {
                    match w {
                        "texmode_independent" => tex_mode = TexMode::Independent,
                        "texmode_unified" => tex_mode = TexMode::Unified,
                        "debug" | "map_f64_to_f32" => options.push(w.to_string()),
                        t => match Target::parse(t) {
                            Some(t) if target.is_none() => target = Some(t),
                            Some(_) => return Err(unsupported(*span, "a module has one target")),
                            None => return Err(unsupported(*span, format!("`{t}` is not a target this crate knows"))),
                        },
                    }
                }
            }
            ast::Item::AddressSize(n, span) if *n != 64 => {
                return Err(unsupported(*span, format!("`.address_size {n}`: modules are 64-bit")));
            }
            _ => {}
        }
    }
    let target = target.ok_or_else(|| unsupported(Span::default(), "the text has no `.target`"))?;
    let mut m = Module::new(target);
    if let Some(v) = version {
        m.set_version(v);
    }
    m.tex_mode = tex_mode;
    m.target_options = options;
    Ok(m)
}

/// [`ImportError::Unsupported`] at `span`.
pub(crate) fn unsupported(span: Span, what: impl Into<String>) -> ImportError {
    ImportError::Unsupported { span, what: what.into() }
}

/// What a name in a body stands for.
#[derive(Clone, Copy)]
enum Name {
    Reg(RegRef),
    Label(Label),
}

/// The register class of a `.reg` type.
fn reg_class(ty: &str) -> RegClass {
    match DType::from_name(ty.trim_start_matches('.')) {
        Some(t) => t.class(),
        // `.f16x2`, `.bf16x2` and the like: 32 bits.
        None => RegClass::B32,
    }
}

/// The body of `f`, built in `m`'s body for its name, checked against the module's target.
fn import_function(m: &Module, f: &Function) -> Result<Kernel, ImportError> {
    let kind = match f.kind {
        ast::FunctionKind::Entry => BodyKind::Entry,
        ast::FunctionKind::Func => BodyKind::Func,
    };
    let mut k = m.new_body(f.name, kind);
    k.line_info = false;
    let mut h = String::new();
    print::header(&mut h, f);
    k.header = Some(h.trim_end_matches('\n').into());
    let body = f.body.unwrap_or_default();
    let mut names = HashMap::new();
    // Parameters of a `.reg` ABI function, then the body's registers and labels, by name.
    for d in f.rets.iter().chain(&f.params).copied().flatten().filter(|d| d.space == ".reg") {
        for n in d.names {
            names.insert(n.name.to_string(), Name::Reg(RegRef::new(reg_class(d.ty), RegSpace::Named, intern(n.name))));
        }
    }
    let decls = Decls::of(f);
    let mut cx = Cx { k, scopes: vec![names], decls };
    cx.block(body)?;
    let mut k = cx.k;
    if !m.unchecked {
        k.check_target(m.target);
    }
    k.finish().map_err(ImportError::Build)?;
    Ok(k)
}

/// Names the registers and labels a block declares (not those of the blocks inside it,
/// which are scopes of their own: Triton's inline assembly repeats a label in each block).
fn declare(k: &mut Kernel, names: &mut HashMap<String, Name>, body: &[ast::Stmt]) {
    for s in body {
        match s {
            ast::Stmt::Decl(v) if v.space == ".reg" => {
                let class = reg_class(v.ty);
                for name in v.names.iter().flat_map(ast::VarName::names) {
                    let r = RegRef::new(class, RegSpace::Named, intern(&name));
                    names.insert(name, Name::Reg(r));
                }
            }
            ast::Stmt::Label(l, _) | ast::Stmt::BranchTargets { label: l, .. } => {
                let label = k.label();
                k.labels[label.id as usize].name = Some(l.to_string());
                names.insert(l.to_string(), Name::Label(label));
            }
            _ => {}
        }
    }
}

struct Cx {
    k: Kernel,
    /// The names in scope, innermost block last.
    scopes: Vec<HashMap<String, Name>>,
    decls: Decls,
}

impl Cx {
    /// What `name` stands for in the innermost scope that declares it.
    fn name(&self, name: &str) -> Option<Name> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// A block's statements, in a scope of their own.
    fn block(&mut self, body: &[ast::Stmt]) -> Result<(), ImportError> {
        let mut names = HashMap::new();
        declare(&mut self.k, &mut names, body);
        self.scopes.push(names);
        for s in body {
            self.stmt(s)?;
        }
        self.scopes.pop();
        Ok(())
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Result<(), ImportError> {
        match s {
            ast::Stmt::Label(l, span) => {
                let Some(Name::Label(label)) = self.name(l) else {
                    return Err(unsupported(*span, format!("`{l}` is declared as a label and a register")));
                };
                self.k.place(label);
            }
            ast::Stmt::BranchTargets { label, targets, span } => {
                let Some(Name::Label(list)) = self.name(label) else {
                    return Err(unsupported(*span, format!("`{label}` is declared as a label and a register")));
                };
                let mut ops = Vec::with_capacity(targets.len());
                for t in *targets {
                    let Some(Name::Label(t)) = self.name(t) else {
                        return Err(unsupported(*span, format!("`{t}` is not a label of the function")));
                    };
                    self.k.use_label(t);
                    ops.push(Opnd::Label(t.id));
                }
                let (start, len) = self.k.push_run(&ops);
                self.k.labels[list.id as usize].placed = true;
                self.k.stmts.push(Stmt::Targets { label: list.id, start, len });
            }
            ast::Stmt::Block(b, _) => {
                self.k.push_text("\t{".into());
                self.block(b)?;
                self.k.push_text("\t}".into());
            }
            ast::Stmt::Ins(i) => self.instruction(i)?,
            other => {
                let mut t = String::new();
                print::stmt(&mut t, other, 1);
                self.k.push_text(t.trim_end_matches('\n').to_string());
            }
        }
        Ok(())
    }

    fn instruction(&mut self, i: &Instruction) -> Result<(), ImportError> {
        let form = match resolve_in(i, &self.decls) {
            Ok(r) => r.form,
            Err(Finding { kind: FindingKind::Call, .. }) => {
                let mut t = String::from("\t");
                print::instruction(&mut t, i);
                self.k.push_text(t);
                return Ok(());
            }
            Err(f) => return Err(ImportError::Unresolved(f)),
        };
        let guard = match i.guard {
            None => None,
            Some((neg, p)) => match self.name(p) {
                Some(Name::Reg(r)) if r.class() == RegClass::Pred => Some((r, neg)),
                _ => return Err(unsupported(i.span, format!("the guard `{p}` is not a register declared `.pred`"))),
            },
        };
        let first = i.operands.len().saturating_sub(form.src.len());
        let mut ops = Vec::with_capacity(i.operands.len());
        for (n, a) in i.operands.iter().enumerate() {
            let kind = n.checked_sub(first).and_then(|j| form.src.get(j));
            let o = self.operand(a, float_of(kind));
            ops.push(o);
        }
        self.k.push_ins(form, guard, &mut ops);
        Ok(())
    }

    /// The IR operand of `a`. A shape the IR has no operand for (a part selector, a
    /// negation, a call's list) is kept as its text, as a symbol.
    fn operand(&mut self, a: &Arg, float: Option<DType>) -> Opnd {
        let verbatim = |a: &Arg| {
            let mut s = String::new();
            print::arg(&mut s, a);
            Opnd::Sym(intern(&s))
        };
        match *a {
            Arg::Name(n) => match self.name(n) {
                Some(Name::Reg(r)) => Opnd::Reg(r),
                Some(Name::Label(l)) => {
                    self.k.use_label(l);
                    Opnd::Label(l.id)
                }
                None => Opnd::Sym(intern(n)),
            },
            Arg::Number(s) => number(s, float).unwrap_or_else(|| verbatim(a)),
            Arg::Sink => Opnd::Sink,
            Arg::Not(p) => match *p {
                Arg::Name(n) => match self.name(n) {
                    Some(Name::Reg(r)) => Opnd::NotPred(r),
                    _ => verbatim(a),
                },
                _ => verbatim(a),
            },
            Arg::Vector(v) => {
                let els: Vec<Opnd> = v.iter().map(|e| self.operand(e, float)).collect();
                let (start, len) = self.k.push_run(&els);
                Opnd::Vec { start, len }
            }
            Arg::Pair(x, p) => match (self.reg(x), *x, self.reg(p)) {
                (Some(d), _, Some(p)) => Opnd::Pair(d, p),
                (None, Arg::Sink, Some(p)) => Opnd::SinkPair(p),
                (None, Arg::Vector(v), Some(pred)) => {
                    let els: Vec<Opnd> = v.iter().map(|e| self.operand(e, float)).collect();
                    let (start, len) = self.k.push_run(&els);
                    Opnd::VecPred { start, len, pred }
                }
                _ => verbatim(a),
            },
            Arg::Address(v) => self.address(v).unwrap_or_else(|| verbatim(a)),
            Arg::Offset(..) | Arg::Neg(_) | Arg::Part(..) | Arg::Call(..) | Arg::Paren(_) => verbatim(a),
        }
    }

    fn reg(&self, a: &Arg) -> Option<RegRef> {
        match a {
            Arg::Name(n) => match self.name(n) {
                Some(Name::Reg(r)) => Some(r),
                _ => None,
            },
            _ => None,
        }
    }

    /// `[base]`, `[base+off]`, `[h0, .., {c0, ..}]`.
    fn address(&mut self, v: &[Arg]) -> Option<Opnd> {
        let base = |cx: &Cx, a: &Arg| -> Option<Result<RegRef, u32>> {
            match a {
                Arg::Name(n) => Some(cx.reg(a).ok_or_else(|| intern(n))),
                Arg::Number(n) => Some(Err(intern(n))),
                _ => None,
            }
        };
        match v {
            [Arg::Offset((b, text))] => {
                let off = offset(text)?;
                // `+0` stays written out (see `Opnd::AddrZero`).
                Some(match (base(self, b)?, off) {
                    (Ok(r), 0) if *text == "+0" => Opnd::AddrZero(r),
                    (Err(s), 0) if *text == "+0" => Opnd::SymAddrZero(s),
                    (Ok(r), _) => Opnd::Addr(r, off),
                    (Err(s), _) => Opnd::SymAddr(s, off),
                })
            }
            [a @ (Arg::Name(_) | Arg::Number(_))] => Some(match base(self, a)? {
                Ok(r) => Opnd::Addr(r, 0),
                Err(s) => Opnd::SymAddr(s, 0),
            }),
            [handles @ .., last] => {
                let (handles, coords): (&[Arg], &[Arg]) = match last {
                    Arg::Vector(c) => (handles, c),
                    _ => (v, &[]),
                };
                if handles.iter().any(|h| !matches!(h, Arg::Name(_))) || handles.len() > 255 || coords.len() > 255 {
                    return None;
                }
                let mut run: Vec<Opnd> = handles.iter().map(|h| self.operand(h, None)).collect();
                run.extend(coords.iter().map(|c| self.operand(c, None)));
                let (start, _) = self.k.push_run(&run);
                Some(Opnd::HandleAddr { start, handles: handles.len() as u8, coords: coords.len() as u8 })
            }
            [] => None,
        }
    }
}

/// The float type a number at an operand of kind `k` is read as, if any.
fn float_of(k: Option<&Kind>) -> Option<DType> {
    match k? {
        Kind::Val(t) | Kind::Imm(t) | Kind::Vec(t, _) if matches!(t, DType::F32 | DType::F64) => Some(*t),
        _ => None,
    }
}

/// An address offset as written (`+16`, `-8`, `+-8`, `+0x10`).
pub(crate) fn offset(s: &str) -> Option<i32> {
    let (neg, rest) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => return None,
    };
    let (neg2, rest) = match rest.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let v = int_value(rest)? as i128;
    let v = if neg != neg2 { -v } else { v };
    i32::try_from(v).ok()
}

/// The value of an unsigned integer literal: decimal, `0x`, octal `0…`, `0b`, with an
/// optional `U`.
fn int_value(s: &str) -> Option<u64> {
    let s = s.strip_suffix(['U', 'u']).unwrap_or(s);
    let (radix, digits) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, h)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (2, b)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// A number as an immediate operand: an integer in any spelling, `0f`/`0d` bits, and a
/// decimal float where an `f32` or `f64` goes (read as PTX reads it: a double, rounded to
/// the operand's type). `None` for what is best kept as written.
pub(crate) fn number(s: &str, float: Option<DType>) -> Option<Opnd> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    if let Some(v) = int_value(body) {
        return Some(if neg {
            Opnd::int(i64::try_from(-(v as i128)).ok()?)
        } else if v > i64::MAX as u64 {
            Opnd::uint(v)
        } else {
            Opnd::int(v as i64)
        });
    }
    let hex =
        |h: &str, n: usize| (h.len() == n && h.chars().all(|c| c.is_ascii_hexdigit())).then(|| u64::from_str_radix(h, 16).ok()).flatten();
    if !neg {
        if let Some(b) = body.strip_prefix(['0']).and_then(|r| r.strip_prefix(['f', 'F'])) {
            return Some(Opnd::F32(hex(b, 8)? as u32));
        }
        if let Some(b) = body.strip_prefix(['0']).and_then(|r| r.strip_prefix(['d', 'D'])) {
            return Some(Opnd::f64_bits(hex(b, 16)?));
        }
    }
    let v: f64 = s.parse().ok()?;
    match float? {
        DType::F32 => Some(Opnd::F32((v as f32).to_bits())),
        _ => Some(Opnd::f64_bits(v.to_bits())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_every_spelling() {
        assert_eq!(number("42", None), Some(Opnd::int(42)));
        assert_eq!(number("0x2A", None), Some(Opnd::int(42)));
        assert_eq!(number("052", None), Some(Opnd::int(42)));
        assert_eq!(number("0b101010", None), Some(Opnd::int(42)));
        assert_eq!(number("42U", None), Some(Opnd::int(42)));
        assert_eq!(number("-1", None), Some(Opnd::int(-1)));
        assert_eq!(number("0xFFFFFFFFFFFFFFFF", None), Some(Opnd::uint(u64::MAX)));
        assert_eq!(number("0f3F800000", None), Some(Opnd::F32(0x3F80_0000)));
        assert_eq!(number("0d3FF0000000000000", None), Some(Opnd::f64_bits(0x3FF0_0000_0000_0000)));
        assert_eq!(number("1.5", Some(DType::F32)), Some(Opnd::F32(1.5f32.to_bits())));
        assert_eq!(number("-2.5e-3", Some(DType::F64)), Some(Opnd::f64_bits((-2.5e-3f64).to_bits())));
        // Kept as written: a decimal float where no float goes, a malformed literal.
        assert_eq!(number("1.5", None), None);
        assert_eq!(number("0f3F80", None), None);
        assert_eq!(number("09", None), None);
        assert_eq!(offset("+16"), Some(16));
        assert_eq!(offset("-8"), Some(-8));
        assert_eq!(offset("+-8"), Some(-8));
        assert_eq!(offset("+0x10"), Some(16));
        assert_eq!(offset("+4294967296"), None);
    }
}
