//! How much of a file the tables cover: every instruction resolved, counted by chain, and the
//! findings of those that name no single form, grouped by chain.

use super::decls::{functions, resolve_in};
use super::{resolve, Finding, FindingKind, Resolved};
use crate::import::ast::{File, Instruction};
use std::collections::HashMap;
use std::fmt;

/// The instructions of one chain (as written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainCount {
    pub chain: String,
    pub resolved: usize,
    /// Findings (calls left out).
    pub unresolved: usize,
    /// `call`s, no table forms.
    pub calls: usize,
}

/// The findings of one chain (as written), in the order met.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub chain: String,
    pub findings: Vec<Finding>,
}

/// A coverage report: see [`coverage`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    /// Instructions seen.
    pub instructions: usize,
    /// Those that named one form.
    pub resolved: usize,
    /// `call`s, which are no table forms (counted here, not among the findings).
    pub calls: usize,
    /// Every chain, the most instructions first (then by name).
    pub chains: Vec<ChainCount>,
    /// The findings, by chain, the most frequent chain first (then by name); calls left out.
    pub groups: Vec<Group>,
}

impl Coverage {
    /// Instructions that named no form, calls left out.
    pub fn unresolved(&self) -> usize {
        self.instructions - self.resolved - self.calls
    }
    /// The chains no form has (coverage the tables lack), most frequent first.
    pub fn missing_chains(&self) -> impl Iterator<Item = &str> {
        self.groups.iter().filter(|g| g.findings.iter().any(|f| f.kind == FindingKind::NoForm)).map(|g| g.chain.as_str())
    }
}

/// Resolves every instruction and counts the results by chain. Variants that only a
/// register's declared type tells apart stay ambiguous here; [`coverage_of`] reads the
/// declarations.
pub fn coverage<'s, 'a: 's>(instructions: impl IntoIterator<Item = &'s Instruction<'a>>) -> Coverage {
    tally(instructions.into_iter().map(|i| (i, resolve(i))))
}

/// [`coverage`] of every instruction of `files`, each resolved with its function's register
/// declarations ([`resolve_in`]).
pub fn coverage_of<'s, 'a: 's>(files: impl IntoIterator<Item = &'s File<'a>>) -> Coverage {
    let funcs = functions(files);
    tally(funcs.iter().flat_map(|(d, ins)| ins.iter().map(move |i| (*i, resolve_in(i, d)))))
}

fn tally<'s, 'a: 's>(results: impl Iterator<Item = (&'s Instruction<'a>, Result<Resolved, Finding>)>) -> Coverage {
    let mut c = Coverage::default();
    let mut chains: HashMap<String, ChainCount> = HashMap::new();
    let mut groups: HashMap<String, Vec<Finding>> = HashMap::new();
    for (ins, result) in results {
        c.instructions += 1;
        let chain = ins.chain.to_string();
        let count =
            chains.entry(chain.clone()).or_insert_with(|| ChainCount { chain: chain.clone(), resolved: 0, unresolved: 0, calls: 0 });
        match result {
            Ok(_) => {
                c.resolved += 1;
                count.resolved += 1;
            }
            Err(f) if f.kind == FindingKind::Call => {
                c.calls += 1;
                count.calls += 1;
            }
            Err(f) => {
                count.unresolved += 1;
                groups.entry(chain).or_default().push(f);
            }
        }
    }
    c.chains = chains.into_values().collect();
    let total = |c: &ChainCount| c.resolved + c.unresolved + c.calls;
    c.chains.sort_by(|a, b| total(b).cmp(&total(a)).then_with(|| a.chain.cmp(&b.chain)));
    c.groups = groups.into_iter().map(|(chain, findings)| Group { chain, findings }).collect();
    c.groups.sort_by(|a, b| b.findings.len().cmp(&a.findings.len()).then_with(|| a.chain.cmp(&b.chain)));
    c
}

/// Distinct reasons shown per chain.
const REASONS: usize = 3;

impl fmt::Display for Coverage {
    /// A summary line, then each unresolved chain: how often, why (each distinct reason once,
    /// at its first instruction, the first few) and, for a chain no form has, what `ptx!` would propose.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let pct = |n: usize| if self.instructions == 0 { 0.0 } else { 100.0 * n as f64 / self.instructions as f64 };
        write!(
            f,
            "{} instructions: {} resolved ({:.1}%), {} calls (not table forms), {} unresolved in {} chains",
            self.instructions,
            self.resolved,
            pct(self.resolved),
            self.calls,
            self.unresolved(),
            self.groups.len()
        )?;
        for g in &self.groups {
            write!(f, "\n{:>6}× `{}`", g.findings.len(), g.chain)?;
            let mut seen: Vec<&FindingKind> = vec![];
            for x in &g.findings {
                if seen.contains(&&x.kind) {
                    continue;
                }
                if seen.len() == REASONS {
                    let more = g.findings.iter().filter(|y| !seen.contains(&&y.kind)).count();
                    write!(f, "\n        and {more} more with other reasons")?;
                    break;
                }
                seen.push(&x.kind);
                let n = g.findings.iter().filter(|y| y.kind == x.kind).count();
                let times = if n == g.findings.len() { String::new() } else { format!("{n}× ") };
                let why = x.kind.to_string().replace('\n', "\n        ");
                write!(f, "\n        {times}at {}:{}: {why}", x.span.line, x.span.col)?;
                let parts: Vec<&str> = g.chain.split('.').collect();
                if let Some(a) = x.kind.advice(&parts) {
                    write!(f, "\n        {a}")?;
                }
            }
        }
        Ok(())
    }
}
