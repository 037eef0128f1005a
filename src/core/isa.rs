//! Minimal PTX ISA version and targets of every form and directive, as data.
//!
//! `isa.tsv` beside this file is written by the `isa_sweep` example, which has ptxas
//! assemble every form at every target and version and records the targets where it
//! assembles and the least version that, raised to each target's own minimum (as `.version`
//! inference does), makes it assemble at every one of them.
//! Rows: `@target  version` (a target's own minimum), `.directive  version  targets`,
//! `chain  version  targets`, and `chain as variant  version  targets` for a form variant
//! whose operands need something else than its chain (the count of `mbarrier.arrive`); a
//! variant without a row of its own has its chain's. `targets` is `sm_80+` (that target and every newer one,
//! suffixed ones included) or a comma list.
//!
//! The sweep can measure several ptxas releases (`# releases` in the header). A row then
//! holds what every one of them accepts: a target's minimum and a form's version are the
//! strictest release's, a form's targets those where all accept it, so the `.version` that
//! inference picks assembles with each. A last column lists the releases that measured
//! otherwise, with what they measured: `13.5.37 8.7 sm_100a,sm_100f` for a form,
//! `13.0.88 7.3` for a target, `13.0.88 none` for a form or target newer than that release
//! (an ISA 9.2 form, sm_107); [`form_req_of`] and [`target_version_of`] give a release's
//! own figures, [`newest_of`] the newest `.version` it takes (`# newest` in the header).

use super::target::{Suffix, Target, Version};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Where a form assembles: the oldest ISA version and the set of targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Req {
    pub version: Version,
    /// Bit `i` is `Target::ALL[i]`.
    pub targets: u64,
}

impl Req {
    pub fn allows(&self, t: Target) -> bool {
        self.targets & (1u64 << t.index()) != 0
    }
    /// `sm_80+` or `sm_90a` or a comma list.
    pub fn targets_spec(&self) -> String {
        format_targets(self.targets)
    }
    /// The targets in words, the oldest first: `sm_80 or newer`, `sm_90a`, `sm_100a, sm_103a
    /// or sm_110a`.
    pub fn targets_words(&self) -> String {
        let spec = self.targets_spec();
        if let Some(t) = spec.strip_suffix('+') {
            return format!("{t} or newer");
        }
        match spec.rsplit_once(',') {
            Some((first, last)) => format!("{} or {last}", first.replace(',', ", ")),
            None => spec,
        }
    }
}

/// All targets at or above `t` in the plain order (suffixed ones included).
pub fn upward(t: Target) -> u64 {
    Target::ALL.iter().enumerate().filter(|(_, u)| u.sm() >= t.sm()).fold(0, |m, (i, _)| m | 1u64 << i)
}

pub fn format_targets(mask: u64) -> String {
    for t in Target::ALL {
        if t.suffix() == Suffix::None && upward(*t) == mask {
            return format!("{t}+");
        }
    }
    Target::ALL.iter().filter(|t| mask & (1u64 << t.index()) != 0).map(|t| t.to_string()).collect::<Vec<_>>().join(",")
}

pub fn parse_targets(s: &str) -> Option<u64> {
    if let Some(t) = s.strip_suffix('+') {
        return Some(upward(Target::parse(t)?));
    }
    s.split(',').try_fold(0u64, |m, t| Some(m | 1u64 << Target::parse(t)?.index()))
}

