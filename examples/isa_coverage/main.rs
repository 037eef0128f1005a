//! How much of the PTX ISA reference the typed forms cover, page by page.
//!
//!     cargo run --release --example isa_coverage [-- REFERENCE_DIR] [--markdown PATH] [--lines]
//!
//! The reference (one markdown file per instruction page, each with a `### Syntax` section)
//! is not part of the repository: it is read from REFERENCE_DIR, else from the environment
//! variable `PTXKIT_ISA_REFERENCE`, else from `../shared/reference/ptx-isa-9.0` beside the
//! repository root.
//!
//! Each page's template lines are parsed with their modifier sets (`syntax.rs` states the
//! grammar, the scoping of sets and the matching rule). A typed form belongs to every page one
//! of whose lines starts with the form's opcode; a line is covered when the chain of at least
//! one typed form matches it (same opcode, same modifiers in any order; operands are not
//! compared). Lines of deprecated instructions are counted apart. Pages whose Syntax section
//! repeats an earlier page's (`bar` and `barrier`, `fence` and `membar`, the video pages) are
//! listed, and the totals are given both over all pages and over distinct sections.
//! `--lines` appends every template line with its chain count and whether it is covered.
//! A last section covers what PTX ISA 9.1 to 9.5 add beyond the 9.0 reference, from the data
//! in `tables/isa-additions.tsv` (`additions.rs`, which `tests/isa_additions.rs` shares).

mod additions;
mod syntax;

use ptxkit::ops;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use syntax::{normalize, Line, Page};

/// Lines denoting more chains than this are not enumerated for the distinct-chain count.
const ENUMERATE: usize = 1 << 20;

struct PageReport<'a> {
    page: &'a Page,
    opcodes: BTreeSet<String>,
    same_as: Option<&'a str>,
    forms: usize,
    /// Per line: whether a typed chain matches it.
    covered: Vec<bool>,
    /// The chains the page's lines denote: distinct (modulo order) when every line could be
    /// enumerated, else the product count as an upper bound.
    chains: (u128, bool),
    /// Distinct typed chains that match a line of the page.
    matched: usize,
}

impl PageReport<'_> {
    fn live(&self) -> impl Iterator<Item = (&Line, bool)> {
        self.page.lines.iter().zip(self.covered.iter().copied()).filter(|(l, _)| !l.deprecated && !self.page.deprecated)
    }
    fn uncovered(&self) -> Vec<&Line> {
        self.live().filter(|(_, c)| !c).map(|(l, _)| l).collect()
    }
    fn n_covered(&self) -> usize {
        self.live().filter(|(_, c)| *c).count()
    }
    fn n_deprecated(&self) -> usize {
        self.page.lines.len() - self.live().count()
    }
    fn chains_text(&self) -> String {
        let (n, exact) = self.chains;
        if exact {
            n.to_string()
        } else {
            format!("≤{n}")
        }
    }
}

fn reference_dir() -> Result<PathBuf, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = None;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--markdown" {
            i += 1;
        } else if args[i].starts_with("--") {
        } else if positional.is_none() {
            positional = Some(PathBuf::from(&args[i]));
        }
        i += 1;
    }
    let dir = positional
        .or_else(|| std::env::var_os("PTXKIT_ISA_REFERENCE").map(PathBuf::from))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/ptx-isa-9.0"));
    if !dir.is_dir() {
        return Err(format!(
            "PTX ISA reference not found at {}: pass its folder (one .md file per instruction page) as the first argument or in PTXKIT_ISA_REFERENCE",
            dir.display()
        ));
    }
    Ok(dir)
}

fn markdown_path() -> Option<PathBuf> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == "--markdown").map(|i| PathBuf::from(args.get(i + 1).expect("--markdown takes a path")))
}

fn load_pages(dir: &Path) -> Vec<Page> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let names: HashSet<String> = files.iter().map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()).collect();
    let is_opcode = |w: &str| names.contains(w);
    files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            syntax::parse_page(&p.file_stem().unwrap().to_string_lossy(), &text, &is_opcode)
        })
        .collect()
}

/// The distinct chains (modulo modifier order) of `lines`, or the product count if a line is
/// too large to enumerate.
fn page_chains(lines: &[Line]) -> (u128, bool) {
    let mut set = HashSet::new();
    for l in lines {
        match l.expand(ENUMERATE) {
            Some(chains) => set.extend(chains.iter().map(|c| normalize(c))),
            None => return (lines.iter().map(Line::count).fold(0u128, u128::saturating_add), false),
        }
    }
    (set.len() as u128, true)
}

