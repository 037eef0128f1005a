//! Measures which orders of every chain's parts ptxas accepts and writes the rules `ptx!`
//! reads, `tables/orders.tsv` (see `tables/src/orders.rs` for what a rule says).
//!
//!     cargo run --release --example order_sweep                 # writes tables/orders.tsv
//!     cargo run --release --example order_sweep -- --threads 1  # one ptxas at a time
//!     cargo run --release --example order_sweep -- --check      # compare, write nothing
//!     cargo run --release --example order_sweep -- --only tex   # some chains, printed (ORDER_SWEEP_LOG=1:
//!                                                               # every order tried), nothing written
//!
//! Run it after adding table rows (after `isa_sweep`, whose targets it reads): `tests/orders.rs`
//! fails while the file was measured over other chains.
//!
//! **Measurement.** Every distinct chain is written in other orders (the opcode stays first)
//! with the operands of its sample line (`ptxas::sample`), and ptxas parses them at a target
//! the chain has (sm_90a, sm_100a or sm_120a where it can), thousands of lines per module, one
//! ptxas process per module; the lines it blames are the orders it rejects. An order counts
//! as accepted where ptxas says of it what it says of the table order (nothing, or the same
//! advisory): a warning such as "Vector Type not specified properly" for `ld.v4.global.u32`
//! is a rejection, as the tests take warnings for failures.
//!
//! - Round 1: every order of chains of up to four parts after the opcode; for longer ones,
//!   every move of one part to another place, and a sample seeded by the chain of two moves
//!   and of shuffles.
//! - What every accepted order keeps is the chain's candidate constraints: part `a` before
//!   part `b`, and part `b` right after part `a` (glue).
//! - Refinement: for each constraint of the candidates' Hasse diagram, ptxas is asked the
//!   order nearest the table's that breaks it alone (every other candidate kept). Accepted,
//!   it goes; rejected, it stays, with that order as its witness. Likewise each glue, with a
//!   part placed between. Rounds repeat until every constraint has a witness.
//! - Chains of one opcode whose parts differ only in order (`cvt.sat.u32.s32` and
//!   `cvt.sat.s32.u32`, `wgmma` `.s8.u8` and `.u8.s8`, `mma.m8n8k4` `.row.col` and
//!   `.col.row`) are different instructions with the same operands, which ptxas cannot tell
//!   apart: the pairs of parts their orders differ in keep their table order, and an order
//!   that swaps them is the other chain's.
//!
//! **Rules.** A chain's prefix is its leading parts that each precede at least two others
//! (`wgmma.mma_async`, `mbarrier.try_wait.parity`); chains take the rule of the longest
//! prefix that begins them. A rule's ordered classes are the connected sets of the parts its
//! chains' constraints relate, and its glued parts those with a glue witness. The sweep then
//! checks that each chain's rule implies exactly its measured constraints (none missing: the
//! rule is not looser than ptxas; none extra: not stricter), and that the rule decides every
//! order tried as ptxas did. It writes nothing if a rule is looser than a measurement.
//!
//! **Figures** (ptxas 13.0.88, 53,786 forms): 1,533,609 orders of 47,210 chains in 5 rounds
//! (840,053 accepted, 421,612 warned, 271,944 rejected) give 203 rules, each implying exactly
//! its chains' measured constraints but for 309 chains, where it is stricter: ptxas takes the
//! `.v4` of `tex`/`tld4` (and of `clusterlaunchcontrol.query_cancel.get_first_ctaid`) right
//! before either of their types (`tex.1d.u32.v4.s32`), the rule only before the first. 4
//! minutes with `--threads 2` on the 2-core shared dev machine; `--all-up-to 5` tries
//! 2,631,145 orders in 7 minutes and finds the same rules.

use orders::{Orders, Rule};
use ptxkit::builder::{Target, Version};
use ptxkit::ops::{self, FormDesc};
use ptxkit::ptxas::sample::{self, Verdict};
use ptxkit::ptxas::{self, par_map, Mode};
use ptxkit_tables::orders;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

/// Orders of up to this many parts after the opcode are all tried in round 1 (`--all-up-to N`
/// changes it: 5 tries 2.6 million orders where 4 tries 1.7 million, and finds the same rules).
const ALL_UP_TO: usize = 4;
/// Round 1's sample of longer chains, besides every single move.
const SAMPLE: usize = 24;
/// Lines per ptxas module.
const BATCH: usize = 4000;
/// Targets tried first, where the chain has them.
const PREFERRED: [Target; 3] = [Target::SM_90A, Target::SM_100A, Target::SM_120A];

