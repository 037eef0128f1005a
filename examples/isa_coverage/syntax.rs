//! The Syntax sections of the PTX ISA reference pages, parsed into instruction templates whose
//! placeholders are resolved against the page's modifier sets, and matched against concrete
//! chains. Library-free: `examples/isa_coverage/main.rs` runs it over the reference, and
//! `tests/isa_coverage.rs` checks it on inline samples.
//!
//! A page's Syntax section holds fenced blocks of two kinds of lines (comments `// ...` are
//! stripped first):
//!
//! - a set definition, `.name = { .a, .b, ... }` (possibly over several lines, possibly
//!   several names at once: `.dtype = .atype = { ... }`); values may lack their dot (`eq`,
//!   `vadd`), carry optional or required suffixes (`.shared{::cta, ::cluster}`,
//!   `.shared::{cta, cluster}`), span several parts (`.async.global`) or be `none` (empty);
//! - a template line: an opcode (a page name, or a set name written without a dot such as
//!   `vop`) then its modifiers, up to the first blank outside braces; the operands after it
//!   are kept as text only. In the chain, `.name` is a placeholder where a set of that name is
//!   in scope and a literal part otherwise; `{.a}` and `{.a,.b}` are optional, `.{a,b}` a
//!   required choice, and `{::x}` a suffix of the part before it.
//!
//! Scope of a set: the template lines of a block followed by the definitions after them form
//! a group (`redux` and `mma` define `.op` or `.kind` again after each template); a
//! placeholder is looked up in its group, then its block, then the whole page. Several
//! definitions of one name in one scope are united (`sured` gives `.ctype` once per form).
//!
//! Matching (modulo modifier order, types in order): split at `.`, a chain is its opcode, its
//! data-type parts in order (`u32`, `f16x2`, `bf16`, `e4m3x2`, `b6x16_p32`, `pred`: see
//! [`is_type`]) and the multiset of its other parts. A chain matches a template line when its
//! opcode is one the line's opcode position denotes, and one chain the line denotes has the same
//! type sequence and the same multiset of other parts. So `ld.global.relaxed.gpu.u32` matches
//! `ld.relaxed.scope{.ss}...type`, but `cvt.f32.s32` does not match a line that denotes only
//! `cvt.s32.f32`. Operands are not compared: two lines that differ only in their operands
//! are covered by the same chains.

use std::collections::{BTreeSet, HashMap};

/// A resolved chain element.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A literal part without its dot: `sync`, `shared::cta`, `L2::cache_hint`.
    Part(String),
    /// One of the alternatives (each a sequence of nodes), or none of them when optional.
    Choice { optional: bool, alts: Vec<Vec<Node>> },
}

/// One template line of a page.
#[derive(Clone, Debug)]
pub struct Line {
    /// The line as written (comment stripped, blanks collapsed).
    pub text: String,
    /// The chain with its placeholders resolved.
    pub tree: Vec<Node>,
    /// The opcodes its first position denotes (one, or a set's values as for `vop`).
    pub opcodes: BTreeSet<String>,
    /// Whether the line's own comment, or the comment line heading it, says "deprecated".
    pub deprecated: bool,
}

/// One reference page.
#[derive(Clone, Debug)]
pub struct Page {
    pub name: String,
    /// Whether the first line of the page's description says "deprecated".
    pub deprecated: bool,
    pub lines: Vec<Line>,
    /// The Syntax section's text, to tell pages with identical syntax apart.
    pub syntax: String,
}

