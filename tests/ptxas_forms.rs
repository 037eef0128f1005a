//! Every typed form, enumerated from the family tables, assembled by ptxas (real code
//! generation, `-arch sm_XX`) at its oldest recorded target and version; parsed at every
//! other target it claims, at the version inference picks there; and the recorded minimum
//! checked to be a minimum (one step older fails).

#[macro_use]
mod common;

use ptxkit::builder::{Suffix, Target, Version};
use ptxkit::ops::{self, isa, FormDesc};
use ptxkit::prelude::*;
use ptxkit::ptxas::sample;
use ptxkit::ptxas::Mode;
use std::collections::BTreeMap;

fn req(f: &FormDesc) -> isa::Req {
    f.req().unwrap_or_else(|| panic!("no ISA data for `{}`: run `cargo run --release --example isa_sweep`", f.chain))
}

/// The running ptxas release's own view of the tables (`isa.tsv` records each release's
/// figures where they differ): its forms with its oldest version and targets, each target's
/// oldest version, and the newest version it takes. A form or target newer than the release
/// (an ISA 9.2 form under ptxas 13.0) is not its to assemble: the view lists those forms, and
/// the tests say how many they leave to a newer release. A release `isa.tsv` was not measured
/// with is judged by the rows.
struct View {
    release: String,
    px: std::path::PathBuf,
    forms: Vec<(&'static FormDesc, isa::Req)>,
    newer: Vec<&'static FormDesc>,
    newest: Version,
}

impl View {
    fn of(test: &str) -> View {
        let px = common::ptxas(test);
        let rel = common::Release::of(&px);
        let (mut forms, mut newer) = (vec![], vec![]);
        for f in ops::all_forms() {
            req(f);
            match rel.req(f) {
                Some(r) => forms.push((f, r)),
                None => newer.push(f),
            }
        }
        println!("ptxas {} (.version up to {}); isa.tsv measured with {:?}", rel.name, rel.newest, isa::releases());
        if !newer.is_empty() {
            let oldest = newer.iter().map(|f| req(f).version).min().expect("a form");
            println!(
                "{} forms are newer than ptxas {} (ISA {oldest} and later): not assembled by it; `.ci/run` assembles them with the newer release",
                newer.len(),
                rel.name
            );
        }
        View { release: rel.name, px, forms, newer, newest: rel.newest }
    }
    fn target_version(&self, t: Target) -> Version {
        isa::target_version_of(t, &self.release).expect("a target of the release")
    }
}

fn oldest_target(r: &isa::Req) -> Target {
    Target::ALL[r.targets.trailing_zeros() as usize]
}

fn names(v: &[&FormDesc]) -> String {
    v.iter().map(|f| format!("{} ({})", f.chain, f.variant)).collect::<Vec<_>>().join("\n  ")
}

fn every_form_assembles_at_its_oldest_target_and_version() {
    let view = View::of("every_form_assembles_at_its_oldest_target_and_version");
    let px = &view.px;
    let mut groups: BTreeMap<(Target, Version), Vec<&'static FormDesc>> = BTreeMap::new();
    for (f, r) in &view.forms {
        let t = oldest_target(r);
        let v = r.version.max(view.target_version(t));
        groups.entry((t, v)).or_default().push(f);
    }
    let mut failed = Vec::new();
    for ((t, v), group) in &groups {
        let ok = sample::assemblable(px, Mode::Assemble, group, *t, *v);
        failed.extend(group.iter().filter(|f| !ok.iter().any(|o| std::ptr::eq(*o, **f))));
    }
    let forms: Vec<&'static FormDesc> = view.forms.iter().map(|(f, _)| *f).collect();
    let chains: std::collections::HashSet<_> = forms.iter().map(|f| f.chain).collect();
    println!(
        "ptxas assembled {} typed forms ({} distinct chains) in {} modules, each at its oldest target and version",
        forms.len() - failed.len(),
        chains.len(),
        groups.len()
    );
    let rejected: std::collections::HashSet<*const FormDesc> = failed.iter().map(|f| *f as *const FormDesc).collect();
    let newer: std::collections::HashSet<*const FormDesc> = view.newer.iter().map(|f| *f as *const FormDesc).collect();
    for (name, family) in ops::families() {
        let mine = family.iter().filter(|f| !newer.contains(&(*f as *const FormDesc))).count();
        let assembled =
            family.iter().filter(|f| !newer.contains(&(*f as *const FormDesc)) && !rejected.contains(&(*f as *const FormDesc))).count();
        println!("{name:>10} {assembled:>6} of {mine:>6} forms assembled ({} in the family)", family.len());
    }
    assert!(failed.is_empty(), "{} forms rejected by ptxas:\n  {}", failed.len(), names(&failed));
}

fn every_form_assembles_at_every_target_it_claims() {
    let view = View::of("every_form_assembles_at_every_target_it_claims");
    let px = &view.px;
    // At each target a form claims, at the version inference would pick there for a module
    // using only that form: parse-only (`-arch compute_XX`), one ptxas run per group.
    let start = std::time::Instant::now();
    let mut groups: BTreeMap<(Target, Version), Vec<&'static FormDesc>> = BTreeMap::new();
    for (f, r) in &view.forms {
        for &t in Target::ALL.iter().filter(|t| r.allows(**t)) {
            let v = r.version.max(view.target_version(t));
            groups.entry((t, v)).or_default().push(f);
        }
    }
    let mut failed = Vec::new();
    let mut pairs = 0;
    for ((t, v), group) in &groups {
        pairs += group.len();
        let ok: std::collections::HashSet<*const FormDesc> =
            sample::assemblable(px, Mode::ParseOnly, group, *t, *v).into_iter().map(|f| f as *const FormDesc).collect();
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
    // The release's own figures: where isa.tsv was measured with several, a row holds what
    // all accept, and the last column what this one measured otherwise.
    let view = View::of("recorded_minimums_are_minimal");
    let px = &view.px;
    let own: std::collections::HashMap<*const FormDesc, isa::Req> = view.forms.iter().map(|(f, r)| (*f as *const FormDesc, *r)).collect();
    let req = |f: &FormDesc| own[&(f as *const FormDesc)];
    let target_version = |t: Target| view.target_version(t);
    // One plain target older must fail. And the recorded version is the least that makes the
    // form work at every target it claims (inference picks max(it, the target's minimum)), so
    // where it is above the oldest target's minimum, one version older must fail at SOME
    // target of the set whose own minimum is below the recorded version.
    let mut older_target: BTreeMap<Target, Vec<&'static FormDesc>> = BTreeMap::new();
    let mut older_version: BTreeMap<(Target, Version), Vec<&'static FormDesc>> = BTreeMap::new();
    let mut candidates: Vec<(&'static FormDesc, Version, Vec<Target>)> = Vec::new();
    for (f, _) in &view.forms {
        let f: &'static FormDesc = f;
        let r = req(f);
        let t = oldest_target(&r);
        if t.suffix() == Suffix::None {
            if let Some(prev) = Target::ALL
                .iter()
                .rev()
                .find(|u| u.suffix() == Suffix::None && u.sm() < t.sm() && isa::target_version_of(**u, &view.release).is_some())
            {
                older_target.entry(*prev).or_default().push(f);
            }
        }
        // The targets of the set whose own minimum is below the recorded version (not only
        // the oldest: sm_107's minimum, 9.4, is above sm_120's).
        let at: Vec<Target> = Target::ALL.iter().copied().filter(|u| r.allows(*u) && target_version(*u) < r.version).collect();
        if !at.is_empty() {
            let prev = *Version::ALL.iter().rev().find(|v| **v < r.version).expect("a version older than the recorded one");
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
            sample::assemblable(px, Mode::ParseOnly, group, *t, view.newest).iter().map(|f| format!("{} ({}) at {t}", f.chain, f.variant)),
        );
    }
    let mut passed: std::collections::HashSet<(*const FormDesc, Target)> = std::collections::HashSet::new();
    let mut pairs = 0;
    for ((t, v), group) in &older_version {
        pairs += group.len();
        passed.extend(sample::assemblable(px, Mode::ParseOnly, group, *t, *v).into_iter().map(|f| (f as *const FormDesc, *t)));
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
    let sregs: std::collections::HashSet<&str> = ptxkit::regs::sreg::ALL.iter().map(|(name, _)| *name).collect();
    for (key, _) in isa::rows() {
        assert!(key.starts_with('.') || keys.contains(key) || sregs.contains(key), "isa.tsv has a row for `{key}`, which no table defines");
    }
    // Every special register has a row: a kernel that reads one is checked against it.
    for name in &sregs {
        assert!(isa::form_req(name).is_some(), "isa.tsv has no row for the special register {name}");
    }
    for f in ops::all_forms() {
        req(f);
    }
}

/// Each family target (`sm_100f`, `sm_103f`, ...) against its architecture-specific sibling
/// (`sm_100a`, ...): of the forms the crate allows at the `a` target but not at the plain one,
/// ptxas at the `f` target (newest version, parse-only, as the sweep measures target sets)
/// accepts exactly those the crate allows there.
fn family_targets_agree_with_ptxas() {
    let view = View::of("family_targets_agree_with_ptxas");
    let px = &view.px;
    let own: std::collections::HashMap<*const FormDesc, isa::Req> = view.forms.iter().map(|(f, r)| (*f as *const FormDesc, *r)).collect();
    let mut wrong = Vec::new();
    for &fam in Target::ALL.iter().filter(|t| t.suffix() == Suffix::F && isa::target_version_of(**t, &view.release).is_some()) {
        let sibling =
            |s: Suffix| *Target::ALL.iter().find(|t| t.sm() == fam.sm() && t.suffix() == s).expect("every family target has siblings");
        let (arch, plain) = (sibling(Suffix::A), sibling(Suffix::None));
        let req = |f: &FormDesc| own[&(f as *const FormDesc)];
        let forms: Vec<&'static FormDesc> =
            view.forms.iter().map(|(f, _)| *f).filter(|f| req(f).allows(arch) && !req(f).allows(plain)).collect();
        let ok: std::collections::HashSet<*const FormDesc> =
            sample::assemblable(px, Mode::ParseOnly, &forms, fam, view.newest).into_iter().map(|f| f as *const FormDesc).collect();
        let allowed = forms.iter().filter(|f| req(f).allows(fam)).count();
        println!("{fam}: {} forms specific to {arch}; the crate allows {allowed} at {fam}, ptxas accepts {}", forms.len(), ok.len());
        for f in &forms {
            let (crate_says, ptxas_says) = (req(f).allows(fam), ok.contains(&(*f as *const FormDesc)));
            if crate_says != ptxas_says {
                wrong.push(format!("{} ({}) at {fam}: the crate {}, ptxas {}", f.chain, f.variant, yes(crate_says), yes(ptxas_says)));
            }
        }
    }
    assert!(wrong.is_empty(), "{} forms judged differently:\n  {}", wrong.len(), wrong.join("\n  "));
}

fn yes(b: bool) -> &'static str {
    if b {
        "accepts"
    } else {
        "rejects"
    }
}

/// A kernel using one typed form, built for `t`.
fn one_form_kernel(t: Target, form: &str) -> Result<Module, ptxkit::Error> {
    let mut m = Module::new(t);
    m.set_version(Version::MAX);
    match form {
        "cvt.rs" => m
            .kernel("k", |k, (x, r, out): (GlobalPtr<F32>, GlobalPtr<U32>, GlobalPtr<F16x2>)| {
                let (a, b, bits) = (k.ld(x.offset(0)), k.ld(x.offset(1)), k.ld(r.offset(0)));
                let h = ptx!(k, "cvt.rs.f16x2.f32", a, b, bits);
                k.st(out.offset(0), h);
            })
            .map(drop),
        "try_cancel" => m
            .kernel("k", |k, ()| {
                let resp = k.shared_array::<B128>("resp", 1, 16);
                let bar = k.mbarriers("bar", 1).get(0);
                ptx!(
                    k,
                    "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128",
                    resp,
                    bar.ptr()
                );
            })
            .map(drop),
        "max3" => m
            .kernel("k", |k, (x, out): (GlobalPtr<F32>, GlobalPtr<F32>)| {
                let (a, b, c) = (k.ld(x.offset(0)), k.ld(x.offset(1)), k.ld(x.offset(2)));
                let v = ptx!(k, "max.NaN.f32" as three, a, b, c);
                k.st(out.offset(0), v);
            })
            .map(drop),
        "ld256" => m
            .kernel("k", |k, (x, out): (GlobalPtr<F32>, GlobalPtr<F32>)| {
                let v = ptx!(k, "ld.global.L1::no_allocate.L2::evict_last.v8.f32", x.offset(0));
                ptx!(k, "st.global.L2::evict_first.v8.f32", out.offset(0), v);
            })
            .map(drop),
        _ => unreachable!("no kernel for `{form}`"),
    }
    .map(|()| m)
}

/// The crate's check against ptxas for a few typed kernels at `sm_100f`: one form ptxas takes
/// only at `sm_100a`, one the family takes, one plain sm_100 form. The text comes from the
/// same kernel built for `sm_100a` with the target line changed; the crate's `sm_100f` build
/// (its `Module::kernel`) must fail with `Unsupported` exactly where ptxas rejects that text.
fn family_target_check_matches_ptxas_on_typed_kernels() {
    let px = common::ptxas("family_target_check_matches_ptxas_on_typed_kernels");
    let mut verdicts = Vec::new();
    for form in ["cvt.rs", "try_cancel", "max3", "ld256"] {
        let text = one_form_kernel(Target::SM_100A, form).and_then(|m| m.to_ptx()).unwrap_or_else(|e| panic!("{form} at sm_100a: {e}"));
        let text = text.replace(".target sm_100a", ".target sm_100f");
        let by_ptxas = ptxkit::ptxas::check(&px, &text, Target::SM_100F, Mode::Assemble).is_ok();
        let by_crate = match one_form_kernel(Target::SM_100F, form).and_then(|m| m.to_ptx()) {
            Ok(_) => true,
            Err(ptxkit::Error::Unsupported { .. }) => false,
            Err(e) => panic!("{form} at sm_100f: {e}"),
        };
        println!("{form} at sm_100f: ptxas {}, the crate {}", yes(by_ptxas), yes(by_crate));
        assert_eq!(by_crate, by_ptxas, "{form} at sm_100f: ptxas {}, the crate {}\n{text}", yes(by_ptxas), yes(by_crate));
        verdicts.push(by_ptxas);
    }
    // The forms were picked so that both answers occur.
    assert!(verdicts.contains(&true) && verdicts.contains(&false), "{verdicts:?}");
}

fn main() {
    common::harness::main(&[&[
        host!(every_form_assembles_at_its_oldest_target_and_version),
        host!(every_form_assembles_at_every_target_it_claims),
        host!(recorded_minimums_are_minimal),
        host!(isa_table_matches_the_tables),
        host!(family_targets_agree_with_ptxas),
        host!(family_target_check_matches_ptxas_on_typed_kernels),
    ]]);
}