struct Table {
    forms: HashMap<&'static str, Req>,
    targets: HashMap<Target, Version>,
    /// (release, form) and (release, target) where a release measured otherwise; `None`
    /// where it refuses the item.
    form_notes: HashMap<(&'static str, &'static str), Option<Req>>,
    target_notes: HashMap<(&'static str, Target), Option<Version>>,
    releases: Vec<&'static str>,
    /// The newest `.version` each release accepts, in the order of `releases`.
    newest: Vec<Version>,
}

/// `13.5.37 8.7 sm_100a; 13.0.88 none` (or `13.0.88 7.3` for a target): the releases that
/// measured otherwise, with what they measured; `none` where a release refuses the item
/// everywhere (a form or target newer than it).
fn notes(col: Option<&'static str>) -> Vec<(&'static str, &'static str, Option<&'static str>)> {
    col.unwrap_or("")
        .split(';')
        .filter_map(|n| {
            let mut w = n.split_whitespace();
            Some((w.next()?, w.next()?, w.next()))
        })
        .collect()
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        let (mut forms, mut targets, mut form_notes, mut target_notes) = (HashMap::new(), HashMap::new(), HashMap::new(), HashMap::new());
        let (mut releases, mut newest) = (vec![], vec![]);
        for line in include_str!("isa.tsv").lines() {
            if let Some(r) = line.strip_prefix("# releases") {
                releases = r.split_whitespace().collect();
            }
            if let Some(r) = line.strip_prefix("# newest") {
                newest = r.split_whitespace().filter_map(Version::parse).collect();
            }
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&'static str> = line.split('\t').collect();
            if let Some(t) = f[0].strip_prefix('@') {
                if let (Some(t), Some(v)) = (Target::parse(t), f.get(1).and_then(|v| Version::parse(v))) {
                    targets.insert(t, v);
                    for (rel, v, _) in notes(f.get(2).copied()) {
                        match (v, Version::parse(v)) {
                            ("none", _) => drop(target_notes.insert((rel, t), None)),
                            (_, Some(v)) => drop(target_notes.insert((rel, t), Some(v))),
                            _ => {}
                        }
                    }
                }
                continue;
            }
            if let (Some(v), Some(m)) = (f.get(1).and_then(|v| Version::parse(v)), f.get(2).and_then(|t| parse_targets(t))) {
                forms.insert(f[0], Req { version: v, targets: m });
                for (rel, v, t) in notes(f.get(3).copied()) {
                    if v == "none" {
                        form_notes.insert((rel, f[0]), None);
                    } else if let (Some(v), Some(m)) = (Version::parse(v), t.and_then(parse_targets)) {
                        form_notes.insert((rel, f[0]), Some(Req { version: v, targets: m }));
                    }
                }
            }
        }
        Table { forms, targets, form_notes, target_notes, releases, newest }
    })
}

/// The requirement of a form chain (`redux.sync.add.u32`), a variant of one
/// (`mbarrier.arrive.shared.b64 as counted`) or a directive (`.maxnreg`).
pub fn form_req(chain: &str) -> Option<Req> {
    table().forms.get(chain).copied()
}

/// The oldest `.version` a target accepts.
pub fn target_version(t: Target) -> Option<Version> {
    table().targets.get(&t).copied()
}

/// The ptxas releases the table was measured with (`13.0.88`, `13.5.37`).
pub fn releases() -> &'static [&'static str] {
    &table().releases
}

/// The newest `.version` `release` accepts, as the sweep measured it (`9.0` for 13.0.88).
pub fn newest_of(release: &str) -> Option<Version> {
    let t = table();
    t.releases.iter().position(|r| *r == release).and_then(|i| t.newest.get(i).copied())
}

/// What `release` alone measured for a form: its own oldest version and targets, where they
/// differ from the row's (which every release that has the form accepts), else the row's.
/// `None` where the release refuses the form everywhere (it is newer than that release).
pub fn form_req_of(chain: &str, release: &str) -> Option<Req> {
    let t = table();
    let (key, row) = t.forms.get_key_value(chain)?;
    match t.releases.iter().find(|r| **r == release).and_then(|r| t.form_notes.get(&(*r, *key))) {
        Some(own) => *own,
        None => Some(*row),
    }
}

/// The oldest `.version` `release` alone accepts for a target; `None` where it does not know
/// the target.
pub fn target_version_of(t: Target, release: &str) -> Option<Version> {
    let table = table();
    match table.releases.iter().find(|r| **r == release).and_then(|r| table.target_notes.get(&(*r, t))) {
        Some(own) => *own,
        None => table.targets.get(&t).copied(),
    }
}

/// Every recorded form, directive and special register requirement (for coverage checks).
pub fn rows() -> Vec<(&'static str, Req)> {
    let mut v: Vec<_> = table().forms.iter().map(|(k, r)| (*k, *r)).collect();
    v.sort_by_key(|(k, _)| *k);
    v
}