/// Splits `s` at the top-level (outside braces) characters for which `sep` holds.
fn split_top(s: &str, sep: impl Fn(char) -> bool) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (vec![], String::new(), 0i32);
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if depth == 0 && sep(c) {
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The index of the brace that closes the one at `open`.
fn closing(s: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (i, &c) in s.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// Parses a chain or chain fragment (unresolved: every name is a `Part`).
pub fn parse_chain(s: &str) -> Vec<Node> {
    let b = s.as_bytes();
    let mut out: Vec<Node> = vec![];
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' if b.get(i + 1) == Some(&b'{') => {
                let end = closing(b, i + 1);
                let inner = &s[i + 2..end.min(s.len())];
                let items = split_top(inner, |c| c == ',');
                if inner.trim_start().starts_with('.') {
                    out.push(Node::Choice { optional: true, alts: items.iter().map(|a| parse_chain(a)).collect() });
                } else {
                    out.push(Node::Choice { optional: false, alts: items.iter().map(|a| parse_chain(&format!(".{a}"))).collect() });
                }
                i = end + 1;
            }
            b'{' => {
                let end = closing(b, i);
                let inner = &s[i + 1..end.min(s.len())];
                let items = split_top(inner, |c| c == ',');
                if inner.trim_start().starts_with('.') {
                    out.push(Node::Choice { optional: true, alts: items.iter().map(|a| parse_chain(a)).collect() });
                } else if let Some(Node::Part(prev)) = out.last().cloned() {
                    // A suffix of the part before: `.shared{::cta}`, `.shared::{cta, cluster}`.
                    out.pop();
                    let mut alts: Vec<Vec<Node>> = vec![];
                    if !prev.ends_with("::") {
                        alts.push(vec![Node::Part(prev.clone())]);
                    }
                    alts.extend(items.iter().map(|a| vec![Node::Part(format!("{prev}{a}"))]));
                    out.push(Node::Choice { optional: false, alts });
                } else {
                    out.push(Node::Choice { optional: false, alts: items.iter().map(|a| vec![Node::Part(a.clone())]).collect() });
                }
                i = end + 1;
            }
            b'.' => i += 1,
            _ => {
                let start = i;
                while i < b.len() && b[i] != b'.' && b[i] != b'{' {
                    i += 1;
                }
                let part = s[start..i].trim();
                if !part.is_empty() {
                    out.push(Node::Part(part.to_string()));
                }
            }
        }
    }
    out
}

/// A set definition's names and values, if `line` starts one (`.a = .b = { ...`).
fn definition_head(line: &str) -> Option<(Vec<String>, &str)> {
    let mut names = vec![];
    let mut rest = line.trim_start();
    loop {
        let name_len = rest.find('=')?;
        let name = rest[..name_len].trim();
        let bare = name.strip_prefix('.').unwrap_or(name);
        if bare.is_empty() || !bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '-') {
            return None;
        }
        names.push(bare.to_string());
        rest = rest[name_len + 1..].trim_start();
        if rest.starts_with('{') {
            return Some((names, rest));
        }
        if !rest.starts_with('.') {
            return None;
        }
    }
}

/// The values of a set from the text between its braces.
fn set_values(inner: &str) -> Vec<Vec<Node>> {
    split_top(inner, |c| c == ',' || c.is_whitespace()).into_iter().map(|v| if v == "none" { vec![] } else { parse_chain(&v) }).collect()
}

type Defs = HashMap<String, Vec<Vec<Node>>>;

struct Template {
    text: String,
    chain: String,
    deprecated: bool,
}

enum Item {
    Def(Vec<String>, Vec<Vec<Node>>),
    Template(Template),
}

fn strip_comment(line: &str) -> (&str, &str) {
    match line.find("//") {
        Some(i) => (&line[..i], &line[i + 2..]),
        None => (line, ""),
    }
}

/// The opcode a line starts with, if it reads as a template line.
fn template_opcode(line: &str) -> Option<&str> {
    let end = line.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(line.len());
    let word = &line[..end];
    let next = line[end..].chars().next();
    let starts = word.chars().next().is_some_and(|c| c.is_ascii_lowercase());
    (starts && matches!(next, None | Some('.' | '{' | ';' | ' ' | '\t'))).then_some(word)
}

