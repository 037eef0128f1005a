//! PTX text into Rust: [`to_rust`] writes the builder code of a module — `Module::new` for
//! its target, its kernels with typed parameters, typed registers, labels and a `ptx!`
//! call per instruction in the chain's table order — which, run, prints PTX that ptxas
//! assembles to the same code. `examples/ptx2rs.rs` is the command.
//!
//! What the builder has no typed call for is written through its escape hatches, as text:
//! module variables, `.file` lines, `.section` blocks and external declarations go to
//! [`Module::raw`](crate::Module::raw) (with [`Module::symbol`](crate::Module::symbol) for the
//! variables the code names), `.pragma` lines to `Kernel::raw`. `.loc` lines are dropped
//! (they carry line info, not code), as are the `.ptr` attributes of parameters (ptxas
//! assembles the same code without them). A construct outside what the generated code can
//! express (device functions, calls, textures, part selectors, a `-G` build's `debug`
//! target) is refused with its position: [`ImportError::Unsupported`].

use super::ast::{self, Arena, Arg, Function, FunctionKind, Instruction, Span, VarDecl};
use super::module::unsupported;
use super::parse::parse;
use super::print;
use super::resolve::{resolve_in, Decls, FindingKind};
use super::ImportError;
use crate::core::{DType, DstKind, Family, FormDesc, Handles, Kind, RegClass, Space};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// The Rust source of `text`'s module: a file with `pub fn module() -> Result<Module,
/// ptxkit::Error>`. `source` names the input in the file's header.
///
/// ```
/// let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
///     .visible .entry twice(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
///     ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
///     ld.global.u32 %r1, [%rd2];\nshl.b32 %r2, %r1, 1;\nst.global.u32 [%rd2], %r2;\nret;\n}\n";
/// let rust = ptxkit::import::to_rust(ptx, "twice.ptx")?;
/// assert!(rust.contains(r#"m.kernel("twice", |k, (param0,): (ParamPtr<U64>,)| {"#), "{rust}");
/// assert!(rust.contains(r#"ptx!(k, "shl.b32" => r[2], r[1].bitcast::<B32>(), 1u32);"#) || rust.contains(r#"ptx!(k, "shl.b32" => r[2], r[1], 1u32);"#), "{rust}");
/// # Ok::<(), ptxkit::import::ImportError>(())
/// ```
pub fn to_rust(text: &str, source: &str) -> Result<String, ImportError> {
    let arena = Arena::new();
    let file = parse(text, &arena)?;
    let mut g = Gen::default();
    g.file(&file)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! The builder code of `{}`, written by ptx2rs (`cargo run --example ptx2rs -- FILE.ptx`).",
        source.replace('`', "'")
    );
    out.push_str("#![allow(unused_imports, unused_variables, unused_mut, non_snake_case, clippy::all)]\n\n");
    out.push_str(
        "use ptxkit::builder::ParamBytes;\nuse ptxkit::ops::{m, Acc, Generic};\nuse ptxkit::prelude::*;\nuse ptxkit::regs::{ParamPtr, TensorAt, TmemAddr};\n\n",
    );
    out.push_str("/// The module, built.\npub fn module() -> Result<Module, ptxkit::Error> {\n");
    out.push_str(&g.out);
    out.push_str("    Ok(m)\n}\n");
    Ok(out)
}

/// The Rust type of a PTX type: `u32` is `U32`, `bf16x2` is `Bf16x2`.
fn rust_type(t: DType) -> String {
    let n = t.name();
    n[..1].to_uppercase() + &n[1..]
}

/// The Rust type of a state space.
fn rust_space(s: Space) -> Option<&'static str> {
    Some(match s {
        Space::Generic => "Generic",
        Space::Global => "m::Global",
        Space::Shared => "m::Shared",
        Space::SharedCta => "m::SharedCta",
        Space::SharedCluster => "m::SharedCluster",
        Space::Local => "m::Local",
        Space::Const => "m::Const",
        Space::Param => "m::Param",
        Space::Tmem => return None,
    })
}

/// Whether a pointer of space `have` stands where an instruction names `want`
/// (`ops::InWindow`).
fn in_window(have: Space, want: Space) -> bool {
    use Space::*;
    have == want || matches!((have, want), (Shared, SharedCta) | (SharedCta, Shared) | (Shared | SharedCta, SharedCluster))
}