fn main() {
    let dir = reference_dir().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let pages = load_pages(&dir);
    if pages.is_empty() {
        eprintln!("no .md pages in {}", dir.display());
        std::process::exit(2);
    }

    // Typed forms: per distinct chain, how many forms (variants) share it.
    let mut chains: BTreeMap<&'static str, usize> = BTreeMap::new();
    for f in ops::all_forms() {
        *chains.entry(f.chain).or_default() += 1;
    }
    let n_forms: usize = chains.values().sum();

    let mut matched_anywhere: HashSet<&str> = HashSet::new();
    let mut reports = vec![];
    for (i, page) in pages.iter().enumerate() {
        let opcodes: BTreeSet<String> = page.lines.iter().flat_map(|l| l.opcodes.iter().cloned()).collect();
        let mine: Vec<(&str, usize)> =
            chains.iter().filter(|(c, _)| opcodes.contains(c.split('.').next().unwrap())).map(|(c, n)| (*c, *n)).collect();
        let covered = syntax::covered_lines(page, &mine.iter().map(|(c, _)| *c).collect::<Vec<_>>());
        let mut matched = 0;
        for (c, _) in &mine {
            if page.lines.iter().any(|l| l.matches(c)) {
                matched += 1;
                matched_anywhere.insert(c);
            }
        }
        let same_as = pages[..i].iter().find(|p| p.syntax == page.syntax && !p.lines.is_empty()).map(|p| p.name.as_str());
        reports.push(PageReport {
            page,
            opcodes,
            same_as,
            forms: mine.iter().map(|(_, n)| n).sum(),
            covered,
            chains: page_chains(&page.lines),
            matched,
        });
    }
    let mut text = render(&reports, &chains, n_forms, &matched_anywhere, &dir);
    text.push_str(&render_additions(&chains.keys().copied().collect()));
    if std::env::args().any(|a| a == "--lines") {
        text.push_str(&all_lines(&reports));
    }
    print!("{text}");
    if let Some(path) = markdown_path() {
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        eprintln!("wrote {}", path.display());
    }
}

/// What PTX ISA 9.1 to 9.5 add beyond the reference's 9.0 pages (`tables/isa-additions.tsv`),
/// per version: the additions, how many are typed forms (every chain of the pattern), and
/// the rest by pattern.
fn render_additions(chains: &HashSet<&str>) -> String {
    let mut s = String::from("\n## PTX ISA 9.1 to 9.5: the additions (tables/isa-additions.tsv)\n\n");
    s.push_str("| version | additions | typed | not typed |\n|---|---|---|---|\n");
    let rows = additions::rows();
    let mut versions: Vec<_> = rows.iter().map(|r| r.version).collect();
    versions.sort();
    versions.dedup();
    let (mut all, mut typed) = (0, 0);
    for v in versions {
        let here: Vec<&additions::Row> = rows.iter().filter(|r| r.version == v).collect();
        let gaps: Vec<&&additions::Row> = here.iter().filter(|r| !additions::lookup(r, chains).0.is_empty()).collect();
        let _ = writeln!(
            s,
            "| {v} | {} | {} | {} |",
            here.len(),
            here.len() - gaps.len(),
            gaps.iter().map(|g| format!("`{}` ({})", g.pattern, g.what)).collect::<Vec<_>>().join(", ")
        );
        all += here.len();
        typed += here.len() - gaps.len();
    }
    let _ = writeln!(s, "\n{typed} of {all} additions are typed forms (a pattern counts when every chain it denotes is one).");
    s
}