/// The items of one fenced block.
fn block_items(lines: &[&str], is_opcode: &dyn Fn(&str) -> bool) -> Vec<Item> {
    // Names of sets defined without a dot (`vop = { vadd, ... }`) can stand as opcodes.
    let dotless: Vec<String> = lines
        .iter()
        .filter_map(|l| definition_head(strip_comment(l).0))
        .flat_map(|(names, _)| names)
        .filter(|n| !n.contains(':'))
        .collect();
    let mut items = vec![];
    let mut heading_comment = String::new();
    let mut i = 0;
    while i < lines.len() {
        let (code, comment) = strip_comment(lines[i]);
        let code = code.trim();
        if code.is_empty() {
            heading_comment = comment.to_string();
            i += 1;
            continue;
        }
        if let Some((names, rest)) = definition_head(code) {
            let mut text = rest.to_string();
            while text.matches('{').count() > text.matches('}').count() && i + 1 < lines.len() {
                i += 1;
                text.push(' ');
                text.push_str(strip_comment(lines[i]).0);
            }
            let end = closing(text.as_bytes(), 0);
            items.push(Item::Def(names, set_values(&text[1..end.min(text.len())])));
            i += 1;
            continue;
        }
        let unguarded = match code.strip_prefix('@') {
            Some(g) => g.split_once(char::is_whitespace).map_or("", |(_, r)| r).trim_start(),
            None => code,
        };
        if let Some(op) = template_opcode(unguarded) {
            if is_opcode(op) || dotless.iter().any(|d| d == op) {
                // `red...noftz{.level::cache_hint}. vec_16_bit`: a blank after a dot.
                let mut joined = unguarded.to_string();
                while let Some(p) = joined.find(". ") {
                    joined.replace_range(p + 1..p + 2, "");
                }
                let chain = split_top(&joined, |c| c.is_whitespace() || c == ';').into_iter().next().unwrap_or_default();
                let deprecated = [comment, &heading_comment].iter().any(|c| c.to_ascii_lowercase().contains("deprecated"));
                let mut text = code.to_string();
                // Operands continued on the next lines (`createpolicy`, `cp.async`, `vmad`).
                while !text.contains(';') && i + 1 < lines.len() {
                    let next = strip_comment(lines[i + 1]).0.trim();
                    if next.is_empty()
                        || definition_head(next).is_some()
                        || template_opcode(next).is_some_and(|o| is_opcode(o) || dotless.iter().any(|d| d == o))
                    {
                        break;
                    }
                    text.push(' ');
                    text.push_str(next);
                    i += 1;
                }
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                items.push(Item::Template(Template { text, chain, deprecated }));
            }
        }
        i += 1;
    }
    items
}

/// Resolves placeholders: a part naming a set in scope becomes a choice of its values.
fn resolve(nodes: &[Node], lookup: &dyn Fn(&str) -> Option<Vec<Vec<Node>>>, seen: &mut Vec<String>) -> Vec<Node> {
    nodes
        .iter()
        .map(|n| match n {
            Node::Part(p) if !seen.contains(p) && seen.len() < 8 => match lookup(p) {
                Some(values) => {
                    seen.push(p.clone());
                    let alts = values.iter().map(|v| resolve(v, lookup, seen)).collect();
                    seen.pop();
                    Node::Choice { optional: false, alts }
                }
                None => n.clone(),
            },
            Node::Part(_) => n.clone(),
            Node::Choice { optional, alts } => {
                Node::Choice { optional: *optional, alts: alts.iter().map(|a| resolve(a, lookup, seen)).collect() }
            }
        })
        .collect()
}

fn add_def(defs: &mut Defs, names: &[String], values: &[Vec<Node>]) {
    for n in names {
        let e = defs.entry(n.clone()).or_default();
        for v in values {
            if !e.contains(v) {
                e.push(v.clone());
            }
        }
    }
}