/// What a name stands for in the generated code.
#[derive(Clone, Debug)]
enum Val {
    /// A register: its Rust expression and declared type.
    Reg(String, DType),
    /// A symbol with a pointer: the pointer's Rust expression and its space.
    Ptr(String, Space),
    Label(String),
    Targets(String),
}

#[derive(Default)]
struct Gen {
    out: String,
    /// Module-scope symbols with pointers.
    globals: HashMap<String, Val>,
    /// Rust names taken, at module scope and in the function being written.
    taken: HashSet<String>,
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop",
    "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield", "try", "k", "m", "Ok", "Err", "Some", "None",
];

impl Gen {
    /// A Rust identifier for `name` (with `prefix`), not taken yet.
    fn ident(&mut self, prefix: &str, name: &str) -> String {
        let mut s: String =
            prefix.chars().chain(name.chars()).map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
            s.insert(0, '_');
        }
        if s.chars().all(|c| c == '_') {
            s.push('x');
        }
        while KEYWORDS.contains(&s.as_str()) || self.taken.contains(&s) {
            s.push('_');
        }
        self.taken.insert(s.clone());
        s
    }

    fn file(&mut self, f: &ast::File) -> Result<(), ImportError> {
        let mut target = None;
        for item in &f.items {
            if let ast::Item::Target(words, span) = item {
                for &w in *words {
                    match w {
                        "texmode_unified" => {}
                        "texmode_independent" => self.out.push_str("    m.set_tex_mode(TexMode::Independent)?;\n"),
                        t if crate::Target::parse(t).is_some() && target.is_none() => target = Some(t.to_string()),
                        w => return Err(unsupported(*span, format!("the target option `{w}`"))),
                    }
                }
            }
        }
        let Some(target) = target else { return Err(unsupported(Span::default(), "a text without `.target`")) };
        self.out.insert_str(0, &format!("    let mut m = Module::new(Target::parse(\"{target}\").expect(\"a target ptxkit knows\"));\n"));
        for item in &f.items {
            match item {
                ast::Item::Target(..) => {}
                ast::Item::Version(v, span) => {
                    let Some(v) = crate::Version::parse(v) else { return Err(unsupported(*span, format!("`.version {v}`"))) };
                    let (major, minor) = v.to_string().split_once('.').map(|(a, b)| (a.to_string(), b.to_string())).unwrap_or_default();
                    let _ = writeln!(self.out, "    m.set_version(Version::new({major}, {minor}));");
                }
                ast::Item::AddressSize(n, span) if *n != 64 => return Err(unsupported(*span, format!("`.address_size {n}`"))),
                ast::Item::AddressSize(..) => {}
                ast::Item::Function(func) if func.body.is_some() => self.function(func)?,
                ast::Item::Var(v) => self.var(v, item)?,
                other => {
                    let mut t = String::new();
                    print::item(&mut t, other);
                    let _ = writeln!(self.out, "    m.raw({:?}, &[])?;", t.trim_matches('\n'));
                }
            }
        }
        Ok(())
    }

    /// A module variable: its text through `Module::raw`, and a pointer to each name.
    fn var(&mut self, v: &VarDecl, item: &ast::Item) -> Result<(), ImportError> {
        let mut t = String::new();
        print::item(&mut t, item);
        let defines: Vec<&str> =
            if v.linkage.contains(&".extern") && v.space != ".shared" { vec![] } else { v.names.iter().map(|n| n.name).collect() };
        let _ = writeln!(self.out, "    m.raw({:?}, &{:?})?;", t.trim_matches('\n'), defines);
        let space = match v.space {
            ".global" => Space::Global,
            ".const" => Space::Const,
            ".shared" => Space::Shared,
            _ => return Ok(()),
        };
        let elem = DType::from_name(v.ty.trim_start_matches('.')).filter(|t| t.class() != RegClass::Pred).unwrap_or(DType::B8);
        for n in &defines {
            let id = self.ident("v_", n);
            let _ = writeln!(
                self.out,
                "    let {id}: Ptr<{}, {}> = m.symbol({n:?})?;",
                rust_space(space).unwrap_or("Generic"),
                rust_type(elem)
            );
            self.globals.insert(n.to_string(), Val::Ptr(id, space));
        }
        Ok(())
    }

    fn function(&mut self, f: &Function) -> Result<(), ImportError> {
        if f.kind == FunctionKind::Func {
            return Err(unsupported(f.span, format!("the device function `{}` (ptx2rs writes kernels only)", f.name)));
        }
        let module_names = self.taken.clone();
        let mut scope: HashMap<String, Val> = self.globals.clone();
        let (mut names, mut types) = (vec![], vec![]);
        for (i, p) in f.params.unwrap_or_default().iter().enumerate() {
            let [n] = p.names else { return Err(unsupported(p.span, "a parameter declaration of several names")) };
            let id = self.ident("param", &i.to_string());
            let ptr = p.attrs.contains(&".ptr");
            let ty = match (n.dims, DType::from_name(p.ty.trim_start_matches('.'))) {
                // `.ptr{.space} .align A`: a pointer parameter with its attribute.
                ([], Some(DType::U64)) if ptr => {
                    let space = ["global", "shared", "const", "local"]
                        .iter()
                        .find(|s| p.attrs.iter().any(|a| a.strip_prefix('.') == Some(**s)))
                        .map_or("Generic".to_string(), |s| format!("m::{}{}", s[..1].to_uppercase(), &s[1..]));
                    let align = align_of(p).unwrap_or(1);
                    scope.insert(n.name.to_string(), Val::Ptr(format!("{id}.ptr()"), Space::Param));
                    format!("ptxkit::builder::PointerParam<{space}, {align}>")
                }
                ([], Some(t)) if !ptr && !matches!(t.class(), RegClass::Pred | RegClass::B128) => {
                    scope.insert(n.name.to_string(), Val::Ptr(id.clone(), Space::Param));
                    format!("ParamPtr<{}>", rust_type(t))
                }
                ([Some(len)], Some(t)) if t.class() != RegClass::Pred => {
                    let bytes = len * (t.bits() as u64 / 8).max(1);
                    let align = align_of(p).unwrap_or((t.bits() / 8).max(1) as u64);
                    scope.insert(n.name.to_string(), Val::Ptr(format!("{id}.ptr::<B8>()"), Space::Param));
                    format!("ParamBytes<{bytes}, {align}>")
                }
                _ => return Err(unsupported(p.span, format!("the parameter `{}`", n.name))),
            };
            names.push(id);
            types.push(ty);
        }
        let tuple = |v: &[String]| if v.len() == 1 { format!("({},)", v[0]) } else { format!("({})", v.join(", ")) };
        let _ = writeln!(self.out, "    m.kernel({:?}, |k, {}: {}| {{", f.name, tuple(&names), tuple(&types));
        for d in f.directives {
            let nums: Vec<&str> = d.args.iter().copied().filter(|a| *a != ",").collect();
            let three = |n: &[&str]| format!("{}, {}, {}", n.first().unwrap_or(&"1"), n.get(1).unwrap_or(&"1"), n.get(2).unwrap_or(&"1"));
            let call = match d.name {
                ".maxntid" => format!("maxntid({})", three(&nums)),
                ".reqntid" => format!("reqntid({})", three(&nums)),
                ".reqnctapercluster" => format!("reqnctapercluster({})", three(&nums)),
                ".minnctapersm" | ".maxnreg" | ".maxclusterrank" if nums.len() == 1 => format!("{}({})", &d.name[1..], nums[0]),
                ".explicitcluster" => "explicitcluster()".into(),
                other => return Err(unsupported(d.span, format!("the directive `{other}`"))),
            };
            let _ = writeln!(self.out, "        k.{call};");
        }
        let decls = Decls::of(f);
        let body = f.body.unwrap_or_default();
        // The closing `ret` is the builder's own.
        let body = match body.last() {
            Some(ast::Stmt::Ins(i)) if i.guard.is_none() && i.chain == "ret" => &body[..body.len() - 1],
            _ => body,
        };
        let mut scopes = vec![scope];
        self.block(body, &mut scopes, &decls, 2)?;
        self.out.push_str("    })?;\n");
        self.taken = module_names;
        Ok(())
    }

    fn block(
        &mut self,
        body: &[ast::Stmt],
        scopes: &mut Vec<HashMap<String, Val>>,
        decls: &Decls,
        depth: usize,
    ) -> Result<(), ImportError> {
        let pad = "    ".repeat(depth);
        let mut scope = HashMap::new();
        // Labels first: a branch may come before its label.
        for s in body {
            if let ast::Stmt::Label(l, _) = s {
                let id = self.ident("l_", l.trim_start_matches('$'));
                let _ = writeln!(self.out, "{pad}let {id} = k.label();");
                scope.insert(l.to_string(), Val::Label(id));
            }
        }
        scopes.push(scope);
        for s in body {
            match s {
                ast::Stmt::Label(l, _) => {
                    let Some(Val::Label(id)) = lookup(scopes, l) else { unreachable!("labels are declared first") };
                    let _ = writeln!(self.out, "{pad}k.place({id});");
                }
                ast::Stmt::Decl(v) => self.decl(v, scopes, &pad)?,
                ast::Stmt::Directive(d) if d.name == ".loc" => {
                    let mut t = String::new();
                    print::stmt(&mut t, s, 0);
                    let _ = writeln!(self.out, "{pad}k.loc({:?});", t.trim().trim_start_matches(".loc").trim());
                }
                ast::Stmt::Directive(d) if d.name == ".pragma" => {
                    let mut t = String::new();
                    print::stmt(&mut t, s, 0);
                    let _ = writeln!(self.out, "{pad}k.raw({:?});", t.trim().trim_end_matches(';'));
                }
                ast::Stmt::Block(b, _) => {
                    let _ = writeln!(self.out, "{pad}{{");
                    self.block(b, scopes, decls, depth + 1)?;
                    let _ = writeln!(self.out, "{pad}}}");
                }
                ast::Stmt::BranchTargets { label, targets, span } => {
                    let mut ls = vec![];
                    for t in *targets {
                        match lookup(scopes, t) {
                            Some(Val::Label(l)) => ls.push(l),
                            _ => return Err(unsupported(*span, format!("`{t}` is not a label"))),
                        }
                    }
                    let id = self.ident("t_", label);
                    let _ = writeln!(self.out, "{pad}let {id} = k.branch_targets(&[{}]);", ls.join(", "));
                    scopes.last_mut().expect("a scope").insert(label.to_string(), Val::Targets(id));
                }
                ast::Stmt::Ins(i) => {
                    let line = self.instruction(i, scopes, decls)?;
                    let _ = writeln!(self.out, "{pad}{line}");
                }
                ast::Stmt::Directive(d) => return Err(unsupported(d.span, format!("the directive `{}` in a body", d.name))),
                ast::Stmt::CallPrototype { span, .. } | ast::Stmt::CallTargets { span, .. } => return Err(unsupported(*span, "calls")),
            }
        }
        scopes.pop();
        Ok(())
    }

    /// A declaration in a body: registers, or a `.shared`/`.local` array.
    fn decl(&mut self, v: &VarDecl, scopes: &mut [HashMap<String, Val>], pad: &str) -> Result<(), ImportError> {
        let ty = DType::from_name(v.ty.trim_start_matches('.'));
        let scope = scopes.last_mut().expect("a scope");
        match v.space {
            ".reg" => {
                let Some(t) = ty.filter(|_| !v.attrs.iter().any(|a| a.starts_with(".v"))) else {
                    return Err(unsupported(v.span, format!("registers of type `{}`", v.attrs.join(" "))));
                };
                for n in v.names {
                    let id = self.ident("", n.name.trim_start_matches('%'));
                    match n.range {
                        Some(count) => {
                            let _ =
                                writeln!(self.out, "{pad}let {id}: Vec<Reg<{}>> = (0..{count}).map(|_| k.reg()).collect();", rust_type(t));
                            for (i, name) in n.names().enumerate() {
                                scope.insert(name, Val::Reg(format!("{id}[{i}]"), t));
                            }
                        }
                        None => {
                            let _ = writeln!(self.out, "{pad}let {id}: Reg<{}> = k.reg();", rust_type(t));
                            scope.insert(n.name.to_string(), Val::Reg(id, t));
                        }
                    }
                }
                Ok(())
            }
            ".shared" | ".local" if v.linkage.is_empty() && v.init.is_none() => {
                let (space, call) = if v.space == ".shared" { (Space::Shared, "shared_array") } else { (Space::Local, "local_array") };
                let Some(t) = ty.filter(|t| t.class() != RegClass::Pred) else {
                    return Err(unsupported(v.span, format!("a `{}` array", v.ty)));
                };
                let align = align_of(v).unwrap_or((t.bits() / 8).max(1) as u64);
                for n in v.names {
                    // A scalar is an array of one.
                    let len: Option<u64> = n.dims.iter().try_fold(1u64, |a, d| d.map(|d| a * d));
                    let Some(len) = len.filter(|l| (1..=u32::MAX as u64).contains(l)) else {
                        return Err(unsupported(v.span, format!("the array `{}`", n.name)));
                    };
                    let id = self.ident("s_", n.name);
                    let _ = writeln!(self.out, "{pad}let {id} = k.{call}::<{}>({:?}, {len}, {align});", rust_type(t), n.name);
                    scope.insert(n.name.to_string(), Val::Ptr(id, space));
                }
                Ok(())
            }
            _ => Err(unsupported(v.span, format!("a `{}` declaration in a body", v.space))),
        }
    }

    /// The `ptx!` call of one instruction.
    fn instruction(&mut self, i: &Instruction, scopes: &[HashMap<String, Val>], decls: &Decls) -> Result<String, ImportError> {
        let form = match resolve_in(i, decls) {
            Ok(r) => r.form,
            Err(f) if f.kind == FindingKind::Call => return Err(unsupported(i.span, "calls")),
            Err(f) => return Err(ImportError::Unresolved(f)),
        };
        let at = |what: String| ImportError::Unsupported { span: i.span, what: format!("`{}`: {what}", i.chain) };
        let first = i.operands.len().saturating_sub(form.src.len());
        let mut s = String::from("ptx!(k, ");
        if let Some((neg, p)) = i.guard {
            match lookup(scopes, p) {
                Some(Val::Reg(e, DType::Pred)) => _ = write!(s, "@{}{e}, ", if neg { "!" } else { "" }),
                _ => return Err(at(format!("the guard `{p}` is not a predicate"))),
            }
        }
        let _ = write!(s, "{:?}", form.chain);
        if form.variant != "plain" {
            let _ = write!(s, " as {}", form.variant);
        }
        let dst = dst(form, &i.operands[..first], scopes).map_err(at)?;
        if let Some(d) = dst {
            let _ = write!(s, " => {d}");
        }
        for (kind, a) in form.src.iter().zip(&i.operands[first..]) {
            let o = src(kind, a, scopes).map_err(at)?;
            let _ = write!(s, ", {o}");
        }
        s.push_str(");");
        Ok(s)
    }
}

