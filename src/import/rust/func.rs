//! Kernels and device functions: signatures, parameters and directives.

use super::operands::align_of;
use super::operands::{exact_reg, lookup};
use super::{rust_type, Gen, Val};
use crate::core::{DType, RegClass, Space};
use crate::import::ast::{self, Arg, Function, FunctionKind, Instruction, Span, VarDecl};
use crate::import::module::unsupported;
use crate::import::resolve::Decls;
use crate::import::ImportError;
use std::collections::HashMap;
use std::fmt::Write;

impl Gen {
    pub(super) fn function(&mut self, f: &Function) -> Result<(), ImportError> {
        if f.kind == FunctionKind::Func {
            return self.device_function(f);
        }
        let kid = self.ident("e_", f.name);
        self.globals.insert(f.name.to_string(), Val::Entry(kid.clone()));
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
        let _ = writeln!(self.out, "    let {kid} = m.kernel({:?}, |k, {}: {}| {{", f.name, tuple(&names), tuple(&types));
        if f.linkage.contains(&".weak") {
            self.out.push_str("        k.weak();\n");
        }
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
        self.body(f, scope)?;
        self.out.push_str("    })?;\n");
        self.taken = module_names;
        Ok(())
    }

    /// A device function of `.param` parameters and results: a declaration
    /// (`Module::declare_func`), a definition (`Module::param_func`), or the definition of a
    /// function declared before or calling itself (`Module::define_func`).
    fn device_function(&mut self, f: &Function) -> Result<(), ImportError> {
        let reg = |d: &Option<&[VarDecl]>| d.unwrap_or_default().iter().any(|p| p.space == ".reg");
        if reg(&f.params) || reg(&f.rets) {
            return self.reg_function(f);
        }
        let linkage = if f.linkage.contains(&".visible") {
            "Visible"
        } else if f.linkage.contains(&".weak") {
            "Weak"
        } else if f.linkage.contains(&".extern") {
            "Extern"
        } else {
            "Internal"
        };
        if let Some(d) = f.directives.first() {
            return Err(unsupported(d.span, format!("the directive `{}` of a device function", d.name)));
        }
        let module_names = self.taken.clone();
        let mut scope: HashMap<String, Val> = self.globals.clone();
        let mut sig = |decls: &[VarDecl], prefix: &str| -> Result<(Vec<String>, Vec<String>), ImportError> {
            let (mut names, mut types) = (vec![], vec![]);
            for (i, p) in decls.iter().enumerate() {
                let [n] = p.names else { return Err(unsupported(p.span, "a parameter declaration of several names")) };
                let Some(ty) = (p.space == ".param").then(|| param_var_type(p)).flatten() else {
                    return Err(unsupported(p.span, format!("the parameter `{}` of a device function", n.name)));
                };
                let id = self.ident(prefix, &i.to_string());
                scope.insert(n.name.to_string(), Val::Var(id.clone(), ty.clone()));
                names.push(id);
                types.push(ty);
            }
            Ok((names, types))
        };
        let (pnames, ptypes) = sig(f.params.unwrap_or_default(), "param")?;
        let (rnames, rtypes) = sig(f.rets.unwrap_or_default(), "retval")?;
        let declared = match self.globals.get(f.name) {
            Some(Val::Func(id, p, r)) if *p == ptypes && *r == rtypes => Some(id.clone()),
            Some(_) => return Err(unsupported(f.span, format!("`{}` declared twice, or with other parameters", f.name))),
            None => None,
        };
        let Some(body) = f.body else {
            if declared.is_some() {
                return Err(unsupported(f.span, format!("`{}` declared twice", f.name)));
            }
            self.declare(f.name, linkage, (&ptypes, &rtypes));
            return Ok(());
        };
        // A function that calls itself needs its handle in its own body: declared first.
        let declared = match declared {
            None if calls(body, f.name) => {
                let id = self.declare(f.name, linkage, (&ptypes, &rtypes));
                scope.insert(f.name.to_string(), Val::Func(id.clone(), ptypes.clone(), rtypes.clone()));
                Some(id)
            }
            d => d,
        };
        let sig = format!("{}: {}, {}: {}", tuple(&pnames), tuple(&ptypes), tuple(&rnames), tuple(&rtypes));
        let id = match &declared {
            Some(id) => {
                let _ = writeln!(self.out, "    m.define_func(&{id}, |k, {sig}| {{");
                id.clone()
            }
            None => {
                let id = self.ident("f_", f.name);
                let _ = writeln!(self.out, "    let {id} = m.param_func({:?}, Linkage::{linkage}, |k, {sig}| {{", f.name);
                id
            }
        };
        self.body(f, scope)?;
        self.out.push_str("    })?;\n");
        self.taken = module_names;
        self.taken.insert(id.clone());
        self.globals.insert(f.name.to_string(), Val::Func(id, ptypes, rtypes));
        Ok(())
    }