/// splitmix64, seeded per chain: the sample is the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// An order of a chain's parts: indices into its parts, the opcode (0) first.
type Order = Vec<u8>;

/// A refinement question: (chain, order, the constraint it breaks alone, the glue it breaks).
type Witness = (usize, Order, Option<(usize, usize)>, Option<usize>);

fn all_orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = vec![];
    for p in all_orders(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

fn moved(v: &[usize], from: usize, to: usize) -> Vec<usize> {
    let mut v = v.to_vec();
    let x = v.remove(from);
    v.insert(to, x);
    v
}

/// Round 1's orders of the `n` parts after the opcode.
fn first_orders(chain: &str, n: usize, all_up_to: usize) -> Vec<Vec<usize>> {
    if n <= all_up_to {
        return all_orders(n);
    }
    let id: Vec<usize> = (0..n).collect();
    let mut out: Vec<Vec<usize>> = (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| moved(&id, i, j)).collect();
    let mut r = Rng(orders::fingerprint([chain]).0);
    for k in 0..SAMPLE {
        if k % 3 == 2 {
            let mut v = id.clone();
            for i in (1..n).rev() {
                v.swap(i, r.below(i + 1));
            }
            out.push(v);
        } else {
            let a = moved(&id, r.below(n), r.below(n));
            out.push(moved(&a, r.below(n), r.below(n)));
        }
    }
    out
}

/// One chain under measurement; parts are indexed with the opcode at 0.
struct Chain {
    form: &'static FormDesc,
    target: Target,
    parts: Vec<&'static str>,
    /// What ptxas says of the table order.
    base: Verdict,
    /// `before[i] >> j & 1`: part `i` precedes part `j` in every accepted order.
    before: Vec<u64>,
    /// `glue >> i & 1`: part `i + 1` is right after part `i` in every accepted order.
    glue: u64,
    /// Constraints with a witness: an order ptxas rejects that breaks no other.
    witnessed: Vec<u64>,
    glue_witnessed: u64,
    /// Pairs whose order tells the chain from a sibling (same parts, another order).
    forced: Vec<(usize, usize)>,
    /// Every order tried and what ptxas said.
    log: Vec<(Order, Verdict)>,
}

fn positions(o: &[u8]) -> Vec<usize> {
    let mut pos = vec![0; o.len()];
    for (p, &i) in o.iter().enumerate() {
        pos[i as usize] = p;
    }
    pos
}

impl Chain {
    fn n(&self) -> usize {
        self.parts.len()
    }
    fn spelt(&self, o: &[u8]) -> Vec<&'static str> {
        o.iter().map(|&i| self.parts[i as usize]).collect()
    }
    fn text(&self, o: &[u8]) -> String {
        self.spelt(o).join(".")
    }
    /// Equal parts in index order, so that one spelling is one order.
    fn normal(&self, mut o: Order) -> Order {
        for a in 0..o.len() {
            for b in a + 1..o.len() {
                if self.parts[o[a] as usize] == self.parts[o[b] as usize] && o[a] > o[b] {
                    o.swap(a, b);
                }
            }
        }
        o
    }
    /// Whether the order spells a sibling (it swaps a pair that tells them apart).
    fn sibling(&self, o: &[u8]) -> bool {
        let pos = positions(o);
        self.forced.iter().any(|&(a, b)| pos[a] > pos[b])
    }
    /// Drops the constraints an accepted order breaks.
    fn accept(&mut self, o: &[u8]) {
        let pos = positions(o);
        for i in 0..self.n() {
            for j in 0..self.n() {
                if pos[i] > pos[j] {
                    self.before[i] &= !(1u64 << j);
                }
            }
            if i + 1 < self.n() && pos[i] + 1 != pos[i + 1] {
                self.glue &= !(1u64 << i);
            }
        }
    }
    fn has(&self, i: usize, j: usize) -> bool {
        self.before[i] >> j & 1 == 1
    }
    /// The constraints between parts after the opcode that no other implies.
    fn hasse(&self) -> Vec<(usize, usize)> {
        let n = self.n();
        let mut out = vec![];
        for i in 1..n {
            for j in 1..n {
                if self.has(i, j) && !(1..n).any(|m| self.has(i, m) && self.has(m, j)) {
                    out.push((i, j));
                }
            }
        }
        out
    }
    /// The order nearest the table's that keeps every constraint but `drop`, adds `extra`,
    /// and keeps every glue but `unglue`; `None` where there is none.
    fn order_with(&self, drop: Option<(usize, usize)>, extra: &[(usize, usize)], unglue: Option<usize>) -> Option<Order> {
        let n = self.n();
        // Glued parts move as one block.
        let mut block = vec![0usize; n];
        let mut blocks: Vec<Vec<usize>> = vec![];
        for (i, b) in block.iter_mut().enumerate() {
            if i > 0 && self.glue >> (i - 1) & 1 == 1 && unglue != Some(i - 1) {
                blocks.last_mut()?.push(i);
            } else {
                blocks.push(vec![i]);
            }
            *b = blocks.len() - 1;
        }
        let mut pred = vec![0u64; blocks.len()];
        let mut edges: Vec<(usize, usize)> =
            (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).filter(|&(i, j)| self.has(i, j) && Some((i, j)) != drop).collect();
        edges.extend_from_slice(extra);
        for (a, b) in edges {
            if block[a] == block[b] {
                if a > b {
                    return None; // a glued block keeps its order
                }
            } else {
                pred[block[b]] |= 1 << block[a];
            }
        }
        let mut done = 0u64;
        let mut out = vec![];
        for _ in 0..blocks.len() {
            let next = (0..blocks.len()).find(|&b| done >> b & 1 == 0 && pred[b] & !done == 0)?;
            done |= 1 << next;
            out.extend(blocks[next].iter().map(|&i| i as u8));
        }
        Some(out)
    }
}

