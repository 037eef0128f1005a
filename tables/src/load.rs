//! The family tables as data: parsed once per process (once per compilation in the macros),
//! read by `ptx!` and `op!` (to check a chain, suggest the nearest legal one and write its
//! types), by `families!` (the modifier, opcode, variant and legal-value types, the family
//! modules and the selection impls) and, at run time, by `ptxkit::ops::families()`.

use crate::notation::{self, Dst, Src};
use crate::orders::Orders;
use crate::vocab::{self, rust_ident};
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// FNV-1a: the maps here are keyed by short chains, hashed tens of thousands of times when
/// the tables load inside an unoptimised proc macro, where SipHash is the larger cost.
#[derive(Default)]
pub struct Fnv(u64);
impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A map hashed with [`Fnv`].
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<Fnv>>;

/// One typed form.
pub struct Form {
    pub chain: String,
    pub parts: Vec<String>,
    pub variant: String,
    pub dst: Dst,
    pub srcs: Vec<Src>,
    /// Whether generic code may select the form by its modifier types (`select` on its row:
    /// `ptxkit::ops::Select`).
    pub select: bool,
    /// The index of its family in [`Tables::families`].
    pub family: usize,
}

pub struct Family {
    pub name: &'static str,
    pub source: &'static str,
    /// The `//!` lines of the header: the family module's documentation.
    pub doc: String,
    /// `@count N;`: the number of forms the rows are pinned to expand to.
    pub count: Option<usize>,
    /// Indices into `Tables::forms`.
    pub forms: Vec<usize>,
}

pub struct Tables {
    pub families: Vec<Family>,
    pub forms: Vec<Form>,
    pub index: HashMap<(String, String), usize>,
    pub by_opcode: BTreeMap<String, Vec<usize>>,
    /// Modifier tokens (parts after the opcode that are not data types).
    pub modifiers: BTreeSet<String>,
    /// Variant name -> its documentation (`@variant`; `plain` is every chain's default).
    pub variants: BTreeMap<String, String>,
    /// Legal-value set name -> (text, values).
    pub legal: BTreeMap<String, (String, Vec<i64>)>,
    /// Forms by opcode and sorted parts (built on first use: `ptx!` needs it only for a
    /// chain not in table order).
    by_parts: OnceLock<HashMap<String, Vec<usize>>>,
}

/// A chain's parts as a key that ignores their order after the opcode.
fn parts_key(parts: &[impl AsRef<str>]) -> String {
    let mut rest: Vec<&str> = parts[1..].iter().map(AsRef::as_ref).collect();
    rest.sort_unstable();
    format!("{} {}", parts[0].as_ref(), rest.join("."))
}

impl Tables {
    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }
    pub fn is_token(&self, part: &str) -> bool {
        vocab::is_dtype(part) || self.modifiers.contains(part)
    }

    /// The forms whose chains have the same parts as `parts`, in any order.
    pub fn same_parts(&self, parts: &[&str]) -> &[usize] {
        let index = self.by_parts.get_or_init(|| {
            let mut m: HashMap<String, Vec<usize>> = HashMap::default();
            for (i, f) in self.forms.iter().enumerate() {
                m.entry(parts_key(&f.parts)).or_default().push(i);
            }
            m
        });
        index.get(&parts_key(parts)).map_or(&[], Vec::as_slice)
    }

    /// The forms of `variant` that `parts` spells in an order ptxas accepts for them other
    /// than the table's (one, unless chains with the same parts share an accepted order).
    pub fn reordered(&self, parts: &[&str], variant: &str) -> Result<Vec<usize>, &'static str> {
        let o = orders()?;
        Ok(self
            .same_parts(parts)
            .iter()
            .copied()
            .filter(|&i| self.forms[i].variant == variant && o.check(&self.forms[i].parts, parts).is_ok())
            .collect())
    }

    /// The form a chain names with `variant`: in table order, or in another order ptxas
    /// accepts for exactly one form; `None` where there is none or more than one.
    pub fn resolve(&self, parts: &[&str], variant: &str) -> Option<usize> {
        if let Some(&i) = self.index.get(&(parts.join("."), variant.to_string())) {
            return Some(i);
        }
        match self.reordered(parts, variant).ok()?[..] {
            [i] => Some(i),
            _ => None,
        }
    }
}

