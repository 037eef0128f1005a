//! Derives `src/core/isa.tsv` from ptxas: for every form and kernel directive, the set of
//! targets at which it assembles and the oldest PTX ISA version that makes it assemble at
//! every one of them.
//!
//!     cargo run --release --example isa_sweep            # writes src/core/isa.tsv
//!
//! First each target's own oldest `.version`. Then, at every target and every version that
//! target accepts, one module holding a sample of every form is parsed by ptxas
//! (`-arch compute_XX`); the lines it rejects name the forms missing there (a rejected batch
//! without line numbers is bisected). Directives are checked the same way, a kernel each,
//! and special registers a kernel each, read with `mov`.
//!
//! From that matrix, for each form and target: `v_t`, the oldest version from which the form
//! assembles there at every newer version too. The form's targets are those where it
//! assembles at the newest version. A module's `.version` is inferred as the maximum of its
//! target's own minimum and every used form's recorded version, so the recorded version `V`
//! must satisfy `max(V, minimum(t)) >= v_t` at every target `t` of the set: `V` is the
//! largest `v_t` that exceeds its target's own minimum, and never below the least minimum of
//! the set's targets. That is the least such `V`, so one version older fails at some target of the set.
//! Rows whose form assembles nowhere are reported: they are table bugs.
//!
//! A form variant other than `plain` is an item of its own (`chain as variant`): its
//! operands can need more than its chain does. Its row is written where it differs from
//! its chain's (or its chain has no plain form); otherwise the chain's row stands for it.
//!
//! With `--also PTXAS` (any number of times) the whole measurement is made with each
//! release, and each row holds what all of them accept: the strictest minimum of a target
//! and version of a form, the targets where every release that has the form accepts it. A
//! last column names the releases that measured otherwise and what they measured, and the
//! header lists the releases (`src/core/isa.rs` reads both):
//!
//!     cargo run --release --example isa_sweep -- --also /opt/ptxas-13.5/bin/ptxas

use ptxkit::builder::{Target, Version};
use ptxkit::ops::{self, isa, FormDesc};
use ptxkit::ptxas::sample;
use ptxkit::ptxas::{self, par_map, Mode};

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

const DIRECTIVES: &[&str] =
    &[".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".reqnctapercluster", ".explicitcluster", ".maxclusterrank"];

/// A module with one kernel per directive of `ds`.
fn directive_module(t: Target, v: Version, ds: &[&str]) -> String {
    let mut s = format!(".version {v}\n.target {t}\n.address_size 64\n");
    for (i, d) in ds.iter().enumerate() {
        let arg = match *d {
            ".maxntid" | ".reqntid" | ".reqnctapercluster" => " 1, 1, 1",
            ".explicitcluster" => "",
            _ => " 1",
        };
        s.push_str(&format!(".visible .entry k{i}()\n{d}{arg}\n{{\n\tret;\n}}\n"));
    }
    s
}

/// The directives that ptxas accepts at (`t`, `v`): all of them in one run when it can.
fn directives_ok(px: &Path, t: Target, v: Version) -> Vec<&'static str> {
    if ptxas::check(px, &directive_module(t, v, DIRECTIVES), t, Mode::ParseOnly).is_ok() {
        return DIRECTIVES.to_vec();
    }
    DIRECTIVES.iter().copied().filter(|d| ptxas::check(px, &directive_module(t, v, &[d]), t, Mode::ParseOnly).is_ok()).collect()
}

/// A module with one kernel per special register of `rs` (name, type), each reading it
/// with `mov`; and the line of each `mov`.
fn sreg_module(t: Target, v: Version, rs: &[(&'static str, &'static str)]) -> (String, Vec<usize>) {
    let mut s = format!(".version {v}\n.target {t}\n.address_size 64\n");
    let mut lines = vec![];
    for (i, (name, ty)) in rs.iter().enumerate() {
        let ty = ty.to_lowercase();
        s.push_str(&format!(".visible .entry s{i}()\n{{\n\t.reg .{ty} %x;\n"));
        lines.push(s.lines().count() + 1);
        s.push_str(&format!("\tmov.{ty} %x, {name};\n\tret;\n}}\n"));
    }
    (s, lines)
}

