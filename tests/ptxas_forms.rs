//! Every typed form, enumerated from the family tables, assembled by ptxas (real code
//! generation, `-arch sm_XX`) at its oldest recorded target and version; parsed at every
//! other target it claims, at the version inference picks there; and the recorded minimum
//! checked to be a minimum (one step older fails).

#[macro_use]
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

fn every_form_assembles_at_its_oldest_target_and_version() {
    let px = common::ptxas("every_form_assembles_at_its_oldest_target_and_version");
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

fn every_form_assembles_at_every_target_it_claims() {
    let px = common::ptxas("every_form_assembles_at_every_target_it_claims");
    // At each target a form claims, at the version inference would pick there for a module
    // using only that form: parse-only (`-arch compute_XX`), one ptxas run per group.
    let start = std::time::Instant::now();
    let mut groups: BTreeMap<(Target, Version), Vec<&'static FormDesc>> = BTreeMap::new();
    for f in ops::all_forms() {
        let r = req(f);
        for &t in Target::ALL.iter().filter(|t| r.allows(**t)) {
            let v = r.version.max(isa::target_version(t).expect("target version"));
            groups.entry((t, v)).or_default().push(f);
        }
    }
    let mut failed = Vec::new();
    let mut pairs = 0;
    for ((t, v), group) in &groups {
        pairs += group.len();
        let ok: std::collections::HashSet<*const FormDesc> =
            sample::assemblable(&px, Mode::ParseOnly, group, *t, *v).into_iter().map(|f| f as *const FormDesc).collect();
        failed.extend(
            group
                .iter()
                .filter(|f| !ok.contains(&(**f as *const FormDesc)))
                .map(|f| format!("{} ({}) at {t}, .version {v}", f.chain, f.variant)),
        );
    }
    println!(
        "ptxas parsed {pairs} (form, target) pairs in {} modules, each at every target its form claims, in {:.1?}",
        groups.len(),
        start.elapsed()
    );
    assert!(failed.is_empty(), "{} (form, target) pairs rejected by ptxas:\n  {}", failed.len(), failed.join("\n  "));
}

fn recorded_minimums_are_minimal() {
    let px = common::ptxas("recorded_minimums_are_minimal");
    // One plain target older must fail. And the recorded version is the least that makes the
    // form work at every target it claims (inference picks max(it, the target's minimum)), so
    // where it is above the oldest target's minimum, one version older must fail at SOME
    // target of the set whose own minimum is below the recorded version.
    let mut older_target: BTreeMap<Target, Vec<&'static FormDesc>> = BTreeMap::new();
    let mut older_version: BTreeMap<(Target, Version), Vec<&'static FormDesc>> = BTreeMap::new();
    let mut candidates: Vec<(&'static FormDesc, Version, Vec<Target>)> = Vec::new();
    for f in ops::all_forms() {
        let r = req(f);
        let t = oldest_target(&r);
        if t.suffix() == Suffix::None {
            if let Some(prev) = Target::ALL.iter().rev().find(|u| u.suffix() == Suffix::None && u.sm() < t.sm()) {
                older_target.entry(*prev).or_default().push(f);
            }
        }
        if r.version > isa::target_version(t).expect("target version") {
            let prev = *Version::ALL.iter().rev().find(|v| **v < r.version).expect("a version older than the recorded one");
            let at: Vec<Target> = Target::ALL
                .iter()
                .copied()
                .filter(|u| r.allows(*u) && isa::target_version(*u).expect("target version") < r.version)
                .collect();
            for u in &at {
                older_version.entry((*u, prev)).or_default().push(f);
            }
            candidates.push((f, prev, at));
        }
    }
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (t, group) in &older_target {
        checked += group.len();
        wrong.extend(
            sample::assemblable(&px, Mode::ParseOnly, group, *t, Version::MAX)
                .iter()
                .map(|f| format!("{} ({}) at {t}", f.chain, f.variant)),
        );
    }
    let mut passed: std::collections::HashSet<(*const FormDesc, Target)> = std::collections::HashSet::new();
    let mut pairs = 0;
    for ((t, v), group) in &older_version {
        pairs += group.len();
        passed.extend(sample::assemblable(&px, Mode::ParseOnly, group, *t, *v).into_iter().map(|f| (f as *const FormDesc, *t)));
    }
    for (f, prev, at) in &candidates {
        if at.iter().all(|t| passed.contains(&(*f as *const FormDesc, *t))) {
            wrong.push(format!("{} ({}) at .version {prev} at every target of {}", f.chain, f.variant, req(f).targets_spec()));
        }
    }
    println!("checked {} one-target-older cases and {} one-version-older cases ({pairs} (form, target) pairs)", checked, candidates.len());
    assert!(wrong.is_empty(), "{} forms assemble below their recorded minimum:\n  {}", wrong.len(), wrong.join("\n  "));
}

fn isa_table_matches_the_tables() {
    let keys: std::collections::HashSet<String> = ops::all_forms().map(|f| f.isa_key().into_owned()).collect();
    for (key, _) in isa::rows() {
        assert!(key.starts_with('.') || keys.contains(key), "isa.tsv has a row for `{key}`, which no table defines");
    }
    for f in ops::all_forms() {
        req(f);
    }
}

fn main() {
    common::harness::main(&[&[
        host!(every_form_assembles_at_its_oldest_target_and_version),
        host!(every_form_assembles_at_every_target_it_claims),
        host!(recorded_minimums_are_minimal),
        host!(isa_table_matches_the_tables),
    ]]);
}