/// The order rules (`orders.tsv`), parsed once.
pub fn orders() -> Result<&'static Orders, &'static str> {
    static O: OnceLock<Result<Orders, String>> = OnceLock::new();
    O.get_or_init(|| Orders::parse(crate::ORDERS_TSV)).as_ref().map_err(|e| e.as_str())
}

struct Row<'a> {
    line: usize,
    pat: &'a str,
    sig: &'a str,
    variant: Option<&'a str>,
    select: bool,
}

/// What a table file holds: its rows, and its header's documentation, variants and count.
#[derive(Default)]
struct Parsed<'a> {
    rows: Vec<Row<'a>>,
    doc: String,
    count: Option<usize>,
    variants: Vec<(usize, &'a str, &'a str)>,
}

/// The quoted strings at the start of `l`, and what follows them.
fn quoted(mut rest: &str) -> Result<(Vec<&str>, &str), &'static str> {
    let mut out = vec![];
    rest = rest.trim();
    while let Some(r) = rest.strip_prefix('"') {
        let Some(end) = r.find('"') else { return Err("unclosed string") };
        out.push(&r[..end]);
        rest = r[end + 1..].trim();
    }
    Ok((out, rest))
}

/// `"pattern"  "signature"  [as variant] [select];` rows, `//` comments, `//!` documentation,
/// `@count N;` and `@variant name "doc";`.
fn parse(src: &str) -> Result<Parsed<'_>, (usize, String)> {
    let mut out = Parsed::default();
    for (n, raw) in src.lines().enumerate() {
        let line = n + 1;
        let l = raw.trim();
        if let Some(d) = l.strip_prefix("//!") {
            out.doc.push_str(d.strip_prefix(' ').unwrap_or(d));
            out.doc.push('\n');
            continue;
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        let err = |m: &str| Err((line, m.to_string()));
        let Some(l) = l.strip_suffix(';') else { return err("a row ends with `;`") };
        if let Some(c) = l.strip_prefix("@count ") {
            let Ok(c) = c.trim().parse() else { return err("`@count N;` pins the number of forms") };
            if out.count.replace(c).is_some() {
                return err("a second `@count`");
            }
            continue;
        }
        if let Some(v) = l.strip_prefix("@variant ") {
            let (name, rest) = v.trim().split_once(' ').unwrap_or((v.trim(), ""));
            match quoted(rest) {
                Ok((d, "")) if d.len() == 1 && !name.is_empty() => out.variants.push((line, name, d[0])),
                _ => return err("`@variant name \"documentation\";`"),
            }
            continue;
        }
        let (q, rest) = match quoted(l) {
            Ok(x) => x,
            Err(m) => return err(m),
        };
        let [pat, sig] = q[..] else { return err("a row is \"pattern\" \"signature\"") };
        let (rest, select) = match rest.strip_suffix("select") {
            Some(r) if r.is_empty() || r.ends_with(' ') => (r.trim(), true),
            _ => (rest, false),
        };
        let variant = match rest.strip_prefix("as ") {
            Some(v) => Some(v.trim()),
            None if rest.is_empty() => None,
            None => return err("expected `as variant`, `select` or `;` after the signature"),
        };
        out.rows.push(Row { line, pat, sig, variant, select });
    }
    Ok(out)
}

/// The documentation of a variant made of optional items (`sampler_offset`): its items'.
fn combined_doc(variants: &BTreeMap<String, String>, name: &str) -> Option<String> {
    let items: Vec<String> = name.split('_').map(|i| format!("`{i}`")).collect();
    if !name.split('_').all(|i| variants.contains_key(i)) || items.len() < 2 {
        return None;
    }
    let (last, first) = items.split_last()?;
    Some(format!("The optional parts of the variants {} and {last}, in one form.", first.join(", ")))
}