/// The special registers that ptxas accepts at (`t`, `v`): one module, less the registers
/// on the lines it rejects, until it assembles (one module each if it names no line).
fn sregs_ok(px: &Path, t: Target, v: Version) -> Vec<&'static str> {
    let mut left: Vec<(&'static str, &'static str)> = ptxkit::regs::sreg::ALL.to_vec();
    while !left.is_empty() {
        let (text, lines) = sreg_module(t, v, &left);
        let Err(msg) = ptxas::check(px, &text, t, Mode::ParseOnly) else { break };
        let bad = ptxas::error_lines(&msg);
        let before = left.len();
        left = left.iter().zip(&lines).filter(|(_, l)| !bad.contains(l)).map(|(r, _)| *r).collect();
        if left.len() == before {
            left.retain(|r| ptxas::check(px, &sreg_module(t, v, &[*r]).0, t, Mode::ParseOnly).is_ok());
            break;
        }
    }
    left.into_iter().map(|(name, _)| name).collect()
}

/// What ptxas accepts at one (target, version): forms (by their ISA key: the chain, or
/// `chain as variant`), directives and special registers.
fn accepted(px: &Path, forms: &[&'static FormDesc], t: Target, v: Version) -> HashSet<String> {
    let mut ok: HashSet<String> = sample::assemblable(px, Mode::ParseOnly, forms, t, v).iter().map(|f| f.isa_key().into_owned()).collect();
    ok.extend(directives_ok(px, t, v).into_iter().map(String::from));
    ok.extend(sregs_ok(px, t, v).into_iter().map(String::from));
    ok
}

/// One release's measurement: each target's own oldest version, the targets where each
/// item assembles (bit per target), and each item's recorded version.
struct Measured {
    release: String,
    /// The newest `.version` the release accepts.
    newest: Version,
    tver: HashMap<Target, Version>,
    /// The targets it knows (bit per target).
    known: u64,
    mask: HashMap<String, u64>,
    ver: HashMap<String, Version>,
}

fn measure(px: &Path, uniq: &[&'static FormDesc], keys: &[String], start: Instant) -> Measured {
    let release = ptxas::version(px).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("ptxas {release} ({})", px.display());
    // The newest version it accepts, and each target's own oldest one.
    let newest = ptxas::newest_version(px).expect("a version the release accepts");
    let versions: Vec<Version> = Version::ALL.iter().copied().filter(|v| *v <= newest).collect();
    eprintln!("ptxas {release}: .version up to {newest}");
    let tver: HashMap<Target, Version> = par_map(cores(), Target::ALL, |&t| {
        let ok = |v: &&Version| {
            let text = format!(".version {v}\n.target {t}\n.address_size 64\n.visible .entry k()\n{{\n\tret;\n}}\n");
            ptxas::check(px, &text, t, Mode::ParseOnly).is_ok()
        };
        (t, versions.iter().find(ok).copied())
    })
    .into_iter()
    .filter_map(|(t, v)| Some((t, v?)))
    .collect();
    let targets: Vec<Target> = Target::ALL.iter().copied().filter(|t| tver.contains_key(t)).collect();
    let known = targets.iter().fold(0u64, |m, t| m | 1u64 << t.index());

    // Target sets: what assembles at the newest version.
    let at_newest = par_map(cores(), &targets, |&t| accepted(px, uniq, t, newest));
    let mut mask: HashMap<String, u64> = HashMap::new();
    let mut works: HashMap<(Target, Version), HashSet<String>> = HashMap::new();
    for (&t, ok) in targets.iter().zip(at_newest) {
        eprintln!("{t}: {} of {} forms at {newest}", ok.iter().filter(|k| !k.starts_with('.')).count(), uniq.len());
        for k in &ok {
            *mask.entry(k.clone()).or_default() |= 1u64 << t.index();
        }
        works.insert((t, newest), ok);
    }
    eprintln!("target sets: {:.1?}", start.elapsed());

    // Every older version at every target, for the forms that target has.
    let jobs: Vec<(Target, Version)> = targets
        .iter()
        .flat_map(|&t| {
            let tv = tver[&t];
            versions.iter().filter(move |v| **v < newest && **v >= tv).map(move |&v| (t, v))
        })
        .collect();
    let results = par_map(cores(), &jobs, |&(t, v)| {
        let here: Vec<&'static FormDesc> =
            uniq.iter().copied().filter(|f| mask.get(&*f.isa_key()).is_some_and(|m| m & (1u64 << t.index()) != 0)).collect();
        accepted(px, &here, t, v)
    });
    works.extend(jobs.iter().copied().zip(results));
    eprintln!("{} (target, version) modules: {:.1?}", jobs.len() + targets.len(), start.elapsed());

    // Per item: v_t at every target of its set, then the recorded version.
    let mut ver: HashMap<String, Version> = HashMap::new();
    let mut gaps = 0;
    let mut raised = Vec::new();
    for k in keys.iter().map(String::as_str) {
        let Some(&m) = mask.get(k) else { continue };
        let mut need: Option<Version> = None; // the largest v_t above its target's minimum
        let mut oldest: Option<(Target, Version)> = None; // the oldest target and its v_t
        for &t in targets.iter().filter(|t| m & (1u64 << t.index()) != 0) {
            let tv = tver[&t];
            let at_t: Vec<Version> = versions.iter().copied().filter(|v| *v >= tv).collect();
            let ok = |v: &Version| works[&(t, *v)].contains(k);
            // The oldest version from which every newer one works too.
            let vt = at_t.iter().rev().take_while(|v| ok(v)).last().copied().expect("assembles at the newest version");
            if at_t.iter().any(|v| *v < vt && ok(v)) {
                gaps += 1;
                eprintln!("note: {k} at {t} assembles at some version older than {vt} but not at every one from it");
            }
            if vt > tv {
                need = Some(need.map_or(vt, |n| n.max(vt)));
            }
            oldest.get_or_insert((t, vt));
        }
        let (t0, v0) = oldest.expect("a non-empty set");
        // Never below the least minimum of the set's targets (with sm_107, whose minimum is
        // 9.4, the oldest target of a set need not have the least).
        let floor = targets.iter().filter(|t| m & (1u64 << t.index()) != 0).map(|t| tver[t]).min().expect("a non-empty set");
        let v = need.unwrap_or(floor).max(floor);
        if v > v0 {
            raised.push(format!("{k}: {v0} at its oldest target {t0}, {v} for all of {}", isa::format_targets(m)));
        }
        // By construction: the version inference picks at every target of the set works there,
        // and so does every newer one.
        for &t in targets.iter().filter(|t| m & (1u64 << t.index()) != 0) {
            let at = v.max(tver[&t]);
            assert!(versions.iter().filter(|u| **u >= at).all(|u| works[&(t, *u)].contains(k)), "{k} at {t} from {at}");
        }
        ver.insert(k.to_string(), v);
    }
    for r in &raised {
        eprintln!("raised by a newer target: {r}");
    }
    eprintln!(
        "{} forms need a newer version than at their oldest target; {gaps} (item, target) pairs with gaps in the versions that work",
        raised.len()
    );

    Measured { release, newest, tver, known, mask, ver }
}

fn main() {
    let start = Instant::now();
    let px = ptxas::find().expect("ptxas not found: set PTXAS or pip install nvidia-cuda-nvcc==13.0.88");
    let mut also = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--also", Some(p)) => also.push(std::path::PathBuf::from(p)),
            _ => panic!("usage: isa_sweep [--also PTXAS]..."),
        }
    }
    let forms: Vec<&'static FormDesc> = ops::all_forms().collect();
    let mut uniq: Vec<&'static FormDesc> = Vec::new();
    let mut seen = HashSet::new();
    for f in &forms {
        if seen.insert(f.isa_key()) {
            uniq.push(f);
        }
    }
    eprintln!("{} forms ({} distinct chains and variants), {} targets", forms.len(), uniq.len(), Target::ALL.len());
    let mut keys: Vec<String> = DIRECTIVES.iter().map(|d| d.to_string()).collect();
    keys.extend(ptxkit::regs::sreg::ALL.iter().map(|(name, _)| name.to_string()));
    keys.extend(uniq.iter().map(|f| f.isa_key().into_owned()));
    let runs: Vec<Measured> = std::iter::once(px).chain(also).map(|p| measure(&p, &uniq, &keys, start)).collect();

    // What every release accepts: a target's strictest minimum among the releases that know
    // it; for an item, the targets where every release that has it and knows the target
    // accepts it, and the strictest version. A target or item newer than a release is noted
    // `none` for that release.
    let mut tver: HashMap<Target, Version> = HashMap::new();
    for t in Target::ALL {
        if let Some(v) = runs.iter().filter_map(|r| r.tver.get(t)).max() {
            tver.insert(*t, *v);
        }
    }
    let targets: Vec<Target> = Target::ALL.iter().copied().filter(|t| tver.contains_key(t)).collect();
    let all_targets = targets.iter().fold(0u64, |m, t| m | 1u64 << t.index());
    let mut mask: HashMap<&str, u64> = HashMap::new();
    let mut ver: HashMap<&str, Version> = HashMap::new();
    for k in keys.iter().map(String::as_str) {
        let having: Vec<&Measured> = runs.iter().filter(|r| r.mask.contains_key(k)).collect();
        if having.is_empty() {
            continue;
        }
        let m = having.iter().fold(all_targets, |m, r| m & (r.mask[k] | !r.known));
        if m != 0 {
            mask.insert(k, m);
            ver.insert(k, having.iter().map(|r| r.ver[k]).max().expect("a release"));
        }
    }
    let differs = |r: &Measured, k: &str| match (r.ver.get(k), r.mask.get(k)) {
        (Some(v), Some(m)) => (Some(v) != ver.get(k) || Some(*m) != mask.get(k).map(|x| x & r.known))
            .then(|| format!("{} {v} {}", r.release, isa::format_targets(*m))),
        _ => ver.contains_key(k).then(|| format!("{} none", r.release)),
    };

    let mut out = String::from("# Written by `cargo run --release --example isa_sweep` from ptxas; do not edit by hand.\n");
    out.push_str(&format!("# releases {}\n", runs.iter().map(|r| r.release.as_str()).collect::<Vec<_>>().join(" ")));
    out.push_str(&format!("# newest {}\n", runs.iter().map(|r| r.newest.to_string()).collect::<Vec<_>>().join(" ")));
    out.push_str("# @target\toldest .version\t(releases that measured otherwise)\n");
    for &t in &targets {
        let other: Vec<String> = runs
            .iter()
            .filter(|r| r.tver.get(&t) != Some(&tver[&t]))
            .map(|r| format!("{} {}", r.release, r.tver.get(&t).map_or("none".to_string(), |v| v.to_string())))
            .collect();
        out.push_str(&format!("@{t}\t{}{}\n", tver[&t], if other.is_empty() { String::new() } else { format!("\t{}", other.join("; ")) }));
    }
    out.push_str("# form or directive\toldest .version\ttargets\t(releases that measured otherwise)\n");
    let mut nowhere = 0;
    for k in keys.iter().map(String::as_str) {
        let other: Vec<String> = runs.iter().filter_map(|r| differs(r, k)).collect();
        let row = |k: &str| Some((*ver.get(k)?, *mask.get(k)?));
        if let Some((chain, _)) = k.split_once(" as ") {
            let chain_alike = runs.iter().all(|r| differs(r, chain).is_none());
            if row(k).is_some() && row(k) == row(chain) && other.is_empty() && chain_alike {
                continue; // the chain's row stands for the variant
            }
        }
        match (ver.get(k), mask.get(k)) {
            (Some(v), Some(m)) if other.is_empty() => out.push_str(&format!("{k}\t{v}\t{}\n", isa::format_targets(*m))),
            (Some(v), Some(m)) => out.push_str(&format!("{k}\t{v}\t{}\t{}\n", isa::format_targets(*m), other.join("; "))),
            _ if k.starts_with('.') => eprintln!("directive {k} assembles nowhere"),
            _ if ptxkit::regs::sreg::ALL.iter().any(|(name, _)| *name == k) => eprintln!("special register {k} assembles nowhere"),
            _ => {
                nowhere += 1;
                println!("NOWHERE\t{k}");
            }
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core/isa.tsv");
    std::fs::write(&path, out).expect("write isa.tsv");
    eprintln!("wrote {} ({} forms assemble nowhere) in {:.1?}", path.display(), nowhere, start.elapsed());
}

/// One thread per core.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
