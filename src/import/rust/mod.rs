//! PTX text into Rust: [`to_rust`] writes the builder code of a module — `Module::new` for
//! its target, its kernels with typed parameters, typed registers, labels and a `ptx!`
//! call per instruction in the chain's table order — which, run, prints PTX that ptxas
//! assembles to the same code. `examples/ptx2rs.rs` is the command.
//!
//! Device functions of `.param` parameters and results become `Module::param_func` (or
//! `declare_func` and `define_func` for a prototype, an `.extern` function, or a function
//! that calls itself); a call's `{ }` block becomes `Kernel::block`, its `.param` variables
//! `Kernel::param_var`, the call `Kernel::call_func` (`call_func_indirect` with
//! `Kernel::call_prototype` through an address). A device function of `.reg` parameters
//! and results (as `Module::func` writes it) becomes `Module::func_into`, its calls
//! `Kernel::call_into`.
//!
//! What the builder has no typed call for is written through its escape hatches, as text:
//! module variables, `.file` lines, `.section` blocks and external declarations of kernels go
//! to [`Module::raw`](crate::Module::raw) (with [`Module::symbol`](crate::Module::symbol) for
//! the variables the code names), `.pragma` lines to `Kernel::raw`. `.loc` lines go to
//! `Kernel::loc`; the `.ptr` attributes of parameters are kept (`PointerParam`); `.texref`
//! and `.surfref` variables are `Module::texref`/`surfref`. A register wider than the
//! instruction's type is `r.wide()`, a data operand of `ld`, `ldu` or `st` in braces
//! (`{%rs1}`, which ptxas may assemble to other code) `r.braced()`, a dropped vector element
//! `None`, a vector of registers and immediates a tuple. A `-G` build (`.target sm_80, debug`) keeps its register and label
//! names (`Kernel::named_reg`, `named_label`) and its written zero offsets
//! (`Ptr::explicit_offset`), on which the code ptxas writes for it depends. A construct
//! outside what the generated code can express (`.calltargets`, a `.reg`-parameter function
//! with a linkage or declared apart from its body) is refused with its position:
//! [`ImportError::Unsupported`].

mod body;
mod func;
mod operands;

use super::ast::{self, Arena, Span, VarDecl};
use super::module::unsupported;
use super::parse::parse;
use super::print;
use super::ImportError;
use crate::core::{DType, RegClass, Space};
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
        "use ptxkit::builder::{Linkage, ParamBytes};\nuse ptxkit::ops::{m, Acc, Generic};\nuse ptxkit::prelude::*;\nuse ptxkit::regs::{ParamPtr, TensorAt, TmemAddr};\n\n",
    );
    out.push_str("/// The module, built.\npub fn module() -> Result<Module, ptxkit::Error> {\n");
    out.push_str(&g.out);
    out.push_str("    Ok(m)\n}\n");
    Ok(out)
}

/// The Rust type of a PTX type: `u32` is `U32`, `bf16x2` is `Bf16x2`.
pub(super) fn rust_type(t: DType) -> String {
    let n = t.name();
    n[..1].to_uppercase() + &n[1..]
}

/// The Rust type of a state space.
pub(super) fn rust_space(s: Space) -> Option<&'static str> {
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
pub(super) fn in_window(have: Space, want: Space) -> bool {
    use Space::*;
    have == want || matches!((have, want), (Shared, SharedCta) | (SharedCta, Shared) | (Shared | SharedCta, SharedCluster))
}

/// What a name stands for in the generated code.
#[derive(Clone, Debug)]
pub(super) enum Val {
    /// A register: its Rust expression and declared type.
    Reg(String, DType),
    /// A symbol with a pointer: the pointer's Rust expression and its space.
    Ptr(String, Space),
    Label(String),
    Targets(String),
    /// A `.param` variable of a function or a call: its Rust name and type
    /// (`ParamPtr<B32>`, `ParamBytes<12, 4>`).
    Var(String, String),
    /// A device function's handle and its parameter and result types.
    Func(String, Vec<String>, Vec<String>),
    /// A device function of `.reg` parameters: its handle and its parameter and result types.
    RegFunc(String, Vec<DType>, Vec<DType>),
    /// A kernel's handle (`KernelRef`), whose address the code takes.
    Entry(String),
    /// A `.callprototype`: its handle and its parameter and result types.
    Proto(String, Vec<String>, Vec<String>),
    /// A `.texref` or `.surfref` variable: its handle (`Texture`, `Surface`) and its kind.
    Handle(String, crate::core::Handles),
}

impl Val {
    /// The pointer expression of a `.param` variable.
    pub(super) fn var_ptr(id: &str, ty: &str) -> String {
        if ty.starts_with("ParamBytes") {
            format!("{id}.ptr::<B8>()")
        } else {
            id.to_string()
        }
    }
}

#[derive(Default)]
pub(super) struct Gen {
    out: String,
    /// Module-scope symbols with pointers.
    globals: HashMap<String, Val>,
    /// Rust names taken, at module scope and in the function being written.
    taken: HashSet<String>,
    /// Registers keep their names (a `debug` target).
    named: bool,
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop",
    "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield", "try", "k", "m", "Ok", "Err", "Some", "None",
];

impl Gen {
    /// A Rust identifier for `name` (with `prefix`), not taken yet.
    pub(super) fn ident(&mut self, prefix: &str, name: &str) -> String {
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
                        // A build without optimisation, whose code depends on the registers'
                        // names: they are kept (`Kernel::named_reg`).
                        "debug" => {
                            self.out.push_str("    m.set_debug(true);\n");
                            self.named = true;
                        }
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
                ast::Item::Function(func) if func.body.is_some() || func.kind == ast::FunctionKind::Func => self.function(func)?,
                ast::Item::Var(v) => self.var(v, item)?,
                // A kernel of another module (`.extern .entry`), whose address the code may take.
                ast::Item::Function(func) => {
                    let mut t = String::new();
                    print::item(&mut t, item);
                    let id = self.ident("e_", func.name);
                    let _ = writeln!(self.out, "    m.raw({:?}, &[{:?}])?;", t.trim_matches('\n'), func.name);
                    let _ = writeln!(self.out, "    let {id}: Ptr<Generic, U64> = m.symbol({:?})?;", func.name);
                    self.globals.insert(func.name.to_string(), Val::Ptr(id, Space::Generic));
                }
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
    pub(super) fn var(&mut self, v: &VarDecl, item: &ast::Item) -> Result<(), ImportError> {
        // A texture or surface reference: the builder's own declaration, and its handle.
        let handle = match v.ty {
            ".texref" => Some(("texref", crate::core::Handles::Texture)),
            ".surfref" => Some(("surfref", crate::core::Handles::Surface)),
            _ => None,
        };
        if let (Some((call, kind)), ".global", true, None) =
            (handle, v.space, v.attrs.iter().all(|a| *a == v.ty) && v.linkage.is_empty(), v.init)
        {
            for n in v.names.iter().filter(|n| n.dims.is_empty() && n.range.is_none()) {
                let id = self.ident("h_", n.name);
                let _ = writeln!(self.out, "    let {id} = m.{call}({:?})?;", n.name);
                self.globals.insert(n.name.to_string(), Val::Handle(id, kind));
            }
            if v.names.iter().all(|n| n.dims.is_empty() && n.range.is_none()) {
                return Ok(());
            }
        }
        let mut t = String::new();
        print::item(&mut t, item);
        // An `.extern` variable is declared here and defined elsewhere: the code names it all
        // the same.
        let defines: Vec<&str> = v.names.iter().map(|n| n.name).collect();
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
}