/// Parses a page's markdown. `is_opcode` tells which words start a template line (the
/// reference's page names; set names written without a dot are added per block).
pub fn parse_page(name: &str, markdown: &str, is_opcode: &dyn Fn(&str) -> bool) -> Page {
    let mut in_syntax = false;
    let mut in_fence = false;
    let mut blocks: Vec<Vec<&str>> = vec![];
    let mut syntax = String::new();
    let mut description = None;
    let mut in_description = false;
    for l in markdown.lines() {
        if l.starts_with("### ") && !in_fence {
            in_syntax = l.trim() == "### Syntax";
            in_description = l.trim() == "### Description";
            continue;
        }
        if in_description && description.is_none() && !l.trim().is_empty() {
            description = Some(l.to_ascii_lowercase());
        }
        if !in_syntax {
            continue;
        }
        syntax.push_str(l);
        syntax.push('\n');
        if l.trim_start().starts_with("```") {
            in_fence = !in_fence;
            if in_fence {
                blocks.push(vec![]);
            }
        } else if in_fence {
            blocks.last_mut().expect("a block is open").push(l);
        }
    }
    let mut page_defs = Defs::new();
    let mut parsed = vec![];
    for block in &blocks {
        let items = block_items(block, is_opcode);
        // Groups: template lines with the definitions that follow them.
        let mut groups: Vec<(Vec<Template>, Defs)> = vec![];
        let mut block_defs = Defs::new();
        for item in items {
            match item {
                Item::Template(t) => {
                    if groups.last().is_none_or(|g| !g.1.is_empty()) {
                        groups.push((vec![], Defs::new()));
                    }
                    groups.last_mut().unwrap().0.push(t);
                }
                Item::Def(names, values) => {
                    if let Some(g) = groups.last_mut() {
                        add_def(&mut g.1, &names, &values);
                    }
                    add_def(&mut block_defs, &names, &values);
                    add_def(&mut page_defs, &names, &values);
                }
            }
        }
        parsed.push((groups, block_defs));
    }
    let mut lines = vec![];
    for (groups, block_defs) in &parsed {
        for (templates, group_defs) in groups {
            let lookup = |n: &str| group_defs.get(n).or_else(|| block_defs.get(n)).or_else(|| page_defs.get(n)).cloned();
            for t in templates {
                let tree = resolve(&parse_chain(&t.chain), &lookup, &mut vec![]);
                let opcodes = first_parts(&tree);
                lines.push(Line { text: t.text.clone(), tree, opcodes, deprecated: t.deprecated });
            }
        }
    }
    let deprecated = description.is_some_and(|d| d.contains("deprecated"));
    Page { name: name.to_string(), deprecated, lines, syntax }
}

fn count_seq(nodes: &[Node]) -> u128 {
    nodes.iter().fold(1u128, |acc, n| acc.saturating_mul(count_node(n)))
}

fn count_node(n: &Node) -> u128 {
    match n {
        Node::Part(_) => 1,
        Node::Choice { optional, alts } => alts.iter().fold(u128::from(*optional), |acc, a| acc.saturating_add(count_seq(a))),
    }
}

/// Expands `nodes` into part lists, or `None` past `limit`.
fn expand_seq(nodes: &[Node], limit: usize) -> Option<Vec<Vec<String>>> {
    let mut acc: Vec<Vec<String>> = vec![vec![]];
    for n in nodes {
        let options: Vec<Vec<String>> = match n {
            Node::Part(p) => vec![vec![p.clone()]],
            Node::Choice { optional, alts } => {
                let mut o = if *optional { vec![vec![]] } else { vec![] };
                for a in alts {
                    o.extend(expand_seq(a, limit)?);
                }
                o
            }
        };
        if acc.len().saturating_mul(options.len()) > limit {
            return None;
        }
        acc = acc.iter().flat_map(|pre| options.iter().map(move |o| pre.iter().chain(o).cloned().collect())).collect();
    }
    Some(acc)
}

/// Whether `p` names a data type: `pred`, or `b`/`u`/`s`/`f`/`bf`/`tf` and a width, or
/// `e`/`ue` with exponent and mantissa widths (`e4m3`, `ue8m0`), each optionally followed by
/// `x` and a count (`f16x2`, `e2m1x4`, `b8x16`) and `_p` and a padding (`b6x16_p32`).
pub fn is_type(p: &str) -> bool {
    fn number(s: &str) -> Option<&str> {
        let n = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        (n > 0).then(|| &s[n..])
    }
    if p == "pred" {
        return true;
    }
    let minifloat = || number(p.strip_prefix("ue").or_else(|| p.strip_prefix('e'))?)?.strip_prefix('m').and_then(number);
    let int = || ["bf", "tf", "b", "u", "s", "f"].iter().find_map(|pre| number(p.strip_prefix(pre)?));
    let Some(mut rest) = minifloat().or_else(int) else { return false };
    if let Some(r) = rest.strip_prefix('x') {
        rest = number(r).unwrap_or("?");
    }
    if let Some(r) = rest.strip_prefix("_p") {
        rest = number(r).unwrap_or("?");
    }
    rest.is_empty()
}

