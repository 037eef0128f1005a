//! Writes a syntax tree back as PTX text: one statement per line, bodies indented by a tab,
//! every name, number and modifier as it was spelt. Parsing the output gives the same tree
//! (spans aside), and ptxas reads it as it read the original.
//!
//! Everything is appended to one `String`: no piece of text is built on its own.

use super::ast::*;
use std::fmt::Write;

/// Bytes reserved per statement of a body: compiler-emitted lines are 20 to 60 bytes long,
/// and reserving more than is written costs address space only.
const BYTES_PER_STMT: usize = 64;

/// The text of `f`, in a new `String` (see [`print_into`] to print into one the caller
/// keeps).
///
/// ```
/// use ptxkit::import::{ast::Arena, parse::parse, print::print};
/// let src = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{ .reg .b64 %rd<2>; ld.param.u64 %rd1, [p]; ret; }";
/// let arena = Arena::new();
/// let text = print(&parse(src, &arena)?);
/// assert!(text.contains("\tld.param.u64 \t%rd1, [p];\n"));
/// assert_eq!(print(&parse(&text, &arena)?), text);
/// # Ok::<(), ptxkit::import::parse::ParseError>(())
/// ```
pub fn print(f: &File) -> String {
    let mut out = String::new();
    print_into(f, &mut out);
    out
}

/// Appends the text of `f` to `out`. A tool that prints many texts keeps one `String`,
/// clears it between them and prints into it: its memory is then written before, where a
/// new `String`'s first write of each page costs as much as the printing (about half the
/// time of [`print()`] at 10^6 instructions on the bench's machine).
///
/// ```
/// use ptxkit::import::{ast::Arena, parse::parse, print::{print, print_into}};
/// let (mut arena, mut out) = (Arena::new(), String::new());
/// for src in [".version 8.0\n.target sm_90\n.entry k() { ret; }", ".version 8.0\n.target sm_90\n.entry j() { exit; }"] {
///     arena.reset();
///     out.clear();
///     let f = parse(src, &arena)?;
///     print_into(&f, &mut out);
///     assert_eq!(out, print(&f));
/// }
/// # Ok::<(), ptxkit::import::parse::ParseError>(())
/// ```
pub fn print_into(f: &File, out: &mut String) {
    let stmts: usize = f
        .items
        .iter()
        .map(|i| match i {
            Item::Function(func) => 4 + func.body.map_or(0, <[Stmt]>::len),
            _ => 1,
        })
        .sum();
    out.reserve(stmts * BYTES_PER_STMT);
    for i in &f.items {
        item(out, i);
    }
}

/// One module-level item, with its line break (a function with a blank line before it).
pub fn item(out: &mut String, item: &Item) {
    match item {
        Item::Version(v, _) => {
            out.push_str(".version ");
            out.push_str(v);
        }
        Item::Target(t, _) => {
            out.push_str(".target ");
            joined(out, t, ", ");
        }
        Item::AddressSize(n, _) => _ = write!(out, ".address_size {n}"),
        Item::Directive(d) => directive(out, d),
        Item::Var(v) => {
            var(out, v);
            out.push(';');
        }
        Item::Function(func) => return function(out, func),
        Item::Section(s) => {
            out.push_str(".section ");
            out.push_str(s.name);
            out.push_str("\n{\n");
            for l in s.lines {
                out.push('\t');
                out.push_str(l);
                out.push('\n');
            }
            out.push('}');
        }
    }
    out.push('\n');
}

/// `words` with `sep` between them.
fn joined(out: &mut String, words: &[&str], sep: &str) {
    for (k, w) in words.iter().enumerate() {
        if k > 0 {
            out.push_str(sep);
        }
        out.push_str(w);
    }
}

/// A directive statement: its words, then `;` except after `.file` and `.loc` (which end
/// at the end of their line).
fn directive(out: &mut String, d: &Directive) {
    words(out, d);
    if !matches!(d.name, ".file" | ".loc") {
        out.push(';');
    }
}

/// A directive's words: a space between them, none before a comma.
fn words(out: &mut String, d: &Directive) {
    out.push_str(d.name);
    for a in d.args {
        if *a != "," {
            out.push(' ');
        }
        out.push_str(a);
    }
}