struct Sweep {
    px: std::path::PathBuf,
    /// The newest `.version` the ptxas takes: the chains are asked about there.
    newest: Version,
    threads: usize,
    tried: usize,
    outcomes: [usize; 3],
}

impl Sweep {
    /// What ptxas says of each (chain, order).
    fn ask(&mut self, chains: &[Chain], asks: &[(usize, Order)]) -> Vec<Verdict> {
        let texts: Vec<String> = asks.iter().map(|(c, o)| chains[*c].text(o)).collect();
        let mut by_target: BTreeMap<Target, Vec<usize>> = BTreeMap::new();
        for (k, (c, _)) in asks.iter().enumerate() {
            by_target.entry(chains[*c].target).or_default().push(k);
        }
        let jobs: Vec<(Target, &[usize])> = by_target.iter().flat_map(|(t, ks)| ks.chunks(BATCH).map(move |c| (*t, c))).collect();
        let px: &Path = &self.px;
        let res = par_map(self.threads, &jobs, |(t, ks)| {
            let items: Vec<(&'static FormDesc, &str)> = ks.iter().map(|&k| (chains[asks[k].0].form, texts[k].as_str())).collect();
            sample::verdicts(px, Mode::ParseOnly, &items, *t, self.newest)
        });
        let mut out = vec![Verdict::Accepted; asks.len()];
        for ((_, ks), vs) in jobs.iter().zip(res) {
            for (&k, v) in ks.iter().zip(vs) {
                self.outcomes[match v {
                    Verdict::Accepted => 0,
                    Verdict::Warned(_) => 1,
                    Verdict::Rejected(_) => 2,
                }] += 1;
                out[k] = v;
            }
        }
        self.tried += asks.len();
        out
    }
}

fn chains_of_forms() -> Result<Vec<Chain>, String> {
    let mut seen = HashSet::new();
    let mut chains: Vec<Chain> = vec![];
    let mut unswept = vec![];
    for f in ops::all_forms() {
        if !seen.insert(f.chain) {
            continue;
        }
        let Some(req) = f.req() else {
            unswept.push(f.chain);
            continue;
        };
        let t = PREFERRED.iter().copied().find(|t| req.allows(*t)).or_else(|| Target::ALL.iter().copied().rev().find(|t| req.allows(*t)));
        let Some(target) = t else {
            unswept.push(f.chain);
            continue;
        };
        let parts: Vec<&'static str> = f.chain.split('.').collect();
        let n = parts.len();
        if n > 63 {
            return Err(format!("`{}` has more than 63 parts", f.chain));
        }
        let all = (1u64 << n) - 1;
        let before = (0..n).map(|i| all & !((1u64 << (i + 1)) - 1)).collect();
        chains.push(Chain {
            form: f,
            target,
            parts,
            base: Verdict::Accepted,
            before,
            glue: all >> 1,
            witnessed: vec![0; n],
            glue_witnessed: 0,
            forced: vec![],
            log: vec![],
        });
    }
    if !unswept.is_empty() {
        return Err(format!("no ISA data (run `cargo run --release --example isa_sweep` first) for {}", unswept.join(", ")));
    }
    // Siblings: one opcode, the same parts, another order.
    let mut groups: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
    for (k, c) in chains.iter().enumerate() {
        let mut key = c.parts.clone();
        key[1..].sort_unstable();
        groups.entry(key).or_default().push(k);
    }
    for g in groups.values().filter(|g| g.len() > 1) {
        for &a in g {
            for &b in g.iter().filter(|b| **b != a) {
                let pos = orders::positions(&chains[b].parts, &chains[a].parts).expect("same parts");
                // pos maps b's parts into a; a pair of a's parts that b has the other way round.
                let mut at_in_b = vec![0; pos.len()];
                for (ib, &ia) in pos.iter().enumerate() {
                    at_in_b[ia] = ib;
                }
                let pa = &chains[a].parts;
                let forced: Vec<(usize, usize)> = (1..pa.len())
                    .flat_map(|i| (i + 1..pa.len()).map(move |j| (i, j)))
                    .filter(|&(i, j)| pa[i] != pa[j] && at_in_b[i] > at_in_b[j])
                    .collect();
                chains[a].forced.extend(forced);
            }
        }
    }
    Ok(chains)
}

/// A chain's own prefix: the leading parts that each come before every later part, where
/// two of the later parts may come in either order. (Before parts that keep one order among
/// themselves, coming first is their order: `vadd.u32.u32.s32`'s types, an ordered class.)
fn own_prefix(c: &Chain) -> usize {
    let free = |k: usize| (k + 1..c.n()).any(|i| (i + 1..c.n()).any(|j| !c.has(i, j) && c.parts[i] != c.parts[j]));
    let mut k = 1;
    while k + 2 < c.n() && (k + 1..c.n()).all(|j| c.has(k, j)) && free(k) {
        k += 1;
    }
    k
}

/// The transitive closure of `r` over `n` parts.
fn closure(n: usize, mut r: Vec<u64>) -> Vec<u64> {
    for m in 0..n {
        for i in 0..n {
            if r[i] >> m & 1 == 1 {
                r[i] |= r[m];
            }
        }
    }
    r
}

/// Rules from the measured constraints, and how many chains each is stricter or looser for.
fn rules(chains: &[Chain]) -> (Vec<Rule>, Vec<(usize, usize)>) {
    let keys: HashSet<Vec<&str>> = chains.iter().map(|c| c.parts[..own_prefix(c)].to_vec()).collect();
    let key_of = |c: &Chain| (1..=c.n()).rev().find(|&k| keys.contains(&c.parts[..k])).expect("its own prefix is a key");
    let mut groups: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for (i, c) in chains.iter().enumerate() {
        let k = key_of(c);
        groups.entry(c.parts[..k].join(".")).or_default().push((i, k));
    }
    let mut out = vec![];
    let mut fit = vec![];
    for (prefix, members) in &groups {
        // Classes: connected sets of the parts the constraints relate.
        let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
        fn root<'a>(p: &BTreeMap<&'a str, &'a str>, mut x: &'a str) -> &'a str {
            while let Some(&y) = p.get(x).filter(|y| **y != x) {
                x = y;
            }
            x
        }
        let mut glued: Vec<&str> = vec![];
        for &(ci, k) in members {
            let c = &chains[ci];
            for i in k..c.n() {
                for j in k..c.n() {
                    if c.has(i, j) && c.parts[i] != c.parts[j] {
                        let (a, b) = (c.parts[i], c.parts[j]);
                        parent.entry(a).or_insert(a);
                        parent.entry(b).or_insert(b);
                        let (ra, rb) = (root(&parent, a), root(&parent, b));
                        if ra != rb {
                            parent.insert(ra, rb);
                        }
                    }
                }
                if i + 1 < c.n() && c.glue_witnessed >> i & 1 == 1 && !glued.contains(&c.parts[i]) {
                    glued.push(c.parts[i]);
                }
            }
        }
        let mut classes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for &t in parent.keys() {
            classes.entry(root(&parent, t)).or_default().push(t.to_string());
        }
        let mut classes: Vec<Vec<String>> = classes.into_values().collect();
        classes.sort();
        // A part also stays glued where every accepted order has a part of its class right
        // after it and a rejected one that keeps the classes' order has not (`.v4` of
        // `clusterlaunchcontrol.query_cancel...v4.b32.b128`, which ptxas takes before either
        // type): under the classes' order, that is the next part of its class.
        let class_of = |t: &str| classes.iter().position(|cl| cl.iter().any(|x| x == t));
        for &(ci, k) in members {
            let c = &chains[ci];
            let no_glue = Rule {
                prefix: c.parts[..k].iter().map(|s| s.to_string()).collect(),
                chains: 0,
                stricter: 0,
                classes: classes.clone(),
                glued: vec![],
            };
            for i in k..c.n() {
                let Some(cl) = class_of(c.parts[i]) else { continue };
                if glued.contains(&c.parts[i]) {
                    continue;
                }
                let followed = |o: &Order| {
                    let p = o.iter().position(|&x| x as usize == i).expect("every part");
                    o.get(p + 1).is_some_and(|&x| class_of(c.parts[x as usize]) == Some(cl))
                };
                let (mut always, mut witness) = (true, false);
                for (o, v) in c.log.iter().filter(|(o, _)| !c.sibling(o)) {
                    if *v == c.base {
                        always &= followed(o);
                    } else if !followed(o) && orders::check(&no_glue, &c.parts, &c.spelt(o)).is_ok() {
                        witness = true;
                    }
                }
                if always && witness {
                    glued.push(c.parts[i]);
                }
            }
        }
        glued.sort_unstable();
        glued.dedup();
        let mut rule = Rule {
            prefix: prefix.split('.').map(str::to_string).collect(),
            chains: members.len(),
            stricter: 0,
            classes,
            glued: glued.iter().map(|s| s.to_string()).collect(),
        };
        // What the rule implies for each chain, against what was measured.
        let (mut stricter, mut looser) = (0, 0);
        for &(ci, k) in members {
            let c = &chains[ci];
            let n = c.n();
            let same = |i: usize, j: usize| c.parts[i] == c.parts[j];
            let class = |t: &str| rule.classes.iter().position(|cl| cl.iter().any(|x| x == t));
            let mut r = vec![0u64; n];
            let mut m = vec![0u64; n];
            for i in 0..n {
                for j in i + 1..n {
                    let implied = i < k || same(i, j) || class(c.parts[i]).is_some_and(|x| class(c.parts[j]) == Some(x));
                    if implied {
                        r[i] |= 1 << j;
                    }
                    if c.has(i, j) || same(i, j) || i == 0 {
                        m[i] |= 1 << j;
                    }
                }
            }
            let (r, m) = (closure(n, r), closure(n, m));
            let rg: u64 = (k..n - 1).filter(|&i| rule.glued.iter().any(|g| g == c.parts[i])).fold(0, |g, i| g | 1 << i);
            let strict = (0..n).any(|i| r[i] & !m[i] != 0) || rg & !c.glue != 0;
            let loose = (0..n).any(|i| m[i] & !r[i] != 0) || c.glue_witnessed & !rg & !((1u64 << (k - 1)) - 1) != 0;
            stricter += strict as usize;
            looser += loose as usize;
            if loose {
                eprintln!("LOOSER than measured: `{}` under `{prefix}`", c.form.chain);
            }
        }
        fit.push((stricter, looser));
        rule.stricter = stricter;
        out.push(rule);
    }
    (out, fit)
}

