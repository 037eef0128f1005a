//! Coverage of what PTX ISA 9.1 to 9.5 add (`tables/isa-additions.tsv`, one row per addition
//! from the ISA's release notes, in the tables' notation). Each row's pattern is expanded and
//! every chain looked up among the typed forms; a target row names a `Target`, a special
//! register row a register of `sreg`. For a row the tables have, the oldest version `isa.tsv`
//! measured must be the one the ISA gives (both releases' sweep, `isa_sweep --also`).
//!
//! A row whose spelling is not known (`?`, ptxas refused every spelling tried) is a gap.
//! The rows the tables lack are listed in `tests/isa_additions_gaps.txt`: the test fails on a
//! gap not listed there, and on a listed one that has closed (take it off the list).

use ptxkit::ops::{self, isa};
use std::collections::{BTreeSet, HashSet};

#[path = "../examples/isa_coverage/additions.rs"]
mod additions;

use additions::{lookup, rows};

const GAPS: &str = include_str!("isa_additions_gaps.txt");

#[test]
fn additions_of_isa_9_1_to_9_5_are_typed_forms() {
    let chains: HashSet<&str> = ops::all_forms().map(|f| f.chain).collect();
    let listed: BTreeSet<&str> = GAPS.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
    let (mut gaps, mut wrong_version) = (BTreeSet::new(), vec![]);
    let (mut covered, mut total) = (0, 0);
    for row in rows() {
        total += 1;
        let (missing, have) = lookup(&row, &chains);
        if !missing.is_empty() {
            println!(
                "gap   {} {} ({}): {} of {} chains have no form",
                row.version,
                row.pattern,
                row.what,
                missing.len(),
                missing.len() + have.len()
            );
            gaps.insert(row.pattern);
            continue;
        }
        covered += 1;
        for c in &have {
            if let Some(r) = isa::form_req(c) {
                if r.version != row.version {
                    wrong_version.push(format!("{c}: isa.tsv {}, the ISA {}", r.version, row.version));
                }
            }
        }
        println!("typed {} {} ({})", row.version, row.pattern, row.what);
    }
    println!("{covered} of {total} additions of PTX ISA 9.1 to 9.5 are typed forms; {} are not", gaps.len());
    assert!(wrong_version.is_empty(), "measured versions other than the ISA's:\n  {}", wrong_version.join("\n  "));
    let new: Vec<&&str> = gaps.difference(&listed).collect();
    let closed: Vec<&&str> = listed.difference(&gaps).collect();
    assert!(new.is_empty(), "additions with no typed form that tests/isa_additions_gaps.txt does not list:\n  {new:?}");
    assert!(closed.is_empty(), "gaps that have closed (take them off tests/isa_additions_gaps.txt):\n  {closed:?}");
}