fn var(out: &mut String, v: &VarDecl) {
    for w in v.linkage {
        out.push_str(w);
        out.push(' ');
    }
    out.push_str(v.space);
    for w in v.attrs {
        out.push(' ');
        out.push_str(w);
    }
    out.push(' ');
    for (k, n) in v.names.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        var_name(out, n);
    }
    if let Some(i) = &v.init {
        out.push_str(" = ");
        init(out, i);
    }
}

fn var_name(out: &mut String, n: &VarName) {
    out.push_str(n.name);
    if let Some(r) = n.range {
        _ = write!(out, "<{r}>");
    }
    for d in n.dims {
        match d {
            Some(n) => _ = write!(out, "[{n}]"),
            None => out.push_str("[]"),
        }
    }
}

fn init(out: &mut String, i: &Init) {
    match i {
        Init::Value(o) => arg(out, o),
        Init::Field(f, o) => {
            out.push_str(f);
            out.push_str(" = ");
            arg(out, o);
        }
        Init::List(l) => {
            out.push('{');
            for (k, x) in l.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                init(out, x);
            }
            out.push('}');
        }
    }
}

fn function(out: &mut String, f: &Function) {
    out.push('\n');
    header(out, f);
    match &f.body {
        None => out.push_str(";\n"),
        Some(b) => {
            out.push_str("{\n");
            for s in *b {
                stmt(out, s, 1);
            }
            out.push_str("}\n");
        }
    }
}

/// A function's signature, each line ended: linkage, `.entry`/`.func`, return parameters,
/// name, parameters, then its directives (`.maxntid 128, 1, 1`), one per line.
pub fn header(out: &mut String, f: &Function) {
    for l in f.linkage {
        out.push_str(l);
        out.push(' ');
    }
    out.push_str(match f.kind {
        FunctionKind::Entry => ".entry ",
        FunctionKind::Func => ".func ",
    });
    if let Some(r) = f.rets {
        params(out, r);
        out.push(' ');
    }
    out.push_str(f.name);
    if let Some(p) = f.params {
        params(out, p);
    }
    out.push('\n');
    for d in f.directives {
        words(out, d);
        out.push('\n');
    }
}

fn params(out: &mut String, p: &[VarDecl]) {
    if p.is_empty() {
        out.push_str("()");
        return;
    }
    out.push_str("(\n");
    for (i, v) in p.iter().enumerate() {
        out.push('\t');
        var(out, v);
        out.push_str(if i + 1 < p.len() { ",\n" } else { "\n" });
    }
    out.push(')');
}

/// One statement of a body, indented by `depth` tabs (labels are not), with its line
/// break; a block with its statements.
pub fn stmt(out: &mut String, s: &Stmt, depth: usize) {
    let tabs = &"\t\t\t\t\t\t\t\t"[..depth.min(8)];
    // One tab as a `char` (a function's body): a slice of a length known only at run time
    // is copied by a call.
    let indent = |out: &mut String| if depth == 1 { out.push('\t') } else { out.push_str(tabs) };
    match s {
        Stmt::Ins(i) => {
            indent(out);
            instruction(out, i);
        }
        Stmt::Label(l, _) => {
            out.push_str(l);
            out.push(':');
        }
        Stmt::Decl(v) => {
            indent(out);
            var(out, v);
            out.push(';');
        }
        Stmt::Directive(d) => {
            indent(out);
            directive(out, d);
        }
        Stmt::Block(b, _) => {
            out.push_str(tabs);
            out.push_str("{\n");
            for s in *b {
                stmt(out, s, depth + 1);
            }
            out.push_str(tabs);
            out.push('}');
        }
        Stmt::BranchTargets { label, targets, .. } => {
            out.push_str(label);
            out.push_str(": .branchtargets ");
            joined(out, targets, ", ");
            out.push(';');
        }
        Stmt::CallTargets { label, targets, .. } => {
            out.push_str(label);
            out.push_str(": .calltargets ");
            joined(out, targets, ", ");
            out.push(';');
        }
        Stmt::CallPrototype { label, words, .. } => {
            out.push_str(label);
            out.push_str(": .callprototype");
            for w in *words {
                if *w != "," && *w != ")" && !out.ends_with('(') {
                    out.push(' ');
                }
                out.push_str(w);
            }
            out.push(';');
        }
    }
    out.push('\n');
}

