//! What PTX ISA 9.1 to 9.5 add (`tables/isa-additions.tsv`), read and looked up among the
//! typed forms: shared by the coverage report (`examples/isa_coverage`) and
//! `tests/isa_additions.rs`.

use ptxkit::builder::{Target, Version};
use ptxkit::ops::isa;
use ptxkit_tables::notation::expand_pattern;
use std::collections::HashSet;

/// The data, one row per addition.
pub const DATA: &str = include_str!("../../tables/isa-additions.tsv");

/// One addition: the ISA version that brings it, its pattern in the tables' notation (a
/// `.target`, a `%register`, or `?` before a spelling ptxas refused), and what it is.
pub struct Row {
    pub version: Version,
    pub pattern: &'static str,
    pub what: &'static str,
}

/// The rows of [`DATA`].
pub fn rows() -> Vec<Row> {
    DATA.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "a row has four columns: {l:?}");
            let version = Version::parse(f[0]).unwrap_or_else(|| panic!("a version: {l:?}"));
            assert!(version > Version::MAX && version <= Version::NEWEST, "an addition of 9.1 to 9.5: {l:?}");
            Row { version, pattern: f[1], what: f[3] }
        })
        .collect()
}

/// The chains of a row that no typed form has (empty: covered), and the covered ones.
pub fn lookup(row: &Row, chains: &HashSet<&str>) -> (Vec<String>, Vec<String>) {
    if let Some(t) = row.pattern.strip_prefix(".target ") {
        let t = Target::parse(t).unwrap_or_else(|| panic!("a target: {}", row.pattern));
        let v = isa::target_version(t).expect("isa.tsv has every target");
        assert_eq!(v, row.version, "{t}: isa.tsv measured its oldest .version as {v}, the ISA says {}", row.version);
        return (vec![], vec![]);
    }
    if row.pattern.starts_with('?') {
        return (vec![row.pattern.to_string()], vec![]); // a spelling not known: a gap until it is
    }
    if row.pattern.starts_with('%') {
        let known = ptxkit::regs::sreg::ALL.iter().any(|(n, _)| *n == row.pattern);
        return if known { (vec![], vec![row.pattern.to_string()]) } else { (vec![row.pattern.to_string()], vec![]) };
    }
    let expanded = expand_pattern(row.pattern).unwrap_or_else(|e| panic!("{}: {e}", row.pattern));
    let all: Vec<String> = expanded.iter().map(|e| e.parts.join(".")).collect();
    all.into_iter().partition(|c| !chains.contains(c.as_str()))
}
