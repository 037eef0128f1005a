//! Writes a syntax tree back as PTX text: one statement per line, bodies indented by a tab,
//! every name, number and modifier as it was spelt. Parsing the output gives the same tree
//! (spans aside), and ptxas reads it as it read the original.

use super::ast::*;
use std::fmt::Write;

/// The text of `f`.
///
/// ```
/// use ptxkit::import::{parse::parse, print::print};
/// let src = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{ .reg .b64 %rd<2>; ld.param.u64 %rd1, [p]; ret; }";
/// let text = print(&parse(src)?);
/// assert!(text.contains("\tld.param.u64 \t%rd1, [p];\n"));
/// assert_eq!(print(&parse(&text)?), text);
/// # Ok::<(), ptxkit::import::parse::ParseError>(())
/// ```
pub fn print(f: &File) -> String {
    let mut out = String::new();
    for i in &f.items {
        item(&mut out, i);
    }
    out
}

/// One module-level item, with its line break (a function with a blank line before it).
pub fn item(out: &mut String, item: &Item) {
    match item {
        Item::Version(v, _) => _ = writeln!(out, ".version {v}"),
        Item::Target(t, _) => _ = writeln!(out, ".target {}", t.join(", ")),
        Item::AddressSize(n, _) => _ = writeln!(out, ".address_size {n}"),
        Item::Directive(d) => _ = writeln!(out, "{}", directive(d)),
        Item::Var(v) => _ = writeln!(out, "{};", var(v)),
        Item::Function(func) => function(out, func),
        Item::Section(s) => {
            _ = writeln!(out, ".section {}\n{{", s.name);
            for l in &s.lines {
                _ = writeln!(out, "\t{l}");
            }
            out.push_str("}\n");
        }
    }
}

/// A directive statement: its words, then `;` except after `.file` and `.loc` (which end
/// at the end of their line).
fn directive(d: &Directive) -> String {
    let mut s = words(d);
    if !matches!(d.name.as_str(), ".file" | ".loc") {
        s.push(';');
    }
    s
}

/// A directive's words: a space between them, none before a comma.
fn words(d: &Directive) -> String {
    let mut s = d.name.clone();
    for a in &d.args {
        if a != "," {
            s.push(' ');
        }
        s.push_str(a);
    }
    s
}

fn var(v: &VarDecl) -> String {
    let mut s = String::new();
    for w in v.linkage.iter().chain([&v.space]).chain(&v.attrs) {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(w);
    }
    s.push(' ');
    let names: Vec<String> = v.names.iter().map(var_name).collect();
    s.push_str(&names.join(", "));
    if let Some(i) = &v.init {
        s.push_str(" = ");
        init(&mut s, i);
    }
    s
}

fn var_name(n: &VarName) -> String {
    let mut s = n.name.clone();
    if let Some(r) = n.range {
        _ = write!(s, "<{r}>");
    }
    for d in &n.dims {
        match d {
            Some(n) => _ = write!(s, "[{n}]"),
            None => s.push_str("[]"),
        }
    }
    s
}

fn init(s: &mut String, i: &Init) {
    match i {
        Init::Value(o) => arg(s, o),
        Init::Field(f, o) => {
            _ = write!(s, "{f} = ");
            arg(s, o);
        }
        Init::List(l) => {
            s.push('{');
            for (k, x) in l.iter().enumerate() {
                if k > 0 {
                    s.push_str(", ");
                }
                init(s, x);
            }
            s.push('}');
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
            for s in b {
                stmt(out, s, 1);
            }
            out.push_str("}\n");
        }
    }
}

