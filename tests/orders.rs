//! The order rules `ptx!` reads (`macros/tables/orders.tsv`, measured by
//! `cargo run --release --example order_sweep`) against the tables and ptxas, in both
//! directions: the file was measured over the chains the tables have now; for every chain,
//! an order the rules admit other than the table's is accepted as the table order is, and an
//! order they refuse is one ptxas rejects (or warns about), unless it spells another chain
//! with the same parts, which ptxas cannot tell apart from it. Every chain is parsed
//! (`-arch compute_XX`, as the sweep measures); one chain per rule is also assembled.

#[macro_use]
mod common;

#[allow(dead_code)] // the macro and the sweep use the rest
#[path = "../macros/src/orders.rs"]
mod orders;

use orders::Orders;
use ptxkit::builder::{Target, Version};
use ptxkit::ops::{self, isa, FormDesc};
use ptxkit::ptxas::sample::{self, Verdict};
use ptxkit::ptxas::Mode;
use std::collections::{BTreeMap, HashMap, HashSet};

fn rules() -> Orders {
    Orders::parse(include_str!("../macros/tables/orders.tsv")).expect("orders.tsv parses")
}

/// One form per distinct chain.
fn chains() -> Vec<&'static FormDesc> {
    let mut seen = HashSet::new();
    ops::all_forms().filter(|f| seen.insert(f.chain)).collect()
}

fn the_rules_were_measured_over_these_chains() {
    let o = rules();
    let (fp, n) = orders::fingerprint(chains().iter().map(|f| f.chain));
    assert!(
        (o.fingerprint, o.chains) == (fp, n),
        "macros/tables/orders.tsv was measured over {} chains (fingerprint {:016x}), the tables have {n} ({fp:016x}): \
         run `cargo run --release --example order_sweep`",
        o.chains,
        o.fingerprint
    );
    // Every chain has a rule, and the rules' counts add up.
    for f in chains() {
        assert!(o.rule_for(&f.chain.split('.').collect::<Vec<_>>()).is_some(), "no rule covers `{}`", f.chain);
    }
    assert_eq!(o.rules.iter().map(|r| r.chains).sum::<usize>(), n);
}

/// The first single move of one part (last parts first, to every place) that spells
/// something else than the table order and that `keep` takes.
fn moved(parts: &[&'static str], keep: impl Fn(&[&str]) -> bool) -> Option<String> {
    let n = parts.len();
    for i in (1..n).rev() {
        for j in 1..n {
            let mut v = parts.to_vec();
            let p = v.remove(i);
            v.insert(j, p);
            if v != parts && keep(&v) {
                return Some(v.join("."));
            }
        }
    }
    None
}

/// (target, version) groups of (form, spelling, whether the rules admit it).
type Groups = BTreeMap<(Target, Version), Vec<(&'static FormDesc, String, bool)>>;

/// Every chain's table order, its first order the rules admit and its first they refuse;
/// with `one_per_rule`, only for the first chain of each rule that has an admitted order.
fn spellings(one_per_rule: bool) -> Groups {
    let o = rules();
    let all = chains();
    // Chains with the same parts in another order: an order of one of them that the rules
    // refuse for the other is the first's (ptxas accepts it, as another instruction).
    let mut same_parts: HashMap<Vec<&str>, Vec<Vec<&str>>> = HashMap::new();
    for f in &all {
        let parts: Vec<&str> = f.chain.split('.').collect();
        let mut key = parts.clone();
        key[1..].sort_unstable();
        same_parts.entry(key).or_default().push(parts);
    }
    let mut groups = Groups::new();
    let mut rules_seen = HashSet::new();
    for f in all {
        let r = f.req().unwrap_or_else(|| panic!("no ISA data for `{}`", f.chain));
        let t = Target::ALL[r.targets.trailing_zeros() as usize];
        let v = r.version.max(isa::target_version(t).expect("target version"));
        let parts: Vec<&'static str> = f.chain.split('.').collect();
        let mut key = parts.clone();
        key[1..].sort_unstable();
        let siblings: Vec<&Vec<&str>> = same_parts[&key].iter().filter(|p| **p != parts).collect();
        let admitted = moved(&parts, |v| o.check(&parts, v).is_ok());
        let refused = moved(&parts, |v| o.check(&parts, v).is_err() && !siblings.iter().any(|p| o.check(p, v).is_ok()));
        let rule = o.rule_for(&parts).map(|r| r.prefix.join("."));
        if one_per_rule && (admitted.is_none() || !rules_seen.insert(rule)) {
            continue;
        }
        let g = groups.entry((t, v)).or_default();
        g.push((f, f.chain.to_string(), true));
        g.extend(admitted.map(|s| (f, s, true)));
        g.extend(refused.map(|s| (f, s, false)));
    }
    groups
}

/// Asks ptxas about every spelling: an admitted order must get the table order's verdict, a
/// refused one another. Returns the counts of admitted and refused orders checked.
fn decide(test: &str, mode: Mode, groups: Groups) -> (usize, usize) {
    let px = common::ptxas(test);
    let (mut admitted, mut refused) = (0, 0);
    let mut wrong = vec![];
    for ((t, v), items) in groups {
        let asks: Vec<(&'static FormDesc, &str)> = items.iter().map(|(f, s, _)| (*f, s.as_str())).collect();
        let verdicts = sample::verdicts(&px, mode, &asks, t, v);
        let base: BTreeMap<&str, &Verdict> =
            items.iter().zip(&verdicts).filter(|((f, s, _), _)| f.chain == s).map(|((f, _, _), v)| (f.chain, v)).collect();
        for ((f, s, ok), verdict) in items.iter().zip(&verdicts) {
            if f.chain == s {
                if matches!(verdict, Verdict::Rejected(_)) {
                    wrong.push(format!("{s}: the table order is rejected at {t}: {verdict:?}"));
                }
                continue;
            }
            let same = verdict == base[f.chain];
            if *ok {
                admitted += 1;
            } else {
                refused += 1;
            }
            if same != *ok {
                let what = if *ok { "admitted but ptxas says" } else { "refused but ptxas accepts it" };
                wrong.push(format!("{s} (for {}) at {t}: {what} {verdict:?}", f.chain));
            }
        }
    }
    assert!(wrong.is_empty(), "{} orders decided otherwise than ptxas ({mode:?}):\n{}", wrong.len(), wrong.join("\n"));
    (admitted, refused)
}

/// Every chain, in an order the rules admit and in one they refuse, parsed by ptxas (the
/// sweep's mode) at its oldest target and version.
fn every_chain_in_an_admitted_order_parses_and_in_a_refused_one_does_not() {
    let (admitted, refused) =
        decide("every_chain_in_an_admitted_order_parses_and_in_a_refused_one_does_not", Mode::ParseOnly, spellings(false));
    println!("{admitted} admitted orders parsed, {refused} refused orders rejected");
    assert!(admitted > 10_000 && refused > 5_000, "{admitted} / {refused}");
}

/// The same, assembled (code generation), for the first chain of each rule that has another
/// order the rules admit.
fn an_admitted_order_of_each_rule_assembles() {
    let groups = spellings(true);
    let (admitted, refused) = decide("an_admitted_order_of_each_rule_assembles", Mode::Assemble, groups);
    println!("{admitted} admitted orders assembled, {refused} refused orders rejected");
    assert!(admitted > 80, "{admitted}");
}

fn main() {
    common::harness::main(&[&[
        host!(the_rules_were_measured_over_these_chains),
        host!(every_chain_in_an_admitted_order_parses_and_in_a_refused_one_does_not),
        host!(an_admitted_order_of_each_rule_assembles),
    ]]);
}
