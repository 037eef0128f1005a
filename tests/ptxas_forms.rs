//! Every typed form, enumerated from the family tables, assembled by ptxas (real code
//! generation, `-arch sm_XX`) at its oldest recorded target and version; and the recorded
//! minimum checked to be a minimum (one step older fails).

mod common;

use ptxkit::builder::{Suffix, Target, Version};
use ptxkit::ops::{self, isa, FormDesc};
use ptxkit::ptxas::sample;
use ptxkit::ptxas::Mode;
use std::collections::BTreeMap;

fn req(f: &FormDesc) -> isa::Req {
    f.req().unwrap_or_else(|| panic!("no ISA data for `{}`: run `cargo run --release --example isa_sweep`", f.chain))
}

fn oldest_target(r: &isa::Req) -> Target {
    Target::ALL[r.targets.trailing_zeros() as usize]
}

fn names(v: &[&FormDesc]) -> String {
    v.iter().map(|f| format!("{} ({})", f.chain, f.variant)).collect::<Vec<_>>().join("\n  ")
}

#[test]
fn every_form_assembles_at_its_oldest_target_and_version() {
    let Some(px) = common::ptxas("every_form_assembles_at_its_oldest_target_and_version") else { return };
    let forms: Vec<&'static FormDesc> = ops::all_forms().collect();
    let mut groups: BTreeMap<(Target, Version), Vec<&'static FormDesc>> = BTreeMap::new();
    for f in &forms {
        let r = req(f);
        let t = oldest_target(&r);
        let v = r.version.max(isa::target_version(t).expect("target version"));
        groups.entry((t, v)).or_default().push(f);
    }
    let mut failed = Vec::new();
    for ((t, v), group) in &groups {
        let ok = sample::assemblable(&px, Mode::Assemble, group, *t, *v);
        failed.extend(group.iter().filter(|f| !ok.iter().any(|o| std::ptr::eq(*o, **f))));
    }
    let chains: std::collections::HashSet<_> = forms.iter().map(|f| f.chain).collect();
    println!(
        "ptxas assembled {} typed forms ({} distinct chains) in {} modules, each at its oldest target and version",
        forms.len() - failed.len(),
        chains.len(),
        groups.len()
    );
    assert!(failed.is_empty(), "{} forms rejected by ptxas:\n  {}", failed.len(), names(&failed));
}

#[test]
fn recorded_minimums_are_minimal() {
    let Some(px) = common::ptxas("recorded_minimums_are_minimal") else { return };
    // One plain target older must fail; one version older at the oldest target must fail.
    let mut older_target: BTreeMap<Target, Vec<&'static FormDesc>> = BTreeMap::new();
    let mut older_version: BTreeMap<(Target, Version), Vec<&'static FormDesc>> = BTreeMap::new();
    let versions: Vec<Version> =
        isa::rows().iter().map(|(_, r)| r.version).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    for f in ops::all_forms() {
        let r = req(f);
        let t = oldest_target(&r);
        if t.suffix() == Suffix::None {
            if let Some(prev) = Target::ALL.iter().rev().find(|u| u.suffix() == Suffix::None && u.sm() < t.sm()) {
                older_target.entry(*prev).or_default().push(f);
            }
        }
        let tv = isa::target_version(t).expect("target version");
        if r.version > tv {
            let prev = versions.iter().rev().find(|v| **v < r.version && **v >= tv).copied().unwrap_or(tv);
            older_version.entry((t, prev)).or_default().push(f);
        }
    }
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (t, group) in &older_target {
        checked += group.len();
        wrong.extend(sample::assemblable(&px, Mode::ParseOnly, group, *t, Version::MAX));
    }
    for ((t, v), group) in &older_version {
        checked += group.len();
        wrong.extend(sample::assemblable(&px, Mode::ParseOnly, group, *t, *v));
    }
    println!("checked {checked} one-step-older (target or version) cases");
    assert!(wrong.is_empty(), "{} forms assemble below their recorded minimum:\n  {}", wrong.len(), names(&wrong));
}

#[test]
fn isa_table_matches_the_tables() {
    let chains: std::collections::HashSet<&str> = ops::all_forms().map(|f| f.chain).collect();
    for (key, _) in isa::rows() {
        assert!(key.starts_with('.') || chains.contains(key), "isa.tsv has a row for `{key}`, which no table defines");
    }
    for f in ops::all_forms() {
        req(f);
    }
}
