//! Resolution: each parsed instruction named by its typed form. The chain is looked up as
//! `ptx!` looks it up (in table order, or in another order ptxas accepts: `tables/orders.tsv`),
//! with no other spelling mapped: `.shared` is the form `.shared` names, not `.shared::cta`'s,
//! and `ld.u32` is the generic load. Then the operand list picks the variant: its shape is
//! compared, syntactically, with each candidate's destination and source kinds. What names a
//! register, a variable or a label is not known here, so a name is taken wherever a value, a
//! label or a handle is, and variants that differ only in a register's type are ambiguous.
//!
//! A chain that names no form is a coverage finding; a chain whose forms take other operand
//! lists, or an instruction that several forms take, is a finding of its own kind; a `call` is
//! not a table form (the builder emits calls as statements of their own) and is reported as
//! such. [`coverage`] counts a whole file's instructions.

mod coverage;
mod decls;
mod operands;
#[cfg(test)]
mod tests;

pub use coverage::{coverage, coverage_of, ChainCount, Coverage, Group};
pub use decls::{functions, resolve_in, Decls};
pub use operands::{expected, written};

use super::ast::{Arg, Instruction, Span};
use crate::core::FormDesc;
use crate::ops::families;
use ptxkit_tables::{orders, suggest, tables, Form, Tables};
use std::fmt;
use std::sync::OnceLock;

/// The form an instruction names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resolved {
    /// The form's descriptor: its chain in table order and its variant.
    pub form: &'static FormDesc,
    /// The family (table file) the form comes from.
    pub family: &'static str,
}

impl Resolved {
    /// The chain in table order (`ld.relaxed.gpu.global.u32` for `ld.global.relaxed.gpu.u32`).
    pub fn chain(&self) -> &'static str {
        self.form.chain
    }
    /// `plain` or the variant its operand list picked (`pair`, `counted`, …).
    pub fn variant(&self) -> &'static str {
        self.form.variant
    }
}

/// Why an instruction names no single form.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub span: Span,
    /// The chain as written, dotted.
    pub chain: String,
    pub kind: FindingKind,
}

/// The kinds of [`Finding`].
#[derive(Clone, Debug, PartialEq)]
pub enum FindingKind {
    /// No form has these parts in this order (or in any order ptxas accepts): the tables
    /// lack the instruction, or it is misspelt. [`FindingKind::advice`] says which chains are
    /// near.
    NoForm,
    /// A `call`: the builder emits calls as statements of their own (`builder::calls`), not
    /// as table forms.
    Call,
    /// Forms have these parts, but none takes this operand list: what each expects, and
    /// why the operands written are not it.
    Operands {
        /// The operands as written (`%r6|%p2, %r5, 16`), and how many.
        written: String,
        count: usize,
        /// One line per candidate form: its variant, its operands in the tables' notation and
        /// the first operand that differs.
        expected: Vec<Mismatch>,
    },
    /// Several forms take this instruction: variants whose operands differ only in the type
    /// of a register or immediate (which the syntax does not say: the register's declaration
    /// decides), or chains with the same parts that an order names alike.
    Ambiguous {
        forms: Vec<&'static FormDesc>,
        /// Where they differ: `operand 4 is `u32` (src_size) or `pred` (ignore_src)`; empty
        /// where they are different chains.
        differ: String,
    },
}

/// What one candidate form expects, and where the instruction departs from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub form: &'static FormDesc,
    /// `4 operands (f32 = f32, f32, f32)`.
    pub expects: String,
    /// `operand 2 is `[%rd1]`, not `f32``, or `3 operands written`.
    pub why: String,
}

