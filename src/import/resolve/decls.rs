//! What the declarations say: the register names of a function (`.reg .b32 %r<120>;`,
//! `.reg .pred p, q;`) and their types, so that forms the syntax alone cannot tell apart —
//! variants whose operands differ only in a register's type, such as `cp.async`'s
//! `src_size` (`u32`) and `ignore_src` (`pred`) — are told apart by the register written.

use super::{resolve, Finding, FindingKind, Resolved};
use crate::core::{DType, FormDesc, Kind, RegClass};
use crate::import::ast::{Arg, File, Function, Instruction, Item, Stmt};
use std::collections::HashMap;

/// The registers a function declares, by name, with their types.
#[derive(Clone, Debug, Default)]
pub struct Decls {
    /// Names declared one by one.
    names: HashMap<String, DType>,
    /// `%r<120>`: a prefix, how many, and the type.
    ranges: Vec<(String, u32, DType)>,
}

impl Decls {
    /// The `.reg` declarations of `f`'s body, nested blocks included.
    pub fn of(f: &Function) -> Decls {
        let mut d = Decls::default();
        fn walk(d: &mut Decls, body: &[Stmt]) {
            for s in body {
                match s {
                    Stmt::Decl(v) if v.space == ".reg" => {
                        let Some(t) = DType::from_name(v.ty.trim_start_matches('.')) else { continue };
                        for n in v.names {
                            match n.range {
                                Some(k) => d.ranges.push((n.name.to_string(), k, t)),
                                None => _ = d.names.insert(n.name.to_string(), t),
                            }
                        }
                    }
                    Stmt::Block(b, _) => walk(d, b),
                    _ => {}
                }
            }
        }
        walk(&mut d, f.body.unwrap_or_default());
        d
    }

    /// The declared type of register `name`.
    pub fn type_of(&self, name: &str) -> Option<DType> {
        if let Some(&t) = self.names.get(name) {
            return Some(t);
        }
        self.ranges.iter().find_map(|(prefix, n, t)| {
            let i: u32 = name.strip_prefix(prefix.as_str())?.parse().ok()?;
            (i < *n).then_some(*t)
        })
    }
}

/// [`resolve`], and where several variants take the instruction, the one whose registers
/// have the declared types' register classes (the others' are set aside).
pub fn resolve_in(ins: &Instruction, decls: &Decls) -> Result<Resolved, Finding> {
    let err = match resolve(ins) {
        Ok(r) => return Ok(r),
        Err(e) => e,
    };
    let FindingKind::Ambiguous { forms, .. } = &err.kind else { return Err(err) };
    let fits: Vec<&'static FormDesc> = forms.iter().copied().filter(|d| declared_fit(d, ins, decls)).collect();
    match fits[..] {
        [d] => resolve_as(d).ok_or(err),
        _ => Err(err),
    }
}

/// Whether each source operand that is a declared register has the register class of the
/// form's value operand at its place (and a number is not where a predicate goes).
fn declared_fit(d: &FormDesc, ins: &Instruction, decls: &Decls) -> bool {
    let first = ins.operands.len().saturating_sub(d.src.len());
    d.src.iter().zip(&ins.operands[first..]).all(|(k, o)| match (k, o) {
        (Kind::Val(t), Arg::Name(n)) => decls.type_of(n).is_none_or(|r| r.class() == t.class()),
        // A number is no predicate; a negated operand is one.
        (Kind::Val(t), Arg::Number(_)) => t.class() != RegClass::Pred,
        (Kind::Val(t), Arg::Not(_)) => t.class() == RegClass::Pred,
        _ => true,
    })
}

/// The [`Resolved`] of form `d` (one of the candidates [`resolve`] found for `ins`).
fn resolve_as(d: &'static FormDesc) -> Option<Resolved> {
    let family = crate::ops::families().iter().find(|(_, forms)| forms.iter().any(|f| std::ptr::eq(f, d)))?.0;
    Some(Resolved { form: d, family })
}

/// The functions of `files`: each one's declarations and instructions (nested blocks
/// included), in order.
pub fn functions<'s, 'a: 's>(files: impl IntoIterator<Item = &'s File<'a>>) -> Vec<(Decls, Vec<&'s Instruction<'a>>)> {
    files
        .into_iter()
        .flat_map(|f| &f.items)
        .filter_map(|item| match item {
            Item::Function(func) => Some((Decls::of(func), func.instructions())),
            _ => None,
        })
        .collect()
}
