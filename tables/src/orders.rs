//! Which orders of a chain's parts ptxas accepts, as rules read from
//! `tables/orders.tsv` (written by `cargo run --release --example order_sweep`, which
//! measures them with ptxas). `ptx!` maps every accepted order of a chain onto its table form;
//! the sweep and the tests check the same rules against ptxas.
//!
//! A rule covers the chains that begin with its prefix (the longest prefix that has a rule):
//!
//! - the prefix's parts stay first, in order (`wgmma.mma_async`, `cp.async.bulk.tensor`);
//! - the parts of one ordered class keep their table order among themselves (the data types
//!   of `cvt`, `.row`/`.col` of `mma`, the two state spaces of `cp.async.bulk`);
//! - a glued part keeps the part after it right after it (`.v4.u32` of `ld`);
//! - every other part goes anywhere after the prefix.
//!
//! A chain no rule covers is written in its table order only. Equal parts (`.bf16.bf16`) are
//! matched in order. Where ptxas's own rule is finer than these (it takes the `.v4` of `tex`
//! before either of two types), the rule is stricter, and its row says for how many chains. The module uses `std` alone: the sweep and the tests include it by path.

/// One line of `orders.tsv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// The chain prefix, opcode first: `["cp", "async", "bulk", "tensor"]`.
    pub prefix: Vec<String>,
    /// How many distinct chains the rule covered when it was measured.
    pub chains: usize,
    /// For how many of them the rule is stricter than the measured constraints: it refuses
    /// some orders ptxas takes (a compile error, never a wrong instruction).
    pub stricter: usize,
    /// Sets of parts that keep their relative order.
    pub classes: Vec<Vec<String>>,
    /// Parts whose next part stays right after them.
    pub glued: Vec<String>,
}

/// The rules and what they were measured over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Orders {
    pub rules: Vec<Rule>,
    /// [`fingerprint`] of the chains the rules were measured over.
    pub fingerprint: u64,
    /// How many distinct chains that was.
    pub chains: usize,
}

/// Why an order is not one ptxas accepts for a chain.
#[derive(Clone, Debug, PartialEq)]
pub enum Broken {
    /// No rule covers the chain: only its table order is accepted.
    NoRule,
    /// The chain must begin with this prefix.
    Prefix(String),
    /// The first part must come before the second.
    Order(String, String),
    /// The second part must come right after the first.
    Glue(String, String),
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Broken::NoRule => write!(f, "its parts are written in one order only"),
            Broken::Prefix(p) => write!(f, "it begins with `{p}`"),
            Broken::Order(a, b) => write!(f, "`.{a}` comes before `.{b}`"),
            Broken::Glue(a, b) => write!(f, "`.{b}` comes right after `.{a}`"),
        }
    }
}