fn load() -> Result<Tables, String> {
    let mut t = Tables {
        families: vec![],
        forms: vec![],
        index: HashMap::default(),
        by_opcode: BTreeMap::new(),
        modifiers: BTreeSet::new(),
        variants: BTreeMap::new(),
        legal: BTreeMap::new(),
        by_parts: OnceLock::new(),
    };
    t.variants.insert("plain".into(), "The chain default.".into());
    let mut parsed = vec![];
    for (name, source) in crate::FAMILIES {
        let p = parse(source).map_err(|(l, m)| format!("tables/forms/{name}.forms:{l}: {m}"))?;
        for (line, v, doc) in &p.variants {
            if let Some(old) = t.variants.insert(v.to_string(), doc.to_string()) {
                if old != *doc {
                    return Err(format!("tables/forms/{name}.forms:{line}: variant `{v}` is declared twice, differently"));
                }
            }
        }
        parsed.push((*name, *source, p));
    }
    let mut idents: HashMap<String, String> = HashMap::default();
    for (fi, (name, source, p)) in parsed.into_iter().enumerate() {
        let at = |line: usize, m: String| format!("tables/forms/{name}.forms:{line}: {m}");
        let mut fam = Family { name, source, doc: p.doc, count: p.count, forms: vec![] };
        for row in p.rows {
            let e = |m: String| at(row.line, format!("row `{}`: {m}", row.pat));
            let chains = notation::expand_pattern(row.pat).map_err(e)?;
            for (text, names) in notation::expand_options(row.sig).map_err(e)? {
                let variant = match (row.variant, names.is_empty()) {
                    (v, true) => v.unwrap_or("plain").to_string(),
                    (None, false) => names.join("_"),
                    (Some(_), false) => return Err(e("a row with optional items takes its variants from them, not `as`".into())),
                };
                if !t.variants.contains_key(&variant) {
                    match combined_doc(&t.variants, &variant) {
                        Some(d) if !names.is_empty() => {
                            t.variants.insert(variant.clone(), d);
                        }
                        _ => {
                            return Err(e(format!("variant `{variant}` is not declared: add `@variant {variant} \"...\";` to the header")))
                        }
                    }
                }
                let (dst_s, src_s) = text.split_once('=').ok_or_else(|| e("the signature needs `=`".into()))?;
                for x in &chains {
                    let sig = notation::Sig { x };
                    let dst = sig.dst(dst_s.trim()).map_err(e)?;
                    let srcs = sig.srcs(src_s).map_err(e)?;
                    if srcs.len() > 12 {
                        return Err(e("a form takes at most 12 operands".into()));
                    }
                    let chain = x.parts.join(".");
                    for p in &x.parts[1..] {
                        // A token met for the first time: a modifier, whose Rust name no other
                        // token may share.
                        if !vocab::is_dtype(p) && !t.modifiers.contains(p) {
                            t.modifiers.insert(p.clone());
                            let id = rust_ident(p);
                            if let Some(other) = idents.insert(id.clone(), p.clone()) {
                                return Err(e(format!("tokens `{other}` and `{p}` both map to the Rust name `{id}`")));
                            }
                        }
                    }
                    for s in &srcs {
                        if let Src::ImmIn(ty, vals, lname) = s {
                            t.legal.insert(lname.clone(), (format!("{ty}: {}", legal_text(vals)), vals.clone()));
                        }
                    }
                    let i = t.forms.len();
                    if t.index.insert((chain.clone(), variant.clone()), i).is_some() {
                        return Err(e(format!("form `{chain}` ({variant}) appears twice")));
                    }
                    t.by_opcode.entry(x.parts[0].clone()).or_default().push(i);
                    fam.forms.push(i);
                    t.forms.push(Form {
                        chain,
                        parts: x.parts.clone(),
                        variant: variant.clone(),
                        dst,
                        srcs,
                        select: row.select,
                        family: fi,
                    });
                }
            }
        }
        t.families.push(fam);
    }
    Ok(t)
}