fn main() {
    let start = Instant::now();
    let args: Vec<String> = std::env::args().collect();
    let threads: usize = match args.iter().position(|a| a == "--threads") {
        Some(i) => args.get(i + 1).and_then(|s| s.parse().ok()).expect("--threads N"),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let check_only = args.iter().any(|a| a == "--check");
    let all_up_to: usize = match args.iter().position(|a| a == "--all-up-to") {
        Some(i) => args.get(i + 1).and_then(|s| s.parse().ok()).expect("--all-up-to N"),
        None => ALL_UP_TO,
    };
    // `--only PREFIX`: measure the chains that begin with it, print what was found, write nothing.
    let only: Option<String> = args.iter().position(|a| a == "--only").map(|i| args.get(i + 1).expect("--only PREFIX").clone());
    let px = ptxas::find().expect("ptxas not found: set PTXAS or pip install nvidia-cuda-nvcc==13.0.88");
    let version = std::process::Command::new(&px).arg("--version").output().ok().and_then(|o| {
        let s = String::from_utf8_lossy(&o.stdout).into_owned();
        s.lines().find_map(|l| l.split(", V").nth(1).map(str::to_string))
    });
    let newest = ptxas::newest_version(&px).expect("a .version the ptxas takes");
    // Every chain is asked about at the newest version: a ptxas older than some chain cannot.
    if let Some(f) = ops::all_forms().find(|f| f.req().is_some_and(|r| r.version > newest)) {
        eprintln!(
            "`{}` needs ISA {}, past what this ptxas takes ({newest}): run the sweep with the newest ptxas (PTXAS=…)",
            f.chain,
            f.req().unwrap().version
        );
        std::process::exit(1);
    }
    let mut sweep = Sweep { px, newest, threads, tried: 0, outcomes: [0; 3] };
    let mut chains = chains_of_forms().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    if let Some(p) = &only {
        chains.retain(|c| c.form.chain.starts_with(p.as_str()));
    }
    eprintln!("{} chains ({} with siblings), {threads} threads", chains.len(), chains.iter().filter(|c| !c.forced.is_empty()).count());

    // Round 1.
    let mut asks: Vec<(usize, Order)> = vec![];
    for (k, c) in chains.iter().enumerate() {
        let n = c.n() - 1;
        let mut seen: HashSet<Order> = HashSet::new();
        let id: Order = (0..=n as u8).collect();
        seen.insert(id.clone());
        asks.push((k, id));
        for o in first_orders(c.form.chain, n, all_up_to) {
            let full = c.normal(std::iter::once(0).chain(o.iter().map(|&i| i as u8 + 1)).collect());
            if !c.sibling(&full) && seen.insert(full.clone()) {
                asks.push((k, full));
            }
        }
    }
    eprintln!("round 1: {} orders", asks.len());
    let vs = sweep.ask(&chains, &asks);
    for ((k, o), v) in asks.iter().zip(&vs) {
        if o.iter().enumerate().all(|(i, &x)| i == x as usize) {
            chains[*k].base = v.clone();
        }
    }
    let broken: Vec<&str> = chains.iter().filter(|c| matches!(c.base, Verdict::Rejected(_))).map(|c| c.form.chain).collect();
    if !broken.is_empty() {
        eprintln!("ptxas rejects the table order of {}", broken.join(", "));
        std::process::exit(1);
    }
    for ((k, o), v) in asks.into_iter().zip(vs) {
        let c = &mut chains[k];
        if v == c.base {
            c.accept(&o);
        }
        c.log.push((o, v));
    }
    for c in chains.iter_mut() {
        for (a, b) in c.forced.clone() {
            c.before[a] |= 1 << b;
        }
    }

    // Refinement.
    let mut rounds = 1;
    loop {
        let mut asks: Vec<Witness> = vec![];
        for (k, c) in chains.iter().enumerate() {
            for (i, j) in c.hasse() {
                if c.witnessed[i] >> j & 1 == 1 || c.forced.contains(&(i, j)) || c.parts[i] == c.parts[j] {
                    continue;
                }
                if let Some(o) = c.order_with(Some((i, j)), &[(j, i)], None) {
                    asks.push((k, c.normal(o), Some((i, j)), None));
                }
            }
            for i in 0..c.n() - 1 {
                if c.glue >> i & 1 == 0 || c.glue_witnessed >> i & 1 == 1 {
                    continue;
                }
                let between = (1..c.n()).filter(|&m| m != i && m != i + 1).find_map(|m| c.order_with(None, &[(i, m), (m, i + 1)], Some(i)));
                if let Some(o) = between {
                    asks.push((k, c.normal(o), None, Some(i)));
                }
            }
        }
        if asks.is_empty() {
            break;
        }
        rounds += 1;
        eprintln!("round {rounds}: {} orders", asks.len());
        let plain: Vec<(usize, Order)> = asks.iter().map(|(k, o, _, _)| (*k, o.clone())).collect();
        let vs = sweep.ask(&chains, &plain);
        for ((k, o, edge, glue), v) in asks.into_iter().zip(vs) {
            let c = &mut chains[k];
            if v == c.base && !c.sibling(&o) {
                c.accept(&o);
            }
            // Tested once: rejected, the witness; accepted, the constraint is gone (or, for
            // an order that still spells the chain the same, untestable).
            if let Some((i, j)) = edge {
                c.witnessed[i] |= 1 << j;
            }
            if let Some(i) = glue {
                c.glue_witnessed |= (c.glue >> i & 1) << i;
            }
            c.log.push((o, v));
        }
    }
    // An accepted witness cleared its constraint, so a witnessed one still set was rejected.
    for c in chains.iter_mut() {
        for i in 0..c.n() {
            c.witnessed[i] &= c.before[i];
        }
        c.glue_witnessed &= c.glue;
    }

    // The rules, checked against every constraint and every order tried.
    let (rules, fit) = rules(&chains);
    if only.is_some() {
        for c in &chains {
            let hasse: Vec<String> = c.hasse().iter().map(|&(i, j)| format!("{}<{}", c.parts[i], c.parts[j])).collect();
            let glue: Vec<String> = (0..c.n() - 1)
                .filter(|i| c.glue >> i & 1 == 1)
                .map(|i| format!("{}+{}{}", c.parts[i], c.parts[i + 1], if c.glue_witnessed >> i & 1 == 1 { "" } else { "?" }))
                .collect();
            eprintln!("{}: prefix {}; {}; glue {}", c.form.chain, own_prefix(c), hasse.join(" "), glue.join(" "));
            if std::env::var_os("ORDER_SWEEP_LOG").is_some() {
                for (o, v) in &c.log {
                    eprintln!("    {} {:?}", c.text(o), v);
                }
            }
        }
        for r in &rules {
            eprintln!("rule {r:?}");
        }
    }
    let (fp, count) = orders::fingerprint(chains.iter().map(|c| c.form.chain));
    let table = Orders { rules, fingerprint: fp, chains: count };
    let (mut strict, mut loose) = (0, 0);
    for c in &chains {
        for (o, v) in &c.log {
            if c.sibling(o) {
                continue;
            }
            let ok = table.check(&c.parts, &c.spelt(o)).is_ok();
            let real = *v == c.base;
            if ok && !real {
                loose += 1;
                eprintln!("LOOSER: {} ({}) is rejected: {v:?}", c.text(o), c.form.chain);
            }
            strict += (!ok && real) as usize;
        }
    }
    let stricter: usize = fit.iter().map(|f| f.0).sum();
    let looser: usize = fit.iter().map(|f| f.1).sum();
    let [acc, warned, rejected] = sweep.outcomes;
    eprintln!(
        "{} orders tried in {rounds} rounds: {acc} accepted, {warned} warned, {rejected} rejected; {} rules; \
         chains whose rule is stricter / looser than measured: {stricter} / {looser}; \
         orders tried decided otherwise than ptxas: {strict} refused, {loose} admitted",
        sweep.tried,
        table.rules.len(),
    );
    let mut head = format!(
        "# Written by `cargo run --release --example order_sweep` from ptxas {}; do not edit by hand.\n\
         # Which orders of a chain's parts ptxas accepts (tables/src/orders.rs): after the prefix, the\n\
         # parts of one ordered class keep their order, a glued part keeps the next part right after it,\n\
         # the rest go anywhere. Measured over {count} chains (every order of up to {all_up_to} parts after the\n\
         # opcode): {} orders tried, {acc} accepted, {warned} warned, {rejected} rejected.\n",
        version.as_deref().unwrap_or("(unknown version)"),
        sweep.tried,
    );
    head.push_str(&match stricter {
        0 => String::from("# Every rule implies exactly its chains' measured constraints.\n"),
        n => format!(
            "# {n} chains have a rule stricter than their measured constraints (column `stricter`): it\n\
             # refuses some orders ptxas takes.\n"
        ),
    });
    let text = table.write(&head);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tables/orders.tsv");
    if looser > 0 || loose > 0 {
        eprintln!("a rule admits an order ptxas rejects: {} not written", path.display());
        std::process::exit(1);
    }
    if stricter > 0 {
        eprintln!("note: {stricter} chain(s) with a rule stricter than their measured constraints");
    }
    if check_only || only.is_some() {
        let same = std::fs::read_to_string(&path).is_ok_and(|old| old == text);
        eprintln!("{} {} ({:.1?})", path.display(), if same { "is current" } else { "differs" }, start.elapsed());
        std::process::exit(if same { 0 } else { 1 });
    }
    std::fs::write(&path, text).expect("write orders.tsv");
    eprintln!("wrote {} in {:.1?}", path.display(), start.elapsed());
}