/// The `.align` of a declaration.
fn align_of(v: &VarDecl) -> Option<u64> {
    v.attrs.iter().find_map(|a| a.strip_prefix(".align")?.trim().parse().ok())
}

fn lookup(scopes: &[HashMap<String, Val>], name: &str) -> Option<Val> {
    scopes.iter().rev().find_map(|s| s.get(name).cloned())
}

/// A register as exactly type `t` (a destination, an element of a vector): its declared type,
/// through a bitcast where that differs in name only.
fn exact_reg(a: &Arg, t: DType, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    match *a {
        Arg::Name(n) => match lookup(scopes, n) {
            Some(Val::Reg(e, have)) if have == t => Ok(e),
            Some(Val::Reg(e, have)) if have.class() == t.class() => Ok(format!("{e}.bitcast::<{}>()", rust_type(t))),
            Some(Val::Reg(_, have)) => Err(format!("`{n}` (.{}) where a .{} register goes", have.name(), t.name())),
            _ => Err(format!("`{n}` is not a register")),
        },
        Arg::Vector(v) if v.len() == 1 => exact_reg(&v[0], t, scopes),
        _ => Err("a destination of this shape".into()),
    }
}

fn exact_regs(a: &Arg, t: DType, n: u16, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    let Arg::Vector(v) = a else { return Err("a destination that is no vector".into()) };
    if v.len() != n as usize {
        return Err(format!("a vector of {} where {n} go", v.len()));
    }
    let els: Result<Vec<String>, String> = v.iter().map(|e| exact_reg(e, t, scopes)).collect();
    Ok(format!("[{}]", els?.join(", ")))
}