    /// A device function of `.reg` parameters and results (as ptxkit's `Module::func`
    /// writes it), defined where it is declared, in the module's own linkage:
    /// `Module::func_into`, whose body writes the result registers.
    fn reg_function(&mut self, f: &Function) -> Result<(), ImportError> {
        if let Some(l) = f.linkage.first() {
            return Err(unsupported(f.span, format!("a device function of `.reg` parameters declared `{l}`")));
        }
        if let Some(d) = f.directives.first() {
            return Err(unsupported(d.span, format!("the directive `{}` of a device function", d.name)));
        }
        let Some(body) = f.body else { return Err(unsupported(f.span, "a device function of `.reg` parameters declared without a body")) };
        if self.globals.contains_key(f.name) || calls(body, f.name) {
            return Err(unsupported(f.span, format!("`{}` declared before, or calling itself", f.name)));
        }
        let module_names = self.taken.clone();
        let mut scope: HashMap<String, Val> = self.globals.clone();
        let mut sig = |decls: &[VarDecl], prefix: &str| -> Result<(Vec<String>, Vec<DType>), ImportError> {
            let (mut names, mut types) = (vec![], vec![]);
            for p in decls {
                let ty = DType::from_name(p.ty.trim_start_matches('.'));
                let ([n], ".reg", Some(ty), [], None) = (p.names, p.space, ty, p.names.first().map_or(&[][..], |n| n.dims), &p.init) else {
                    return Err(unsupported(p.span, "a parameter that is no scalar `.reg` among `.reg` parameters"));
                };
                let id = self.ident(prefix, n.name.trim_start_matches('%'));
                scope.insert(n.name.to_string(), Val::Reg(id.clone(), ty));
                names.push(id);
                types.push(ty);
            }
            Ok((names, types))
        };
        let (pnames, ptypes) = sig(f.params.unwrap_or_default(), "p_")?;
        let (rnames, rtypes) = sig(f.rets.unwrap_or_default(), "r_")?;
        let regs = |t: &[DType]| t.iter().map(|t| format!("Reg<{}>", rust_type(*t))).collect::<Vec<_>>();
        let id = self.ident("f_", f.name);
        let _ = writeln!(
            self.out,
            "    let {id} = m.func_into({:?}, |k, {}: {}, {}: {}| {{",
            f.name,
            tuple(&pnames),
            tuple(&regs(&ptypes)),
            tuple(&rnames),
            tuple(&regs(&rtypes))
        );
        self.body(f, scope)?;
        self.out.push_str("    })?;\n");
        self.taken = module_names;
        self.taken.insert(id.clone());
        self.globals.insert(f.name.to_string(), Val::RegFunc(id, ptypes, rtypes));
        Ok(())
    }

    /// `let f_name = m.declare_func::<P, R>("name", Linkage::…)?;`, the handle recorded among
    /// the module's names.
    fn declare(&mut self, name: &str, linkage: &str, (ptypes, rtypes): (&[String], &[String])) -> String {
        let id = self.ident("f_", name);
        let _ = writeln!(self.out, "    let {id} = m.declare_func::<{}, {}>({name:?}, Linkage::{linkage})?;", tuple(ptypes), tuple(rtypes));
        self.globals.insert(name.to_string(), Val::Func(id.clone(), ptypes.to_vec(), rtypes.to_vec()));
        id
    }

    /// A body without its closing `ret` (the builder's own), in the scope of its parameters.
    fn body(&mut self, f: &Function, scope: HashMap<String, Val>) -> Result<(), ImportError> {
        let decls = Decls::of(f);
        let body = f.body.unwrap_or_default();
        // The closing `ret` is the builder's own.
        let body = match body.last() {
            Some(ast::Stmt::Ins(i)) if i.guard.is_none() && i.chain == "ret" => &body[..body.len() - 1],
            _ => body,
        };
        let mut scopes = vec![scope];
        self.block(body, &mut scopes, &decls, 2)
    }

