//! Derives `src/core/isa.tsv` from ptxas: the oldest PTX ISA version and the set of targets
//! at which every form and kernel directive assembles.
//!
//!     cargo run --release --example isa_sweep            # writes src/core/isa.tsv
//!
//! For each target, one module holding a sample of every form is parsed by ptxas; the lines
//! it rejects name the forms the target lacks (a rejected batch without line numbers is
//! bisected). Then, for each form at its oldest target, versions are tried in ascending
//! order. Rows whose form assembles nowhere are reported: they are table bugs.

use ptxkit::builder::{Target, Version};
use ptxkit::ops::{self, isa, FormDesc};
use ptxkit::ptxas::sample;
use ptxkit::ptxas::{self, Mode};

use std::collections::HashMap;
use std::path::Path;

const VERSIONS: &[(u8, u8)] = &[
    (6, 3),
    (6, 4),
    (6, 5),
    (7, 0),
    (7, 1),
    (7, 2),
    (7, 3),
    (7, 4),
    (7, 5),
    (7, 6),
    (7, 7),
    (7, 8),
    (8, 0),
    (8, 1),
    (8, 2),
    (8, 3),
    (8, 4),
    (8, 5),
    (8, 6),
    (8, 7),
    (8, 8),
    (9, 0),
];

fn directive_module(t: Target, v: Version, d: &str) -> String {
    let arg = match d {
        ".maxntid" | ".reqntid" | ".reqnctapercluster" => " 1, 1, 1",
        ".explicitcluster" => "",
        _ => " 1",
    };
    format!(".version {v}\n.target {t}\n.address_size 64\n.visible .entry k()\n{d}{arg}\n{{\n\tret;\n}}\n")
}

fn main() {
    let px = ptxas::find().expect("ptxas not found: set PTXAS or pip install nvidia-cuda-nvcc==13.0.88");
    let versions: Vec<Version> = VERSIONS.iter().map(|(a, b)| Version::new(*a, *b)).collect();
    let forms: Vec<&'static FormDesc> = ops::all_forms().collect();
    let mut uniq: Vec<&'static FormDesc> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in &forms {
        if seen.insert(f.chain) {
            uniq.push(f);
        }
    }
    eprintln!("{} forms ({} distinct chains), {} targets", forms.len(), uniq.len(), Target::ALL.len());

    // Each target's own oldest version.
    let mut tver: HashMap<Target, Version> = HashMap::new();
    for &t in Target::ALL {
        for &v in &versions {
            let text = format!(".version {v}\n.target {t}\n.address_size 64\n.visible .entry k()\n{{\n\tret;\n}}\n");
            if ptxas::check(&px, &text, t, Mode::ParseOnly).is_ok() {
                tver.insert(t, v);
                break;
            }
        }
    }

    // Target sets, at the newest version.
    let mut mask: HashMap<&'static str, u64> = HashMap::new();
    for &t in Target::ALL {
        let ok = sample::assemblable(&px, Mode::ParseOnly, &uniq, t, Version::MAX);
        eprintln!("{t}: {} of {} forms", ok.len(), uniq.len());
        for f in ok {
            *mask.entry(f.chain).or_default() |= 1u64 << t.index();
        }
    }

    // Oldest version at the oldest target of each form.
    let mut ver: HashMap<&'static str, Version> = HashMap::new();
    for &t in Target::ALL {
        let mut group: Vec<&'static FormDesc> =
            uniq.iter().copied().filter(|f| mask.get(f.chain).map_or(false, |m| m.trailing_zeros() as usize == t.index())).collect();
        for &v in versions.iter().filter(|v| Some(**v) >= tver.get(&t).copied()) {
            if group.is_empty() {
                break;
            }
            let ok = sample::assemblable(&px, Mode::ParseOnly, &group, t, v);
            for f in &ok {
                ver.insert(f.chain, v);
            }
            group.retain(|f| !ok.iter().any(|o| o.chain == f.chain));
        }
    }

    let mut out = String::from("# Written by `cargo run --release --example isa_sweep` from ptxas; do not edit by hand.\n");
    out.push_str("# @target\toldest .version\n");
    for &t in Target::ALL {
        if let Some(v) = tver.get(&t) {
            out.push_str(&format!("@{t}\t{v}\n"));
        }
    }
    out.push_str("# form or directive\toldest .version\ttargets\n");
    for d in [".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".reqnctapercluster", ".explicitcluster", ".maxclusterrank"] {
        let mut m = 0u64;
        let mut first: Option<Version> = None;
        for &t in Target::ALL {
            if ptxas::check(&px, &directive_module(t, Version::MAX, d), t, Mode::ParseOnly).is_ok() {
                m |= 1u64 << t.index();
                if first.is_none() {
                    first = versions
                        .iter()
                        .copied()
                        .filter(|v| Some(*v) >= tver.get(&t).copied())
                        .find(|&v| ptxas::check(&px, &directive_module(t, v, d), t, Mode::ParseOnly).is_ok());
                }
            }
        }
        match first {
            Some(v) => out.push_str(&format!("{d}\t{v}\t{}\n", isa::format_targets(m))),
            None => eprintln!("directive {d} assembles nowhere"),
        }
    }
    let mut nowhere = 0;
    for f in &uniq {
        match (ver.get(f.chain), mask.get(f.chain)) {
            (Some(v), Some(m)) => out.push_str(&format!("{}\t{v}\t{}\n", f.chain, isa::format_targets(*m))),
            _ => {
                nowhere += 1;
                println!("NOWHERE\t{}", f.chain);
            }
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core/isa.tsv");
    std::fs::write(&path, out).expect("write isa.tsv");
    eprintln!("wrote {} ({} forms assemble nowhere)", path.display(), nowhere);
}