fn dst(form: &FormDesc, ops: &[Arg], scopes: &[HashMap<String, Val>]) -> Result<Option<String>, String> {
    Ok(match (form.dst, ops) {
        (DstKind::None | DstKind::Sink, _) => None,
        (DstKind::Val(t), [a]) => Some(exact_reg(a, t, scopes)?),
        (DstKind::Pair(t, p), [Arg::Pair(a, b)]) => Some(format!("({}, {})", exact_reg(a, t, scopes)?, exact_reg(b, p, scopes)?)),
        (DstKind::SinkPair(p), [Arg::Pair(a, b)]) if **a == Arg::Sink => Some(exact_reg(b, p, scopes)?),
        (DstKind::Vec(t, n), [a]) => Some(exact_regs(a, t, n, scopes)?),
        (DstKind::Tied(t, n), [a]) => Some(format!("Acc({})", exact_regs(a, t, n, scopes)?)),
        (d, _) => return Err(format!("a destination of kind {d:?}")),
    })
}

fn src(kind: &Kind, a: &Arg, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    match kind {
        Kind::Val(t) | Kind::Imm(t) | Kind::ImmIn(t, _) => val(a, *t, scopes),
        Kind::Vec(t, n) => {
            let Arg::Vector(v) = a else { return Err("a vector operand that is no vector".into()) };
            if v.len() != *n as usize {
                return Err(format!("a vector of {} where {n} go", v.len()));
            }
            // An array of one Rust type: registers only.
            let els: Result<Vec<String>, String> = v.iter().map(|e| exact_reg(e, *t, scopes)).collect();
            Ok(format!("[{}]", els.map_err(|e| format!("a vector of registers only ({e})"))?.join(", ")))
        }
        Kind::Addr(Space::Tmem, _) => match a {
            Arg::Address(v) => match &v[..] {
                // `[%r460 + 0]`, as Triton writes it.
                [Arg::Offset((r, off))] if crate::import::module::offset(off) == Some(0) => {
                    Ok(format!("TmemAddr::from_reg({})", exact_reg(r, DType::B32, scopes)?))
                }
                [r @ Arg::Name(_)] => Ok(format!("TmemAddr::from_reg({})", exact_reg(r, DType::B32, scopes)?)),
                _ => Err("a tensor-memory address with an offset".into()),
            },
            _ => Err("a tensor-memory address of this shape".into()),
        },
        Kind::Addr(space, elem) => addr(a, *space, elem.unwrap_or(DType::B8), scopes),
        Kind::HandleAddr(Handles::TensorMap, coords, 0) if coords.iter().all(|c| *c == DType::S32) => match a {
            Arg::Address(v) => match &v[..] {
                [map, Arg::Vector(cs)] if cs.len() == coords.len() => {
                    let cs: Result<Vec<String>, String> = cs.iter().map(|c| exact_reg(c, DType::S32, scopes)).collect();
                    Ok(format!("TensorAt::new({}, [{}])", exact_reg(map, DType::U64, scopes)?, cs?.join(", ")))
                }
                _ => Err("a tensor-map address of this shape".into()),
            },
            _ => Err("a tensor-map address that is no `[…]`".into()),
        },
        Kind::Label => match a {
            Arg::Name(n) => match lookup(scopes, n) {
                Some(Val::Label(l)) => Ok(l),
                _ => Err(format!("`{n}` is not a label")),
            },
            _ => Err("a label of this shape".into()),
        },
        Kind::Targets => match a {
            Arg::Name(n) => match lookup(scopes, n) {
                Some(Val::Targets(l)) => Ok(l),
                _ => Err(format!("`{n}` is not a `.branchtargets` list declared before")),
            },
            _ => Err("a target list of this shape".into()),
        },
        other => Err(format!("an operand of kind {other:?}")),
    }
}