/// FNV-1a over the distinct chains, sorted: what the rules were measured over.
pub fn fingerprint<'a>(chains: impl IntoIterator<Item = &'a str>) -> (u64, usize) {
    let mut v: Vec<&str> = chains.into_iter().collect();
    v.sort_unstable();
    v.dedup();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for c in &v {
        for b in c.bytes().chain([b'\n']) {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    (h, v.len())
}

impl Orders {
    /// Reads `orders.tsv`: `# fingerprint HEX CHAINS` and rows
    /// `prefix <TAB> chains <TAB> stricter <TAB> class | class ... <TAB> glued parts`.
    pub fn parse(text: &str) -> Result<Orders, String> {
        let mut o = Orders::default();
        for (n, line) in text.lines().enumerate() {
            let err = |m: &str| format!("orders.tsv:{}: {m}", n + 1);
            if let Some(rest) = line.strip_prefix("# fingerprint ") {
                let mut w = rest.split_whitespace();
                o.fingerprint = w.next().and_then(|h| u64::from_str_radix(h, 16).ok()).ok_or_else(|| err("bad fingerprint"))?;
                o.chains = w.next().and_then(|c| c.parse().ok()).ok_or_else(|| err("bad chain count"))?;
                continue;
            }
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let [prefix, chains, stricter, classes, glued] = f[..] else {
                return Err(err("a row is prefix, chains, stricter, classes, glued"));
            };
            let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
            o.rules.push(Rule {
                prefix: prefix.split('.').map(str::to_string).collect(),
                chains: chains.parse().map_err(|_| err("bad chain count"))?,
                stricter: stricter.parse().map_err(|_| err("bad stricter count"))?,
                classes: classes.split('|').map(words).filter(|c| !c.is_empty()).collect(),
                glued: words(glued),
            });
        }
        Ok(o)
    }

    /// The text of `orders.tsv`, `head` being its comment lines.
    pub fn write(&self, head: &str) -> String {
        let mut s = String::from(head);
        s.push_str(&format!("# fingerprint {:016x} {}\n", self.fingerprint, self.chains));
        s.push_str("# prefix\tchains\tstricter\tordered classes\tglued\n");
        for r in &self.rules {
            let classes: Vec<String> = r.classes.iter().map(|c| c.join(" ")).collect();
            let p = r.prefix.join(".");
            s.push_str(&format!("{p}\t{}\t{}\t{}\t{}\n", r.chains, r.stricter, classes.join(" | "), r.glued.join(" ")));
        }
        s
    }

    /// The rule of a chain (its parts in table order): the one with the longest prefix.
    pub fn rule_for<S: AsRef<str>>(&self, chain: &[S]) -> Option<&Rule> {
        self.rules
            .iter()
            .filter(|r| r.prefix.len() <= chain.len() && r.prefix.iter().zip(chain).all(|(a, b)| a == b.as_ref()))
            .max_by_key(|r| r.prefix.len())
    }

    /// Whether `spelt` (the parts of `chain` in some order, opcode first) is an order ptxas
    /// accepts for `chain` (its parts in table order).
    pub fn check<S: AsRef<str>, T: AsRef<str>>(&self, chain: &[S], spelt: &[T]) -> Result<(), Broken> {
        let same = chain.len() == spelt.len() && chain.iter().zip(spelt).all(|(a, b)| a.as_ref() == b.as_ref());
        if same {
            return Ok(());
        }
        let Some(rule) = self.rule_for(chain) else { return Err(Broken::NoRule) };
        check(rule, chain, spelt)
    }
}

/// Where each part of `chain` stands in `spelt`, equal parts matched in order; `None` if
/// `spelt` is not a reordering of `chain`.
pub fn positions<S: AsRef<str>, T: AsRef<str>>(chain: &[S], spelt: &[T]) -> Option<Vec<usize>> {
    if chain.len() != spelt.len() {
        return None;
    }
    let mut pos = vec![usize::MAX; chain.len()];
    for (p, part) in spelt.iter().enumerate() {
        let i = (0..chain.len()).find(|&i| pos[i] == usize::MAX && chain[i].as_ref() == part.as_ref())?;
        pos[i] = p;
    }
    Some(pos)
}

/// [`Orders::check`] under one rule.
pub fn check<S: AsRef<str>, T: AsRef<str>>(rule: &Rule, chain: &[S], spelt: &[T]) -> Result<(), Broken> {
    let s = |i: usize| chain[i].as_ref().to_string();
    let k = rule.prefix.len();
    let pos = positions(chain, spelt).ok_or(Broken::NoRule)?;
    if (0..k).any(|i| pos[i] != i) {
        return Err(Broken::Prefix(rule.prefix.join(".")));
    }
    let class = |t: &str| rule.classes.iter().position(|c| c.iter().any(|x| x == t));
    for i in k..chain.len() {
        let Some(ci) = class(chain[i].as_ref()) else { continue };
        for j in i + 1..chain.len() {
            if pos[i] > pos[j] && class(chain[j].as_ref()) == Some(ci) {
                return Err(Broken::Order(s(i), s(j)));
            }
        }
    }
    for i in k..chain.len().saturating_sub(1) {
        if rule.glued.iter().any(|g| g == chain[i].as_ref()) && pos[i + 1] != pos[i] + 1 {
            return Err(Broken::Glue(s(i), s(i + 1)));
        }
    }
    Ok(())
}
