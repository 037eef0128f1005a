//! The order rules `ptx!` reads (`tables/orders.tsv`, measured by
//! `cargo run --release --example order_sweep`) against the tables and ptxas, in both
//! directions: the file was measured over the chains the tables have now; for every chain,
//! an order the rules admit other than the table's is accepted as the table order is, and an
//! order they refuse is one ptxas rejects (or warns about), unless it spells another chain
//! with the same parts, which ptxas cannot tell apart from it, or its rule is marked stricter
//! than ptxas (`tex`'s `.v4`, which ptxas takes before either type). Every chain is parsed
//! (`-arch compute_XX`, as the sweep measures); one chain per rule is also assembled. And
//! `ptx!`/`op!` with other orders: the table form, printed in table order.

#[macro_use]
mod common;

use common::assemble;
use orders::Orders;
use ptxkit::builder::{Target, Version};
use ptxkit::op;
use ptxkit::ops::{self, isa, FormDesc};
use ptxkit::prelude::*;
use ptxkit::ptxas::sample::{self, Verdict};
use ptxkit::ptxas::Mode;
use ptxkit_tables::orders;
use std::collections::{BTreeMap, HashMap, HashSet};

fn rules() -> Orders {
    Orders::parse(ptxkit_tables::ORDERS_TSV).expect("orders.tsv parses")
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
        "tables/orders.tsv was measured over {} chains (fingerprint {:016x}), the tables have {n} ({fp:016x}): \
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
    let rel = common::Release::of(&px);
    let o = rules();
    let (mut admitted, mut refused, mut stricter) = (0, 0, 0);
    let mut wrong = vec![];
    // Chains newer than this ptxas (an ISA 9.2 form under 13.0) are its successor's to judge.
    let (newer, groups): (Groups, Groups) = groups.into_iter().partition(|((t, v), _)| !rel.knows(*t) || *v > rel.newest);
    let newer_chains: usize = newer.values().map(|items| items.iter().filter(|(f, s, _)| f.chain == s).count()).sum();
    if newer_chains > 0 {
        println!("{newer_chains} chains need a newer ptxas than {} (.version up to {}): not asked", rel.name, rel.newest);
    }
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
            // A rule the file marks stricter than ptxas may refuse an order ptxas takes.
            let marked = || o.rule_for(&f.chain.split('.').collect::<Vec<_>>()).is_some_and(|r| r.stricter > 0);
            if same && !*ok && marked() {
                stricter += 1;
                continue;
            }
            if same != *ok {
                let what = if *ok { "admitted but ptxas says" } else { "refused but ptxas accepts it" };
                wrong.push(format!("{s} (for {}) at {t}: {what} {verdict:?}", f.chain));
            }
        }
    }
    assert!(wrong.is_empty(), "{} orders decided otherwise than ptxas ({mode:?}):\n{}", wrong.len(), wrong.join("\n"));
    println!("{stricter} refused orders that ptxas takes, under rules marked stricter");
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