/// The report, as markdown (which reads as plain text too).
fn render(reports: &[PageReport], chains: &BTreeMap<&str, usize>, n_forms: usize, matched: &HashSet<&str>, dir: &Path) -> String {
    let mut s = String::new();
    let w = &mut s;
    let reference = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let _ = writeln!(w, "# Typed forms against the PTX ISA reference ({reference})\n");
    let _ = writeln!(w, "{} typed forms ({} distinct chains); {} reference pages.\n", n_forms, chains.len(), reports.len());

    // Totals, over all pages and over distinct Syntax sections.
    let totals = |rs: &mut dyn Iterator<Item = &PageReport>| {
        let (mut pages, mut with, mut lines, mut cov, mut unc, mut dep) = (0, 0, 0, 0, 0, 0);
        for r in rs {
            pages += 1;
            with += usize::from(r.forms > 0);
            lines += r.page.lines.len();
            cov += r.n_covered();
            unc += r.uncovered().len();
            dep += r.n_deprecated();
        }
        (pages, with, lines, cov, unc, dep)
    };
    let all = totals(&mut reports.iter());
    let distinct = totals(&mut reports.iter().filter(|r| r.same_as.is_none()));
    let _ = writeln!(w, "## Totals\n");
    let _ = writeln!(w, "| | pages | with typed forms | without | template lines | covered | uncovered | deprecated |");
    let _ = writeln!(w, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for (label, t) in [("all pages", all), ("distinct Syntax sections", distinct)] {
        let _ = writeln!(w, "| {label} | {} | {} | {} | {} | {} | {} | {} |", t.0, t.1, t.0 - t.1, t.2, t.3, t.4, t.5);
    }
    let unmatched: Vec<(&str, usize)> = chains.iter().filter(|(c, _)| !matched.contains(*c)).map(|(c, n)| (*c, *n)).collect();
    let page_ops: BTreeSet<&str> = reports.iter().flat_map(|r| r.opcodes.iter().map(String::as_str)).collect();
    let no_page: usize = unmatched.iter().filter(|(c, _)| !page_ops.contains(c.split('.').next().unwrap())).map(|(_, n)| n).sum();
    let _ = writeln!(
        w,
        "\nTyped forms that match no template line: {} ({} distinct chains); {} of them have an opcode no page's template starts with.\n",
        unmatched.iter().map(|(_, n)| n).sum::<usize>(),
        unmatched.len(),
        no_page
    );

    let mut top: Vec<&PageReport> = reports.iter().filter(|r| r.same_as.is_none()).collect();
    top.sort_by_key(|r| (std::cmp::Reverse(r.uncovered().len()), r.page.name.clone()));
    let _ = writeln!(w, "## The 10 pages with the most uncovered lines\n");
    for r in top.iter().take(10) {
        let _ =
            writeln!(w, "- {}: {} of {} lines uncovered, {} typed forms", r.page.name, r.uncovered().len(), r.page.lines.len(), r.forms);
    }

    let _ = writeln!(w, "\n## Per page\n");
    let _ = writeln!(
        w,
        "Chains: what the page's lines denote, distinct modulo modifier order (`≤` marks a product count where a line is too large to enumerate); matched: distinct typed chains that match a line.\n"
    );
    let _ = writeln!(w, "| page | opcodes | typed forms | lines | covered | uncovered | deprecated | chains | matched | note |");
    let _ = writeln!(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for r in reports {
        let ops: Vec<&str> = r.opcodes.iter().map(String::as_str).collect();
        let note = match (r.same_as, r.page.deprecated) {
            (Some(p), _) => format!("same Syntax as {p}"),
            (None, true) => "deprecated".to_string(),
            (None, false) if r.page.lines.is_empty() => "no template line parsed".to_string(),
            _ => String::new(),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.page.name,
            ops.join(" "),
            r.forms,
            r.page.lines.len(),
            r.n_covered(),
            r.uncovered().len(),
            r.n_deprecated(),
            r.chains_text(),
            r.matched,
            note
        );
    }

    let _ = writeln!(w, "\n## Uncovered lines\n");
    for r in reports.iter().filter(|r| r.same_as.is_none() && !r.uncovered().is_empty()) {
        let _ = writeln!(w, "{} ({} of {}):\n", r.page.name, r.uncovered().len(), r.page.lines.len());
        for l in r.uncovered() {
            let _ = writeln!(w, "    {}", l.text);
        }
        let _ = writeln!(w);
    }
    let deprecated: Vec<(&str, &Line)> = reports
        .iter()
        .filter(|r| r.same_as.is_none())
        .flat_map(|r| r.page.lines.iter().filter(|l| l.deprecated || r.page.deprecated).map(|l| (r.page.name.as_str(), l)))
        .collect();
    let _ = writeln!(w, "## Deprecated lines\n");
    if deprecated.is_empty() {
        let _ = writeln!(w, "None: no page's description and no template comment says \"deprecated\".\n");
    }
    for (p, l) in deprecated {
        let _ = writeln!(w, "    {p}: {}", l.text);
    }

    // Typed chains matching no line, grouped by their first two parts.
    let _ = writeln!(w, "## Typed forms that match no template line\n");
    let _ = writeln!(w, "Grouped by opcode and first modifier: forms, distinct chains, one example.\n");
    let mut groups: BTreeMap<String, (usize, usize, &str)> = BTreeMap::new();
    for (c, n) in &unmatched {
        let key: Vec<&str> = c.split('.').take(2).collect();
        let e = groups.entry(key.join(".")).or_insert((0, 0, c));
        e.0 += n;
        e.1 += 1;
    }
    let _ = writeln!(w, "| group | forms | chains | example | opcode on a page |");
    let _ = writeln!(w, "|---|---:|---:|---|---|");
    for (g, (n, k, ex)) in &groups {
        let on_page = if page_ops.contains(g.split('.').next().unwrap()) { "yes" } else { "no" };
        let _ = writeln!(w, "| {g} | {n} | {k} | `{ex}` | {on_page} |");
    }
    s
}

/// Every template line: page, covered or not, the number of chains it denotes, its text.
fn all_lines(reports: &[PageReport]) -> String {
    let mut s = String::from("\n## All template lines\n\n");
    for r in reports.iter().filter(|r| r.same_as.is_none()) {
        for (l, c) in r.page.lines.iter().zip(&r.covered) {
            let _ = writeln!(s, "    {:<14} {:<9} {:>8}  {}", r.page.name, if *c { "covered" } else { "-" }, l.count(), l.text);
        }
    }
    s
}