    /// `call{.uni} (rets), f, (args){, proto};` through the function's handle (or a register
    /// and a prototype's), with the `.param` variables declared before it.
    pub(super) fn call(&mut self, i: &Instruction, scopes: &[HashMap<String, Val>]) -> Result<String, ImportError> {
        let at = |what: String| unsupported(i.span, format!("`{}`: {what}", i.chain));
        let uni = match i.chain {
            "call" => "",
            "call.uni" => "_uni",
            _ => return Err(at("a call of these modifiers".into())),
        };
        let (rets, rest) = match i.operands {
            [Arg::Paren(r), rest @ ..] => (*r, rest),
            ops => (&[][..], ops),
        };
        let (callee, args, proto) = match rest {
            [Arg::Name(f)] => (*f, &[][..], None),
            [Arg::Name(f), Arg::Paren(a)] => (*f, *a, None),
            [Arg::Name(f), Arg::Paren(a), Arg::Name(p)] => (*f, *a, Some(*p)),
            _ => return Err(at("a call of this shape".into())),
        };
        let vars = |list: &[Arg]| -> Result<(Vec<String>, Vec<String>), ImportError> {
            let (mut ids, mut types) = (vec![], vec![]);
            for a in list {
                match a {
                    Arg::Name(n) => match lookup(scopes, n) {
                        Some(Val::Var(id, ty)) => {
                            ids.push(id);
                            types.push(ty);
                        }
                        _ => return Err(at(format!("`{n}` is no `.param` variable"))),
                    },
                    _ => return Err(at("an argument that is no `.param` variable".into())),
                }
            }
            Ok((ids, types))
        };
        // A function of `.reg` parameters: registers in and out.
        if let Some(Val::RegFunc(id, p, r)) = lookup(scopes, callee) {
            let regs = |list: &[Arg], types: &[DType]| -> Result<Vec<String>, ImportError> {
                if list.len() != types.len() {
                    return Err(at(format!("`{callee}` takes {} here, not {}", types.len(), list.len())));
                }
                list.iter().zip(types).map(|(a, t)| exact_reg(a, *t, scopes).map_err(at)).collect()
            };
            if proto.is_some() {
                return Err(at("a call of a `.reg`-parameter function with a prototype".into()));
            }
            let call = format!("k.call{uni}_into(&{id}, {}, {});", tuple(&regs(rets, &r)?), tuple(&regs(args, &p)?));
            return self.guard_call(i, call, scopes);
        }
        let (rids, rtypes) = vars(rets)?;
        let (aids, atypes) = vars(args)?;
        let call = match (lookup(scopes, callee), proto) {
            (Some(Val::Func(id, p, r)), None) if p == atypes && r == rtypes => {
                format!("k.call_func{uni}(&{id}, {}, {});", tuple(&rids), tuple(&aids))
            }
            (Some(Val::Reg(..)), Some(proto)) if uni.is_empty() => {
                let addr = exact_reg(&Arg::Name(callee), DType::U64, scopes).map_err(at)?;
                match lookup(scopes, proto) {
                    Some(Val::Proto(pid, p, r)) if p == atypes && r == rtypes => {
                        format!("k.call_func_indirect({addr}, &{pid}, {}, {});", tuple(&rids), tuple(&aids))
                    }
                    _ => return Err(at(format!("`{proto}` is no prototype of these parameters"))),
                }
            }
            _ => return Err(at(format!("`{callee}` is no function declared before with these parameters"))),
        };
        self.guard_call(i, call, scopes)
    }

    /// The call under the instruction's guard, if it has one.
    fn guard_call(&self, i: &Instruction, call: String, scopes: &[HashMap<String, Val>]) -> Result<String, ImportError> {
        Ok(match i.guard {
            None => call,
            Some((neg, p)) => match lookup(scopes, p) {
                Some(Val::Reg(e, DType::Pred)) => format!("k.guarded({}{e}, |k| {call});", if neg { "!" } else { "" }),
                _ => return Err(unsupported(i.span, format!("`{}`: the guard `{p}` is not a predicate", i.chain))),
            },
        })
    }