/// Any order of a chain's parts that ptxas accepts names the table form: the same `Op` type
/// (`op!`), emitted in table order by `ptx!`. ptxas assembles the module, and the module
/// with each of those lines written back in the other order as raw text.
fn other_orders_name_the_table_form() {
    // (as written, the table's order)
    const ORDERS: &[(&str, &str)] = &[
        ("ld.global.relaxed.gpu.u32", "ld.relaxed.gpu.global.u32"),
        ("ld.u32.global", "ld.global.u32"),
        ("ld.nc.global.u32", "ld.global.nc.u32"),
        ("atom.global.sys.relaxed.add.u32", "atom.relaxed.sys.global.add.u32"),
        ("atom.add.global.u32", "atom.global.add.u32"),
        ("cvt.f32.rn.f64", "cvt.rn.f32.f64"),
        ("fma.f32.rn", "fma.rn.f32"),
        ("add.f32.ftz", "add.ftz.f32"),
        ("setp.and.lt.u32", "setp.lt.and.u32"),
        ("shfl.bfly.sync.b32", "shfl.sync.bfly.b32"),
        ("barrier.aligned.sync", "barrier.sync.aligned"),
        ("mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cta.b64", "mbarrier.arrive_drop.expect_tx.relaxed.cta.shared::cta.b64"),
    ];
    let mut m = Module::new(Target::SM_90);
    m.kernel("orders", |k, (p, q, d): (GlobalPtr<U32>, GlobalPtr<F32>, Reg<F64>)| {
        let bar = k.shared_array::<B64>("bar", 1, 8);
        ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32);
        let a = ptx!(k, "ld.global.relaxed.gpu.u32", p.offset(0));
        let b = ptx!(k, "ld.u32.global", p.offset(1));
        let c = ptx!(k, "ld.nc.global.u32", p.offset(2));
        let e = ptx!(k, "atom.global.sys.relaxed.add.u32", p.offset(3), a);
        let f = ptx!(k, "atom.add.global.u32", p.offset(4), b);
        let x = ptx!(k, "cvt.f32.rn.f64", d);
        let y = ptx!(k, "fma.f32.rn", x, x, x);
        let z = ptx!(k, "add.f32.ftz", y, x);
        let lt = ptx!(k, "setp.lt.u32", e, f);
        let both = ptx!(k, "setp.and.lt.u32", c, e, lt);
        let v = ptx!(k, "selp.u32", e, f, both);
        let w = ptx!(k, "shfl.bfly.sync.b32", v.bitcast::<B32>(), 1u32, 31u32, 0xffff_ffffu32);
        ptx!(k, "barrier.aligned.sync", 0u32);
        let s = ptx!(k, "mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cta.b64", bar, 8u32);
        ptx!(k, "st.global.f32", q.offset(0), z);
        ptx!(k, "st.global.b32", p.cast::<B32>().offset(5), w);
        ptx!(k, "st.global.b64", p.cast::<B64>().offset(3), s);
    })
    .unwrap();
    let text = assemble("orders", &m);
    let mut raw = text.clone();
    for (written, table) in ORDERS {
        let line = text.lines().find(|l| l.trim_start().starts_with(&format!("{table} "))).unwrap_or_else(|| panic!("{table}:\n{text}"));
        assert!(!text.contains(written), "{written} printed as written:\n{text}");
        raw = raw.replacen(line, &line.replacen(table, written, 1), 1);
    }
    assert_ne!(raw, text);
    let px = common::ptxas("other_orders_name_the_table_form");
    ptxkit::ptxas::check_clean(&px, &raw, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{raw}"));
    // The same type: `op!` of either order.
    use std::any::TypeId;
    assert_eq!(TypeId::of::<op!("ld.global.relaxed.gpu.u32")>(), TypeId::of::<op!("ld.relaxed.gpu.global.u32")>());
    assert_eq!(TypeId::of::<op!("cvt.f32.rn.f64")>(), TypeId::of::<op!("cvt.rn.f32.f64")>());
    assert_eq!(TypeId::of::<op!("shfl.bfly.sync.b32" as pair)>(), TypeId::of::<op!("shfl.sync.bfly.b32" as pair)>());
    assert_eq!(
        TypeId::of::<op!("mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cta.b64")>(),
        TypeId::of::<op!("mbarrier.arrive_drop.expect_tx.relaxed.cta.shared::cta.b64")>()
    );
    // Chains with the same parts that are different instructions stay apart.
    assert_ne!(TypeId::of::<op!("cvt.sat.u32.s32")>(), TypeId::of::<op!("cvt.sat.s32.u32")>());
    assert_eq!(TypeId::of::<op!("cvt.u32.sat.s32")>(), TypeId::of::<op!("cvt.sat.u32.s32")>());
}

fn main() {
    common::harness::main(&[&[
        host!(the_rules_were_measured_over_these_chains),
        host!(every_chain_in_an_admitted_order_parses_and_in_a_refused_one_does_not),
        host!(an_admitted_order_of_each_rule_assembles),
        host!(other_orders_name_the_table_form),
    ]]);
}