fn legal_text(v: &[i64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// The tables, parsed once; `Err` names the file, line and row at fault.
pub fn tables() -> Result<&'static Tables, &'static str> {
    static T: OnceLock<Result<Tables, String>> = OnceLock::new();
    T.get_or_init(load).as_ref().map_err(|e| e.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_load_and_every_family_pins_its_count() {
        let t = tables().unwrap();
        println!("{} forms in {} families", t.forms.len(), t.families.len());
        assert!(t.forms.len() > 9000);
        for f in &t.families {
            let n = f.forms.len();
            match f.count {
                Some(c) => assert_eq!(c, n, "tables/forms/{}.forms expands to {n} forms, its `@count` says {c}", f.name),
                None => panic!("tables/forms/{}.forms pins no count: add a row `@count {n};` to its header", f.name),
            }
        }
    }

    #[test]
    fn suggestions() {
        let t = tables().unwrap();
        let ask = |c: &str| crate::suggest::explain(t, c, &c.split('.').collect::<Vec<_>>(), "plain");
        for c in
            ["mul.u32.wide", "ld.relaxd.gpu.global.u32", "ld.global.relaxd.gpu.u32", "add.fast.f32", "fma.f32", "lds.global.u32", "mov.b64"]
        {
            println!("{c}: {}", ask(c));
        }
        assert!(ask("mul.u32.wide").contains("ptxas rejects this order of `mul.wide.u32` (`.wide` comes before `.u32`)"));
        assert!(ask("ld.v4.global.u32").contains("(`.u32` comes right after `.v4`)"), "{}", ask("ld.v4.global.u32"));
        assert!(ask("ld.relaxd.gpu.global.u32").contains("did you mean `ld.relaxed.gpu.global.u32`"));
        assert!(ask("ld.global.relaxd.gpu.u32").contains("did you mean `ld.global.relaxed.gpu.u32`"));
        let shape = ask("wgmma.mma_async.sync.aligned.m64n7k16.f32.bf16.bf16");
        println!("{shape}");
        assert!(shape.contains("`.m64n{8..256/8}k16`"), "{shape}");
        let int = ask("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8");
        println!("{int}");
        assert!(int.contains("`.m64n{8..32/8,48..256/16}k32`"), "{int}");
    }

    #[test]
    fn other_orders_resolve_to_the_table_form() {
        let t = tables().unwrap();
        let one = |c: &str| -> Vec<&str> {
            let parts: Vec<&str> = c.split('.').collect();
            t.reordered(&parts, "plain").unwrap().iter().map(|&i| t.forms[i].chain.as_str()).collect()
        };
        assert_eq!(one("ld.global.relaxed.gpu.u32"), ["ld.relaxed.gpu.global.u32"]);
        assert_eq!(one("ld.u32.global"), ["ld.global.u32"]);
        assert_eq!(one("cvt.f32.rn.f64"), ["cvt.rn.f32.f64"]);
        assert_eq!(one("setp.and.lt.u32"), ["setp.lt.and.u32"]);
        // The table writes `.nc` after the cache operator, as the PTX ISA's `ld.global{.cop}.nc`;
        // ptxas takes either order.
        assert_eq!(one("ld.global.nc.ca.u32"), ["ld.global.ca.nc.u32"]);
        // Sibling chains (same parts, different instructions) keep what tells them apart.
        assert_eq!(one("cvt.u32.sat.s32"), ["cvt.sat.u32.s32"]);
        assert_eq!(one("cvt.s32.sat.u32"), ["cvt.sat.s32.u32"]);
        // Orders ptxas rejects.
        assert!(one("mul.u32.wide").is_empty());
        assert!(one("ld.v4.global.u32").is_empty());
        assert!(one("cvt.rn.f64.f32").is_empty());
        assert!(one("wgmma.sync.mma_async.aligned.m64n8k16.f32.bf16.bf16").is_empty());
    }

    /// Every form, written in another order its rule admits, resolves to itself; and what that
    /// costs (`ptx!` pays it only for a chain not in table order).
    #[test]
    fn every_form_in_another_order_resolves_to_itself() {
        let start = std::time::Instant::now();
        let t = tables().unwrap();
        println!("tables: {:.1?} (the first use in this process parses them)", start.elapsed());
        let o = orders().unwrap();
        let start = std::time::Instant::now();
        t.same_parts(&["ld", "global", "u32"]);
        let index = start.elapsed();
        let (mut n, mut spent) = (0u32, std::time::Duration::ZERO);
        for (i, f) in t.forms.iter().enumerate() {
            let p: Vec<&str> = f.parts.iter().map(String::as_str).collect();
            // The last part moved as far forward as the rule allows.
            let Some(alt) = (1..p.len().saturating_sub(1)).find_map(|j| {
                let mut v = p.clone();
                let last = v.pop()?;
                v.insert(j, last);
                (o.check(&p, &v).is_ok() && !t.index.contains_key(&(v.join("."), f.variant.clone()))).then_some(v)
            }) else {
                continue;
            };
            let at = std::time::Instant::now();
            let found = t.reordered(&alt, &f.variant).unwrap();
            spent += at.elapsed();
            n += 1;
            assert_eq!(found, [i], "{} for {}", alt.join("."), f.chain);
        }
        println!("index of forms by sorted parts: {index:.1?}; {n} forms in another order resolved in {:.1?} each", spent / n);
        assert!(n > 5000);
    }
}