/// One instruction, as `[@p ]chain \toperands;`.
pub fn instruction(out: &mut String, i: &Instruction) {
    if let Some((neg, p)) = i.guard {
        out.push_str(if neg { "@!" } else { "@" });
        out.push_str(p);
        out.push(' ');
    }
    put(out, i.chain);
    for (k, o) in i.operands.iter().enumerate() {
        out.push_str(if k == 0 { " \t" } else { ", " });
        operand(out, o);
    }
    out.push(';');
}

/// `items` between `open` and `close`, separated by commas.
fn list(out: &mut String, open: char, items: &[Arg], close: char) {
    out.push(open);
    for (k, o) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        operand(out, o);
    }
    out.push(close);
}

/// One operand: a name or a number written here, the other shapes by [`arg`] (most
/// operands are names, and this saves them a call).
#[inline]
fn operand(out: &mut String, o: &Arg) {
    match *o {
        Arg::Name(n) | Arg::Number(n) => put(out, n),
        _ => arg(out, o),
    }
}

/// `s` appended to `out`: one of at most 8 bytes (most names and numbers) by two loads and
/// an 8-byte store, where `push_str`'s copy of a length known only at run time is a call to
/// `memmove`.
#[inline(always)]
fn put(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let n = b.len();
    if n == 0 || n > 8 {
        return out.push_str(s);
    }
    // `s` in the low `n` bytes of `w` (little-endian), zeros above: two 4-byte loads that
    // overlap where `n` < 8, or three single bytes.
    let w = if n >= 4 {
        let lo = u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let hi = u64::from(u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]));
        lo | hi << (8 * (n - 4))
    } else {
        u64::from(b[0]) | u64::from(b[n / 2]) << (8 * (n / 2)) | u64::from(b[n - 1]) << (8 * (n - 1))
    };
    let at = out.len();
    // SAFETY: what is appended is the bytes of `s`, a `str`, whole and in order, then zero
    // bytes (each the character U+0000), which the truncation cuts off at `at + n`, where
    // `s` ends: the string holds UTF-8 at every step.
    let v = unsafe { out.as_mut_vec() };
    v.extend_from_slice(&w.to_le_bytes());
    v.truncate(at + n);
}

/// One operand, as written.
pub fn arg(out: &mut String, o: &Arg) {
    match *o {
        Arg::Name(n) | Arg::Number(n) => out.push_str(n),
        Arg::Offset((b, off)) => {
            operand(out, b);
            out.push_str(off);
        }
        Arg::Not(b) => {
            out.push('!');
            operand(out, b);
        }
        Arg::Neg(b) => {
            out.push('-');
            operand(out, b);
        }
        Arg::Part((b, p)) => {
            operand(out, b);
            out.push('.');
            out.push_str(p);
        }
        Arg::Address(v) => list(out, '[', v, ']'),
        Arg::Vector(v) => list(out, '{', v, '}'),
        Arg::Paren(v) => list(out, '(', v, ')'),
        Arg::Call((n, v)) => {
            out.push_str(n);
            list(out, '(', v, ')');
        }
        Arg::Pair(a, b) => {
            operand(out, a);
            out.push('|');
            operand(out, b);
        }
        Arg::Sink => out.push('_'),
    }
}

#[cfg(test)]
mod tests {
    use super::put;

    /// A short string is appended whole, of every length and with characters of several
    /// bytes, into a string with room to spare or none.
    #[test]
    fn put_appends_every_length() {
        let words = [
            "",
            "a",
            "ab",
            "abc",
            "%r1",
            "%rd1",
            "%f12",
            "%rd123",
            "0f3F8000",
            "0f3F800000",
            "é",
            "aé",
            "%r😀",
            "ééé",
            "😀😀",
            "abcdefghi",
        ];
        for w in words {
            for room in [0, 1, 64] {
                let mut out = String::with_capacity(room);
                out.push('x');
                put(&mut out, w);
                put(&mut out, w);
                assert_eq!(out, format!("x{w}{w}"));
            }
        }
        for n in 0..=12 {
            let w: String = (0..n).map(|k| char::from(b'a' + k)).collect();
            let mut out = String::new();
            put(&mut out, &w);
            assert_eq!(out, w);
        }
    }
}