/// A value of type `t`: a register (through a bitcast where only the name of its type
/// differs), a special register, a symbol's address or an immediate.
fn val(a: &Arg, t: DType, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    match *a {
        Arg::Name(n) => match lookup(scopes, n) {
            Some(Val::Reg(e, have)) if t.accepts(have) => Ok(e),
            Some(Val::Reg(e, have)) if have.class() == t.class() => Ok(format!("{e}.bitcast::<{}>()", rust_type(t))),
            Some(Val::Reg(_, have)) => Err(format!("`{n}` (.{}) where a .{} value goes", have.name(), t.name())),
            Some(Val::Ptr(e, _)) => Ok(format!("{e}.symbol::<{}>().expect(\"a symbol\")", rust_type(t))),
            Some(_) => Err(format!("`{n}` is no value")),
            None => {
                let c = n.trim_start_matches('%').to_uppercase().replace('.', "_");
                if crate::regs::sreg::ALL.iter().any(|(name, _)| *name == n) {
                    Ok(format!("sreg::{c}"))
                } else {
                    Err(format!("`{n}` is not declared"))
                }
            }
        },
        Arg::Not(p) => match *p {
            Arg::Name(n) => match lookup(scopes, n) {
                Some(Val::Reg(e, DType::Pred)) if t == DType::Pred => Ok(format!("!{e}")),
                _ => Err(format!("`!{n}` where a .{} goes", t.name())),
            },
            _ => Err("a negation of this shape".into()),
        },
        Arg::Number(s) => imm(s, t),
        Arg::Vector(v) if v.len() == 1 => val(&v[0], t, scopes),
        _ => Err("a value of this shape".into()),
    }
}