/// A function's signature, each line ended: linkage, `.entry`/`.func`, return parameters,
/// name, parameters, then its directives (`.maxntid 128, 1, 1`), one per line.
pub fn header(out: &mut String, f: &Function) {
    for l in &f.linkage {
        _ = write!(out, "{l} ");
    }
    out.push_str(match f.kind {
        FunctionKind::Entry => ".entry ",
        FunctionKind::Func => ".func ",
    });
    if let Some(r) = &f.rets {
        params(out, r);
        out.push(' ');
    }
    out.push_str(&f.name);
    if let Some(p) = &f.params {
        params(out, p);
    }
    out.push('\n');
    for d in &f.directives {
        _ = writeln!(out, "{}", words(d));
    }
}

fn params(out: &mut String, p: &[VarDecl]) {
    if p.is_empty() {
        out.push_str("()");
        return;
    }
    out.push_str("(\n");
    for (i, v) in p.iter().enumerate() {
        _ = write!(out, "\t{}", var(v));
        out.push_str(if i + 1 < p.len() { ",\n" } else { "\n" });
    }
    out.push(')');
}

/// One statement of a body, indented by `depth` tabs (labels are not), with its line
/// break; a block with its statements.
pub fn stmt(out: &mut String, s: &Stmt, depth: usize) {
    let tabs = &"\t\t\t\t\t\t\t\t"[..depth.min(8)];
    match s {
        Stmt::Label(l, _) => _ = writeln!(out, "{l}:"),
        Stmt::Decl(v) => _ = writeln!(out, "{tabs}{};", var(v)),
        Stmt::Directive(d) => _ = writeln!(out, "{tabs}{}", directive(d)),
        Stmt::Block(b, _) => {
            _ = writeln!(out, "{tabs}{{");
            for s in b {
                stmt(out, s, depth + 1);
            }
            _ = writeln!(out, "{tabs}}}");
        }
        Stmt::BranchTargets { label, targets, .. } => _ = writeln!(out, "{label}: .branchtargets {};", targets.join(", ")),
        Stmt::CallTargets { label, targets, .. } => _ = writeln!(out, "{label}: .calltargets {};", targets.join(", ")),
        Stmt::CallPrototype { label, words, .. } => {
            let mut s = format!("{label}: .callprototype");
            for w in words {
                if w != "," && w != ")" && !s.ends_with('(') {
                    s.push(' ');
                }
                s.push_str(w);
            }
            _ = writeln!(out, "{s};");
        }
        Stmt::Ins(i) => {
            out.push_str(tabs);
            instruction(out, i);
            out.push('\n');
        }
    }
}

/// One instruction, as `[@p ]chain \toperands;`.
pub fn instruction(out: &mut String, i: &Instruction) {
    if let Some((neg, p)) = &i.guard {
        _ = write!(out, "@{}{p} ", if *neg { "!" } else { "" });
    }
    out.push_str(&i.chain.join("."));
    for (k, o) in i.operands.iter().enumerate() {
        out.push_str(if k == 0 { " \t" } else { ", " });
        arg(out, o);
    }
    out.push(';');
}

fn list(s: &mut String, open: char, items: &[Arg], close: char) {
    s.push(open);
    for (k, o) in items.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        arg(s, o);
    }
    s.push(close);
}

/// One operand, as written.
pub fn arg(s: &mut String, o: &Arg) {
    match o {
        Arg::Name(n) | Arg::Number(n) => s.push_str(n),
        Arg::Offset(b, off) => {
            arg(s, b);
            s.push_str(off);
        }
        Arg::Not(b) => {
            s.push('!');
            arg(s, b);
        }
        Arg::Neg(b) => {
            s.push('-');
            arg(s, b);
        }
        Arg::Part(b, p) => {
            arg(s, b);
            s.push('.');
            s.push_str(p);
        }
        Arg::Address(v) => list(s, '[', v, ']'),
        Arg::Vector(v) => list(s, '{', v, '}'),
        Arg::Paren(v) => list(s, '(', v, ')'),
        Arg::Call(n, v) => {
            s.push_str(n);
            list(s, '(', v, ')');
        }
        Arg::Pair(a, b) => {
            arg(s, a);
            s.push('|');
            arg(s, b);
        }
        Arg::Sink => s.push('_'),
    }
}
