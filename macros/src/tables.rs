//! The family tables as data: parsed once per compilation, read by `forms!` (to generate
//! the impls), by `ptx!` (to check a chain and suggest the nearest legal one) and by
//! `define_tokens!` (the modifier, key and legal-value types the tables use).

use crate::notation::{self, Dst, Src};
use crate::orders::Orders;
use crate::vocab::{self, rust_ident};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

/// One typed form.
pub struct Form {
    pub chain: String,
    pub parts: Vec<String>,
    pub variant: String,
    pub dst: Dst,
    pub srcs: Vec<Src>,
}

impl Form {
    /// The Rust type the form's impl is keyed by: opcode and last part, `ld.global.u32` ->
    /// `LdU32` (impls on one type are compared pairwise for coherence, so keying keeps that
    /// cost near linear in the number of forms), and for `ld`/`st`/`ldu` the first cache
    /// control of the chain ([`vocab::CACHE_PARTS`]).
    pub fn key(&self) -> String {
        key_of(&self.parts)
    }
}

/// (opcode, cache control or "", last part) of a chain: what its key is made of.
pub fn key_parts<S: AsRef<str>>(parts: &[S]) -> (&str, &str, &str) {
    let op = parts[0].as_ref();
    if parts.len() < 2 {
        return (op, "", "");
    }
    let mid = &parts[1..parts.len() - 1];
    let cache =
        if vocab::CACHE_KEYED.contains(&op) { mid.iter().map(|p| p.as_ref()).find(|p| vocab::CACHE_PARTS.contains(p)) } else { None };
    (op, cache.unwrap_or(""), parts[parts.len() - 1].as_ref())
}

pub fn key_of(parts: &[impl AsRef<str>]) -> String {
    let (op, cache, last) = key_parts(parts);
    format!("{}{}{}", rust_ident(op), rust_ident(cache), rust_ident(last))
}

pub struct Family {
    pub name: &'static str,
    pub source: &'static str,
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
    /// Key type name -> (opcode, cache control or "", last part).
    pub keys: BTreeMap<String, (String, String, String)>,
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
            let mut m: HashMap<String, Vec<usize>> = HashMap::new();
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
}

/// The order rules (`macros/tables/orders.tsv`), parsed once.
pub fn orders() -> Result<&'static Orders, &'static str> {
    static O: OnceLock<Result<Orders, String>> = OnceLock::new();
    O.get_or_init(|| Orders::parse(include_str!("../tables/orders.tsv"))).as_ref().map_err(|e| e.as_str())
}

struct Row<'a> {
    line: usize,
    pat: &'a str,
    sig: &'a str,
    variant: Option<&'a str>,
}

/// `"pattern"  "signature"  [as variant];` rows, with `//` comments and blank lines.
fn rows(src: &str) -> Result<Vec<Row<'_>>, (usize, String)> {
    let mut out = vec![];
    for (n, raw) in src.lines().enumerate() {
        let line = n + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        let err = |m: &str| Err((line, m.to_string()));
        let Some(l) = l.strip_suffix(';') else { return err("a row ends with `;`") };
        let mut quoted = vec![];
        let mut rest = l.trim();
        while let Some(r) = rest.strip_prefix('"') {
            let Some(end) = r.find('"') else { return err("unclosed string") };
            quoted.push(&r[..end]);
            rest = r[end + 1..].trim();
        }
        let [pat, sig] = quoted[..] else { return err("a row is \"pattern\" \"signature\"") };
        let variant = match rest.strip_prefix("as ") {
            Some(v) => Some(v.trim()),
            None if rest.is_empty() => None,
            None => return err("expected `as variant` or `;` after the signature"),
        };
        out.push(Row { line, pat, sig, variant });
    }
    Ok(out)
}

fn load() -> Result<Tables, String> {
    let mut t = Tables {
        families: vec![],
        forms: vec![],
        index: HashMap::new(),
        by_opcode: BTreeMap::new(),
        modifiers: BTreeSet::new(),
        keys: BTreeMap::new(),
        legal: BTreeMap::new(),
        by_parts: OnceLock::new(),
    };
    let mut idents: HashMap<String, String> = HashMap::new();
    for (name, source) in vocab::FAMILIES {
        let at = |line: usize, m: String| format!("macros/tables/{name}.forms:{line}: {m}");
        let mut fam = Family { name, source, forms: vec![] };
        for row in rows(source).map_err(|(l, m)| at(l, m))? {
            let e = |m: String| at(row.line, format!("row `{}`: {m}", row.pat));
            for (text, names) in notation::expand_options(row.sig).map_err(e)? {
                let variant = match (row.variant, names.is_empty()) {
                    (v, true) => v.unwrap_or("plain").to_string(),
                    (None, false) => names.join("_"),
                    (Some(_), false) => return Err(e("a row with optional items takes its variants from them, not `as`".into())),
                };
                if !vocab::VARIANTS.iter().any(|(v, _)| *v == variant) {
                    return Err(e(format!("variant `{variant}` is not declared in macros/src/vocab.rs")));
                }
                let (dst_s, src_s) = text.split_once('=').ok_or_else(|| e("the signature needs `=`".into()))?;
                for x in notation::expand_pattern(row.pat).map_err(e)? {
                    let sig = notation::Sig { x: &x };
                    let dst = sig.dst(dst_s.trim()).map_err(e)?;
                    let srcs = sig.srcs(src_s).map_err(e)?;
                    if srcs.len() > 12 {
                        return Err(e("a form takes at most 12 operands".into()));
                    }
                    let chain = x.parts.join(".");
                    for p in &x.parts[1..] {
                        if !vocab::is_dtype(p) {
                            t.modifiers.insert(p.clone());
                        }
                        let id = rust_ident(p);
                        if let Some(other) = idents.insert(id.clone(), p.clone()) {
                            if other != *p {
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
                    let form = Form { chain, parts: x.parts.clone(), variant: variant.clone(), dst, srcs };
                    let key = form.key();
                    let (op, cache, last) = key_parts(&x.parts);
                    let made_of = (op.to_string(), cache.to_string(), last.to_string());
                    if let Some(other) = t.keys.insert(key.clone(), made_of.clone()) {
                        if other != made_of {
                            return Err(e(format!(
                                "forms of `{}.{}..{}` and `{op}.{cache}..{last}` share the key `{key}`",
                                other.0, other.1, other.2
                            )));
                        }
                    }
                    t.by_opcode.entry(x.parts[0].clone()).or_default().push(i);
                    fam.forms.push(i);
                    t.forms.push(form);
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
    fn tables_load_and_keys_bound_the_impls_per_type() {
        let t = tables().unwrap();
        let mut per_key: HashMap<String, usize> = HashMap::new();
        for f in &t.forms {
            *per_key.entry(f.key()).or_default() += 1;
        }
        let max = per_key.values().max().copied().unwrap_or(0);
        println!("{} forms, {} keys, at most {max} forms per key", t.forms.len(), per_key.len());
        assert!(t.forms.len() > 9000);
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
