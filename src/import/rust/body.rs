//! Bodies: labels, declarations, blocks and the `ptx!` call of each instruction.

use super::operands::{align_of, dst, lookup, src};
use super::{rust_type, Gen, Val};
use crate::core::{DType, RegClass, Space};
use crate::import::ast::{self, Instruction, VarDecl};
use crate::import::module::unsupported;
use crate::import::print;
use crate::import::resolve::{resolve_in, Decls, FindingKind};
use crate::import::ImportError;
use std::collections::HashMap;
use std::fmt::Write;

impl Gen {
    pub(super) fn block(
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
                // A `-G` build's debug sections name its labels.
                let label = if self.named { format!("k.named_label({l:?})") } else { "k.label()".into() };
                let _ = writeln!(self.out, "{pad}let {id} = {label};");
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
                    let _ = writeln!(self.out, "{pad}k.block(|k| {{");
                    self.block(b, scopes, decls, depth + 1)?;
                    let _ = writeln!(self.out, "{pad}}});");
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
                ast::Stmt::CallPrototype { label, words, span } => {
                    let mut scope = scopes.pop().expect("a scope");
                    let r = self.prototype(label, words, *span, &mut scope, &pad);
                    scopes.push(scope);
                    r?
                }
                ast::Stmt::CallTargets { span, .. } => return Err(unsupported(*span, "`.calltargets`")),
            }
        }
        scopes.pop();
        Ok(())
    }

    /// A declaration in a body: registers, or a `.shared`/`.local` array.
    pub(super) fn decl(&mut self, v: &VarDecl, scopes: &mut [HashMap<String, Val>], pad: &str) -> Result<(), ImportError> {
        let ty = DType::from_name(v.ty.trim_start_matches('.'));
        let scope = scopes.last_mut().expect("a scope");
        match v.space {
            ".reg" => {
                let Some(t) = ty.filter(|_| !v.attrs.iter().any(|a| a.starts_with(".v"))) else {
                    return Err(unsupported(v.span, format!("registers of type `{}`", v.attrs.join(" "))));
                };
                for n in v.names {
                    let id = self.ident("", n.name.trim_start_matches('%'));
                    let (one, each) = match self.named {
                        true => (format!("k.named_reg({:?})", n.name), format!("|i| k.named_reg(&format!(\"{}{{i}}\"))", n.name)),
                        false => ("k.reg()".to_string(), "|_| k.reg()".to_string()),
                    };
                    match n.range {
                        Some(count) => {
                            let _ = writeln!(self.out, "{pad}let {id}: Vec<Reg<{}>> = (0..{count}).map({each}).collect();", rust_type(t));
                            for (i, name) in n.names().enumerate() {
                                scope.insert(name, Val::Reg(format!("{id}[{i}]"), t));
                            }
                        }
                        None => {
                            let _ = writeln!(self.out, "{pad}let {id}: Reg<{}> = {one};", rust_type(t));
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
            ".param" => {
                let Some(ty) = super::func::param_var_type(v) else {
                    return Err(unsupported(v.span, format!("the `.param` declaration of `{}`", v.names.first().map_or("", |n| n.name))));
                };
                let name = v.names[0].name;
                let id = self.ident("p_", name);
                let _ = writeln!(self.out, "{pad}let {id}: {ty} = k.param_var({name:?});");
                scope.insert(name.to_string(), Val::Var(id, ty));
                Ok(())
            }
            _ => Err(unsupported(v.span, format!("a `{}` declaration in a body", v.space))),
        }
    }

    /// The `ptx!` call of one instruction.
    pub(super) fn instruction(&mut self, i: &Instruction, scopes: &[HashMap<String, Val>], decls: &Decls) -> Result<String, ImportError> {
        let form = match resolve_in(i, decls) {
            Ok(r) => r.form,
            Err(f) if f.kind == FindingKind::Call => return self.call(i, scopes),
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
        for (j, (kind, a)) in form.src.iter().zip(&i.operands[first..]).enumerate() {
            let wide = ptxkit_tables::wide::src(form.opcode(), j);
            let o = src(kind, a, (wide, wide && ptxkit_tables::wide::braced(form.opcode())), scopes).map_err(at)?;
            let _ = write!(s, ", {o}");
        }
        s.push_str(");");
        Ok(s)
    }
}