/// The key under which chains match (see the module's documentation): the opcode, the other
/// modifiers sorted, then `|` and the type parts in order. `ld.u32.global` and `ld.global.u32`
/// have one key; `cvt.f32.s32` and `cvt.s32.f32` have two.
pub fn normalize(chain: &str) -> String {
    let mut parts = chain.split('.').filter(|p| !p.is_empty());
    let op = parts.next().unwrap_or("");
    let (types, mut mods): (Vec<&str>, Vec<&str>) = parts.partition(|p| is_type(p));
    mods.sort_unstable();
    format!("{op}.{}|{}", mods.join("."), types.join("."))
}

/// Whether `todo` can consume exactly the modifiers in `rem` (a multiset) and the type parts
/// `types` (in order).
fn consume<'a>(todo: &[&'a Node], rem: &mut Vec<&'a str>, types: &[&str]) -> bool {
    let Some((first, rest)) = todo.split_first() else {
        return rem.is_empty() && types.is_empty();
    };
    match first {
        Node::Part(p) if is_type(p) => types.first() == Some(&p.as_str()) && consume(rest, rem, &types[1..]),
        Node::Part(p) => {
            let Some(i) = rem.iter().position(|r| r == p) else {
                return false;
            };
            let taken = rem.swap_remove(i);
            let ok = consume(rest, rem, types);
            rem.push(taken);
            let last = rem.len() - 1;
            rem.swap(i, last);
            ok
        }
        Node::Choice { optional, alts } => {
            if *optional && consume(rest, rem, types) {
                return true;
            }
            alts.iter().any(|a| {
                let next: Vec<&Node> = a.iter().chain(rest.iter().copied()).collect();
                consume(&next, rem, types)
            })
        }
    }
}

/// The parts the first node of `tree` can start with.
fn first_parts(tree: &[Node]) -> BTreeSet<String> {
    let first = tree.first().map(std::slice::from_ref).unwrap_or_default();
    expand_seq(first, 1 << 12).unwrap_or_default().into_iter().filter_map(|c| c.into_iter().next()).collect()
}

impl Line {
    /// How many chains the line denotes, counted as the product of its choices (a chain that
    /// two choices spell alike is counted twice).
    pub fn count(&self) -> u128 {
        count_seq(&self.tree)
    }
    /// The chains the line denotes, in template order, or `None` when more than `limit`.
    pub fn expand(&self, limit: usize) -> Option<Vec<String>> {
        Some(expand_seq(&self.tree, limit)?.into_iter().map(|p| p.join(".")).collect())
    }
    /// Whether `chain` is one the line denotes, modulo the order of its modifiers other than
    /// types (the module's matching rule).
    pub fn matches(&self, chain: &str) -> bool {
        let mut parts = chain.split('.').filter(|p| !p.is_empty());
        let Some(op) = parts.next() else { return false };
        // The opcode position is a single part, or a choice of single parts (`vop`).
        let Some((_, rest)) = self.tree.split_first() else { return false };
        if !self.opcodes.contains(op) {
            return false;
        }
        let (types, mut rem): (Vec<&str>, Vec<&str>) = parts.partition(|p| is_type(p));
        let todo: Vec<&Node> = rest.iter().collect();
        consume(&todo, &mut rem, &types)
    }
}

/// Per line of `page`: whether one of `chains` matches it.
pub fn covered_lines(page: &Page, chains: &[&str]) -> Vec<bool> {
    page.lines.iter().map(|l| chains.iter().any(|c| l.matches(c))).collect()
}