impl FindingKind {
    /// For [`FindingKind::NoForm`]: what `ptx!` would say of the chain (an unknown opcode or
    /// modifier, an order ptxas rejects, the chains that add a missing part, the nearest
    /// ones). Computed when asked: it searches the tables.
    pub fn advice(&self, chain: &[impl AsRef<str>]) -> Option<String> {
        if *self != FindingKind::NoForm || chain.first().is_none_or(|p| p.as_ref().is_empty()) {
            return None;
        }
        let parts: Vec<&str> = chain.iter().map(AsRef::as_ref).collect();
        let t = tables().ok()?;
        let m = suggest::explain(t, &parts.join("."), &parts, "plain");
        Some(m.strip_prefix("ptx!: ").unwrap_or(&m).to_string())
    }

    /// A short name for grouping: `no form`, `call`, `operands`, `ambiguous`.
    pub fn label(&self) -> &'static str {
        match self {
            FindingKind::NoForm => "no form",
            FindingKind::Call => "call",
            FindingKind::Operands { .. } => "operands",
            FindingKind::Ambiguous { .. } => "ambiguous",
        }
    }
}

/// The tables and, for each of their forms (by index), its run-time descriptor and family.
struct Index {
    t: &'static Tables,
    descs: Vec<(&'static FormDesc, &'static str)>,
}

fn index() -> &'static Index {
    static I: OnceLock<Index> = OnceLock::new();
    I.get_or_init(|| {
        let t = tables().expect("the tables were checked when ptxkit was built");
        let fams = families();
        let mut descs: Vec<Option<(&'static FormDesc, &'static str)>> = vec![None; t.forms.len()];
        for (fam, (name, forms)) in t.families.iter().zip(fams) {
            debug_assert_eq!(fam.name, *name);
            for (&i, d) in fam.forms.iter().zip(forms.iter()) {
                descs[i] = Some((d, name));
            }
        }
        let descs = descs.into_iter().map(|d| d.expect("every form belongs to a family")).collect();
        Index { t, descs }
    })
}

/// The table forms `parts` names, in table order or another order ptxas accepts: for each
/// variant, the form in table order where there is one, else every form whose order rule
/// admits the spelling (as [`Tables::resolve`] does for `ptx!`, which takes only a single
/// such form).
fn candidates(t: &Tables, parts: &[&str]) -> Vec<usize> {
    let same = t.same_parts(parts);
    let exact = |i: usize| t.forms[i].parts.len() == parts.len() && t.forms[i].parts.iter().zip(parts).all(|(a, b)| a == b);
    let exact_variants: Vec<&str> = same.iter().filter(|&&i| exact(i)).map(|&i| t.forms[i].variant.as_str()).collect();
    let Ok(o) = orders() else { return same.iter().copied().filter(|&i| exact(i)).collect() };
    same.iter()
        .copied()
        .filter(|&i| {
            let f: &Form = &t.forms[i];
            if exact(i) {
                return true;
            }
            !exact_variants.contains(&f.variant.as_str()) && o.check(&f.parts, parts).is_ok()
        })
        .collect()
}

/// The form `ins` names: its chain (in any order ptxas accepts) and the variant whose
/// operands have the shape of `ins`'s. Guards do not take part.
pub fn resolve(ins: &Instruction) -> Result<Resolved, Finding> {
    let finding = |kind| Finding { span: ins.span, chain: ins.chain.to_string(), kind };
    let ix = index();
    let parts: Vec<&str> = ins.parts().collect();
    let Some(&op) = parts.first() else { return Err(finding(FindingKind::NoForm)) };
    if op == "call" && !ix.t.by_opcode.contains_key("call") {
        return Err(finding(FindingKind::Call));
    }
    let cands = candidates(ix.t, &parts);
    if cands.is_empty() {
        return Err(finding(FindingKind::NoForm));
    }
    let try_all = |ops: &[Arg]| {
        let (mut taken, mut missed) = (vec![], vec![]);
        for &i in &cands {
            let (d, _) = ix.descs[i];
            match operands::check(d, &ix.t.forms[i], ops) {
                Ok(()) => taken.push(i),
                Err(why) => missed.push(Mismatch { form: d, expects: expected(&ix.t.forms[i]), why }),
            }
        }
        (taken, missed)
    };
    let (mut taken, missed) = try_all(ins.operands);
    // `{x}` read as `x` where no form takes it braced: ptxas takes a braced single operand
    // where one value goes (Triton writes its scalar loads and stores so:
    // `ld.global.b16 {%rs1}, [%rd1];`).
    if taken.is_empty() && ins.operands.iter().any(|o| matches!(o, Arg::Vector(v) if v.len() == 1)) {
        let plain: Vec<Arg> = ins
            .operands
            .iter()
            .map(|o| match o {
                Arg::Vector(v) if v.len() == 1 => v[0],
                o => *o,
            })
            .collect();
        taken = try_all(&plain).0;
    }
    match taken[..] {
        [i] => Ok(Resolved { form: ix.descs[i].0, family: ix.descs[i].1 }),
        [] => Err(finding(FindingKind::Operands { written: written(ins.operands), count: ins.operands.len(), expected: missed })),
        _ => Err(finding(FindingKind::Ambiguous {
            forms: taken.iter().map(|&i| ix.descs[i].0).collect(),
            differ: differ(taken.iter().map(|&i| &ix.t.forms[i])),
        })),
    }
}