    /// `name: .callprototype (rets) _ (params);` through `Kernel::call_prototype`.
    pub(super) fn prototype(
        &mut self,
        label: &str,
        words: &[&str],
        span: Span,
        scope: &mut HashMap<String, Val>,
        pad: &str,
    ) -> Result<(), ImportError> {
        let bad = || unsupported(span, format!("the prototype `{label}`"));
        // Groups in parentheses, and the `_` that names the function between them.
        let mut groups: Vec<Vec<Vec<&str>>> = vec![];
        let mut cur: Option<Vec<Vec<&str>>> = None;
        for w in words {
            match (*w, &mut cur) {
                ("(", None) => cur = Some(vec![vec![]]),
                (")", Some(_)) => groups.push(cur.take().expect("a group")),
                (",", Some(g)) => g.push(vec![]),
                (w, Some(g)) => g.last_mut().expect("a declaration").push(w),
                ("_", None) => {}
                _ => return Err(bad()),
            }
        }
        let (rets, params) = match groups.len() {
            1 => (vec![], groups.pop().expect("a group")),
            2 => {
                let p = groups.pop().expect("a group");
                (groups.pop().expect("a group"), p)
            }
            _ => return Err(bad()),
        };
        let types =
            |g: Vec<Vec<&str>>| -> Option<Vec<String>> { g.into_iter().filter(|d| !d.is_empty()).map(|d| proto_param_type(&d)).collect() };
        let (Some(p), Some(r)) = (types(params), types(rets)) else { return Err(bad()) };
        let id = self.ident("proto_", label);
        let _ = writeln!(self.out, "{pad}let {id} = k.call_prototype::<{}, {}>({label:?});", tuple(&p), tuple(&r));
        scope.insert(label.to_string(), Val::Proto(id, p, r));
        Ok(())
    }
}

/// Whether a body calls `name`.
fn calls(body: &[ast::Stmt], name: &str) -> bool {
    body.iter().any(|s| match s {
        ast::Stmt::Ins(i) => i.chain.starts_with("call") && i.operands.iter().any(|a| *a == Arg::Name(name)),
        ast::Stmt::Block(b, _) => calls(b, name),
        _ => false,
    })
}

/// The scalar types a `.param` variable of the builder has (`ScalarParam`).
const SCALAR_PARAMS: &[&str] =
    &["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64", "f16", "bf16", "f16x2", "bf16x2"];

/// The Rust type of a `.param` variable of type `ty`, alignment `align` and length `len`:
/// `ParamPtr<T>` for a scalar, `ParamBytes<N, A>` for bytes.
fn param_type(ty: &str, align: Option<u64>, len: Option<u64>) -> Option<String> {
    let t = ty.trim_start_matches('.');
    match len {
        None if SCALAR_PARAMS.contains(&t) => Some(format!("ParamPtr<{}>", rust_type(DType::from_name(t)?))),
        Some(n) if (t == "b8" || t == "u8") && (1..=4096).contains(&n) => {
            let a = align.unwrap_or(1);
            (a.is_power_of_two() && a <= 128 && (a != 64 || n % 4 == 0)).then(|| format!("ParamBytes<{n}, {a}>"))
        }
        _ => None,
    }
}

/// The Rust type of a `.param` declaration.
pub(super) fn param_var_type(p: &VarDecl) -> Option<String> {
    let [n] = p.names else { return None };
    if p.init.is_some() || p.attrs.iter().any(|a| a.starts_with(".v") || *a == ".ptr") {
        return None;
    }
    let len = match n.dims {
        [] => None,
        [Some(l)] => Some(*l),
        _ => return None,
    };
    param_type(p.ty, align_of(p), len)
}

/// The Rust type of a prototype's parameter, as its words: `.param .align 4 .b8 _ [ 12 ]`.
fn proto_param_type(d: &[&str]) -> Option<String> {
    let (mut align, mut ty, mut len) = (None, None, None);
    let mut it = d.iter().peekable();
    while let Some(w) = it.next() {
        match *w {
            ".param" | "_" | "]" => {}
            ".align" => align = Some(it.next()?.parse().ok()?),
            "[" => len = Some(it.next()?.parse().ok()?),
            t if t.starts_with('.') && ty.is_none() => ty = Some(t),
            _ => return None,
        }
    }
    param_type(ty?, align, len)
}

/// A Rust tuple type of `types`: `(T,)` for one.
fn tuple(types: &[String]) -> String {
    if types.len() == 1 {
        format!("({},)", types[0])
    } else {
        format!("({})", types.join(", "))
    }
}