/// An immediate of type `t` as a Rust literal with the same bits.
fn imm(s: &str, t: DType) -> Result<String, String> {
    let bad = || format!("the immediate `{s}` where a .{} goes", t.name());
    let int = match crate::import::module::number(s, if matches!(t, DType::F32 | DType::F64) { Some(t) } else { None }) {
        Some(crate::core::ir::Opnd::Int(v)) => v.get() as i64 as i128,
        Some(crate::core::ir::Opnd::UInt(v)) => v.get() as i128,
        Some(crate::core::ir::Opnd::F32(b)) if t == DType::F32 => return Ok(format!("f32::from_bits(0x{b:08X})")),
        Some(crate::core::ir::Opnd::F64(b)) if t == DType::F64 => return Ok(format!("f64::from_bits(0x{:016X})", b.get())),
        // A float's bits where bits go (`mov.b32 %r1, 0fFF800000;`).
        Some(crate::core::ir::Opnd::F32(b)) if t.bits() == 32 && t.family() != Family::Float => b as i128,
        Some(crate::core::ir::Opnd::F64(b)) if t.bits() == 64 && t.family() != Family::Float => b.get() as i128,
        _ => return Err(bad()),
    };
    let bits = t.bits();
    match t.family() {
        // ptxas reads any nonzero immediate as true (`mov.pred %p1, -1;`).
        Family::Pred => Ok((int != 0).to_string()),
        Family::Float if t == DType::F32 => Ok(format!("f32::from_bits(0x{:08X})", (int as f32).to_bits())),
        Family::Float if t == DType::F64 => Ok(format!("f64::from_bits(0x{:016X})", (int as f64).to_bits())),
        Family::Unsigned | Family::Signed | Family::Bits if bits <= 64 => {
            let wrapped = (int as u128 & (u128::MAX >> (128 - bits))) as u64;
            let width = bits.max(8);
            if t.family() == Family::Signed || (t.family() == Family::Bits && int < 0) {
                let v = ((wrapped as i64) << (64 - bits)) >> (64 - bits);
                Ok(format!("{v}i{width}"))
            } else {
                Ok(format!("{wrapped}u{width}"))
            }
        }
        _ => Err(bad()),
    }
}

/// An address operand of space `space` and element `elem`.
fn addr(a: &Arg, space: Space, elem: DType, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    let Arg::Address(v) = a else { return Err("an address that is no `[…]`".into()) };
    let (base, off) = match v {
        [Arg::Offset((b, off))] => (b, crate::import::module::offset(off).ok_or_else(|| format!("the offset `{off}`"))?),
        [b] => (b, 0),
        _ => return Err("an address of this shape".into()),
    };
    let Arg::Name(n) = *base else { return Err("an address with this base".into()) };
    let space_t = rust_space(space).ok_or("a tensor-memory address")?;
    let e = rust_type(elem);
    let p = match lookup(scopes, n) {
        Some(Val::Reg(r, t)) if matches!(t.class(), RegClass::B32 | RegClass::B64) => format!("Ptr::<{space_t}, {e}>::from_addr_reg({r})"),
        Some(Val::Ptr(p, have)) if in_window(have, space) => format!("{p}.cast::<{e}>()"),
        Some(Val::Ptr(_, have)) => return Err(format!("`{n}` is in {} where the instruction names {}", have.name(), space.name())),
        _ => return Err(format!("`{n}` is not an address")),
    };
    Ok(if off == 0 { p } else { format!("{p}.byte_offset({off})") })
}