/// Where forms that take the same operand list differ: each operand position whose kind is
/// written differently, with each form's kind (`operand 4 is `u32` (src_size) or `pred`
/// (ignore_src)`).
fn differ<'a>(forms: impl Iterator<Item = &'a Form> + Clone) -> String {
    let kinds = |f: &Form| -> Vec<String> {
        let mut v: Vec<String> = match &f.dst {
            ptxkit_tables::Dst::None => vec![],
            ptxkit_tables::Dst::Multi(ds) => ds.iter().map(ToString::to_string).collect(),
            d => vec![d.to_string()],
        };
        v.extend(f.srcs.iter().map(ToString::to_string));
        v
    };
    let all: Vec<(&Form, Vec<String>)> = forms.map(|f| (f, kinds(f))).collect();
    let Some((first, k0)) = all.first() else { return String::new() };
    if all.iter().any(|(f, _)| f.chain != first.chain) {
        return String::new();
    }
    let mut out = vec![];
    for (at, k) in k0.iter().enumerate() {
        if all.iter().all(|(_, ks)| ks.get(at) == Some(k)) {
            continue;
        }
        let each: Vec<String> = all.iter().map(|(f, ks)| format!("`{}` ({})", ks.get(at).map_or("-", String::as_str), f.variant)).collect();
        out.push(format!("operand {} is {}", at + 1, each.join(" or ")));
    }
    out.join("; ")
}

/// `chain as variant`, or the chain for `plain`.
pub(crate) fn form_name(d: &FormDesc) -> String {
    if d.variant == "plain" {
        format!("`{}`", d.chain)
    } else {
        format!("`{}` as {}", d.chain, d.variant)
    }
}

impl fmt::Display for FindingKind {
    /// The reason alone (without the chain's advice, which [`Finding`]'s display adds).
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            FindingKind::NoForm => f.write_str("names no form, in this order or any other ptxas accepts"),
            FindingKind::Call => f.write_str("a call: not a table form (the builder emits calls as statements of their own)"),
            FindingKind::Operands { written, count, expected } => {
                let s = if *count == 1 { "" } else { "s" };
                write!(f, "no form takes these {count} operand{s} ({written}):")?;
                for m in expected {
                    write!(f, "\n    {} takes {}; {}", form_name(m.form), m.expects, m.why)?;
                }
                Ok(())
            }
            FindingKind::Ambiguous { forms, differ } => {
                let names: Vec<String> = forms.iter().map(|d| form_name(d)).collect();
                write!(f, "{} forms take it: {}", forms.len(), names.join(", "))?;
                if !differ.is_empty() {
                    write!(f, "; {differ}, which the register's declaration decides")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}: `{}`: {}", self.span.line, self.span.col, self.chain, self.kind)?;
        let parts: Vec<&str> = self.chain.split('.').collect();
        if let Some(a) = self.kind.advice(&parts) {
            write!(f, " ({a})")?;
        }
        Ok(())
    }
}
