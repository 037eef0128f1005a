//! The row notation: a pattern that expands to chains, and a signature read once per chain.
//!
//! Pattern: the opcode, then parts. A part is literal text and choices: `.rn`,
//! `.<rnd>` (a member of a named set), `.<T:int>` (a member bound to `T`), `.<a|b>`
//! (an inline list), `.m64n<N:8..256/8>k16` (a number bound inside a token; `a..b/s` is
//! inclusive, step `s`), `.x<N:1|2|4>`, `.v<L:4>` (a variable bound to a single value),
//! `.<A>` (the value bound to `A` earlier in the row).
//! `{...|...}` is an optional group of alternatives, `(...|...)` a required one.
//!
//! Signature: `dsts = srcs`, where `<name:item>` marks an optional item: the row stands
//! for the forms with and without each, and the names of those present make the variant
//! (`<offset:{s32*2}>` and `<depth:f32>` give `plain`, `offset`, `depth`, `offset_depth`).
//! A dst is `-` (none), `_` (the sink), a type, `X|Y` (a grouped pair), a braced vector
//! `{T*EXPR}` (`EXPR` is integer arithmetic over bound numbers: `{f32*N/2}`), `V(T)` (a
//! vector whose length `V` is bound to `v2`/`v4`), `+` before a vector for a tied
//! accumulator (read and written in place), and `{T*N}|pred` (a vector and a predicate).
//! Several dsts are separated by commas. A src is a type, a vector, `[T]` (an address of
//! `T` in the chain's state space; `[]` any element), `[T@space]` or `[@space]` (an address
//! in a named or bound space; `[tmem]` a tensor-memory address), `[tmap, {s32*R}]` (a
//! tensor map and its coordinates), `[tex, {C*2}]`, `[tex, smp, {u32, C*2, _}]`,
//! `[surf, {s32*2}]`, `[tex]`, `[smp]`, `[surf]` (opaque handles and their coordinates: a
//! list of types, `T*EXPR` runs, and `_` for an ignored element, a zero of the type before
//! it; texture and surface lists are 1, 2 or 4 long), a braced list of that kind alone
//! (`{s32*3, _}`), `imm(T)` (an immediate only), `imm(T: 0|1)` / `imm(u32: 24..256/8)` (an
//! immediate from a set of legal values), `label`, or `tlist` (a `.branchtargets` list).
//! Types are data-type tokens or variables bound in the pattern.
//!
//! Registers of the video instructions: a src `T{.<sel>}` takes an optional part selector
//! from a named selector set (`vocab::SELECTORS`), `reg(T)` is a register only, a leading
//! `-` negates either (`-T`, `-T{.<sel>}`: the form prints the sign); a dst `T.<mask>` is a
//! register with a required selector, and `_|T` a pair whose first destination is dropped.

use crate::vocab;

#[derive(Clone, Debug)]
enum Piece {
    Lit(String),
    Choice(Option<String>, Vec<String>),
    Ref(String),
}

#[derive(Clone, Debug)]
enum Elem {
    Part(Vec<Piece>),
    Group(bool, Vec<Vec<Elem>>),
}

/// One chain a pattern expands to, with the values its variables took.
#[derive(Clone, Debug)]
pub struct Expansion {
    pub parts: Vec<String>,
    pub binds: Vec<(String, String)>,
}

impl Expansion {
    fn get(&self, name: &str) -> Option<&str> {
        self.binds.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b':'
}

/// The values of a set written inline: `a|b`, `8,16,48..256/16`, `1..5`.
fn inline_values(set: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for item in set.split(['|', ',']) {
        let item = item.trim();
        if let Some((a, rest)) = item.split_once("..") {
            let (b, step) = rest.split_once('/').unwrap_or((rest, "1"));
            let num = |t: &str| t.trim().parse::<i64>().map_err(|_| format!("bad number `{t}` in range `{item}`"));
            let (a, b, step) = (num(a)?, num(b)?, num(step)?);
            if step <= 0 || b < a {
                return Err(format!("empty range `{item}`"));
            }
            let mut v = a;
            while v <= b {
                out.push(v.to_string());
                v += step;
            }
        } else if item.is_empty() {
            return Err(format!("empty member in `<{set}>`"));
        } else {
            out.push(item.to_string());
        }
    }
    Ok(out)
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn choice(&mut self) -> Result<Piece, String> {
        self.i += 1; // `<`
        let st = self.i;
        while self.peek().is_some_and(|c| c != b'>') {
            self.i += 1;
        }
        if self.peek() != Some(b'>') {
            return Err("unclosed `<`".into());
        }
        let body = String::from_utf8_lossy(&self.s[st..self.i]).into_owned();
        self.i += 1;
        let (var, set) = match body.split_once(':') {
            Some((v, s)) if !v.is_empty() && !s.starts_with(':') && v.chars().all(|c| c.is_ascii_alphanumeric()) => {
                (Some(v.to_string()), s.to_string())
            }
            _ => (None, body.clone()),
        };
        if let Some(members) = vocab::set(&set) {
            return Ok(Piece::Choice(var, members.iter().map(|s| s.to_string()).collect()));
        }
        if set.contains(['|', ',']) || set.contains("..") {
            return Ok(Piece::Choice(var, inline_values(&set)?));
        }
        if var.is_none() && set.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Ok(Piece::Ref(set));
        }
        if var.is_some() && !set.is_empty() && set.bytes().all(is_word) {
            // `<L:4>`, `<T:f16x2>`: a variable bound to a single value.
            return Ok(Piece::Choice(var, vec![set]));
        }
        Err(format!("unknown set `{set}`"))
    }
    fn part(&mut self) -> Result<Vec<Piece>, String> {
        let mut pieces = Vec::new();
        loop {
            match self.peek() {
                Some(b'<') => pieces.push(self.choice()?),
                Some(c) if is_word(c) => {
                    let st = self.i;
                    while self.peek().is_some_and(is_word) {
                        self.i += 1;
                    }
                    pieces.push(Piece::Lit(String::from_utf8_lossy(&self.s[st..self.i]).into_owned()));
                }
                _ => break,
            }
        }
        if pieces.is_empty() {
            return Err("empty part".into());
        }
        Ok(pieces)
    }
    fn seq(&mut self) -> Result<Vec<Elem>, String> {
        let mut out = vec![];
        loop {
            match self.peek() {
                None | Some(b'|') | Some(b'}') | Some(b')') => return Ok(out),
                Some(b'.') => {
                    self.i += 1;
                    out.push(Elem::Part(self.part()?));
                }
                Some(c @ (b'{' | b'(')) => {
                    self.i += 1;
                    let close = if c == b'{' { b'}' } else { b')' };
                    let mut alts = vec![self.seq()?];
                    while self.peek() == Some(b'|') {
                        self.i += 1;
                        alts.push(self.seq()?);
                    }
                    if self.peek() != Some(close) {
                        return Err("unclosed group".into());
                    }
                    self.i += 1;
                    out.push(Elem::Group(c == b'{', alts));
                }
                Some(c) => return Err(format!("unexpected `{}`", c as char)),
            }
        }
    }
}

fn expand_part(pieces: &[Piece], base: &Expansion) -> Result<Vec<Expansion>, String> {
    let mut acc: Vec<(String, Vec<(String, String)>)> = vec![(String::new(), base.binds.clone())];
    for p in pieces {
        let mut next = Vec::new();
        for (text, binds) in &acc {
            match p {
                Piece::Lit(w) => next.push((format!("{text}{w}"), binds.clone())),
                Piece::Ref(name) => {
                    let cur = Expansion { parts: vec![], binds: binds.clone() };
                    let v = cur.get(name).ok_or(format!("`<{name}>` refers to no variable bound before it"))?;
                    next.push((format!("{text}{v}"), binds.clone()));
                }
                Piece::Choice(var, members) => {
                    for m in members {
                        let mut b = binds.clone();
                        if let Some(v) = var {
                            b.push((v.clone(), m.clone()));
                        }
                        next.push((format!("{text}{m}"), b));
                    }
                }
            }
        }
        acc = next;
    }
    Ok(acc
        .into_iter()
        .map(|(t, binds)| {
            let mut parts = base.parts.clone();
            parts.push(t);
            Expansion { parts, binds }
        })
        .collect())
}

fn expand_seq(seq: &[Elem], start: Vec<Expansion>) -> Result<Vec<Expansion>, String> {
    let mut acc = start;
    for e in seq {
        let mut next = Vec::new();
        for x in &acc {
            match e {
                Elem::Part(pieces) => next.extend(expand_part(pieces, x)?),
                Elem::Group(optional, alts) => {
                    if *optional {
                        next.push(x.clone());
                    }
                    for a in alts {
                        next.extend(expand_seq(a, vec![x.clone()])?);
                    }
                }
            }
        }
        acc = next;
    }
    Ok(acc)
}

/// Every chain of a pattern, with its bindings.
pub fn expand_pattern(pat: &str) -> Result<Vec<Expansion>, String> {
    let mut p = Parser { s: pat.as_bytes(), i: 0 };
    let st = p.i;
    while p.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
        p.i += 1;
    }
    let opcode = pat[st..p.i].to_string();
    if opcode.is_empty() {
        return Err("the pattern must start with an opcode".into());
    }
    let seq = p.seq()?;
    if p.i != pat.len() {
        return Err(format!("unexpected `{}`", &pat[p.i..]));
    }
    expand_seq(&seq, vec![Expansion { parts: vec![opcode], binds: vec![] }])
}

/// The signatures a row's optional items stand for: each `<name:item>` is present or
/// absent, so a signature with `k` of them is `2^k` forms, each with the names of the
/// items it has (those of the sources first, then those of the destinations, each in
/// signature order), which make its variant (`sampler_offset`). An absent item leaves an
/// empty operand, which the operand split drops.
pub fn expand_options(sig: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let eq = sig.find('=').unwrap_or(sig.len());
    let mut opts = vec![];
    let mut i = 0;
    while let Some(open) = sig[i..].find('<').map(|o| o + i) {
        let close = sig[open..].find('>').map(|c| c + open).ok_or(format!("`{sig}`: unclosed `<` of an optional item"))?;
        // `.<set>` is a part-selector set of a video register (`A{.<sel>}`, `D.<bmask>`).
        if open > 0 && sig.as_bytes()[open - 1] == b'.' {
            i = close + 1;
            continue;
        }
        let (name, body) = sig[open + 1..close].split_once(':').ok_or(format!("`{sig}`: an optional item is written <name:item>"))?;
        if name.is_empty() || !name.bytes().all(|c| c.is_ascii_lowercase() || c == b'_') || body.contains('<') {
            return Err(format!("`{sig}`: an optional item is written <name:item>, the name in lower case"));
        }
        opts.push((open, close + 1, name.to_string(), body.to_string(), open < eq));
        i = close + 1;
    }
    if opts.len() > 6 {
        return Err(format!("`{sig}`: more than 6 optional items"));
    }
    let mut out = vec![];
    for mask in 0..1u32 << opts.len() {
        let (mut text, mut at) = (String::new(), 0);
        for (j, (st, end, _, body, _)) in opts.iter().enumerate() {
            text.push_str(&sig[at..*st]);
            if mask >> j & 1 == 1 {
                text.push_str(body);
            }
            at = *end;
        }
        text.push_str(&sig[at..]);
        let on = |dst: bool| opts.iter().enumerate().filter(move |(j, o)| mask >> j & 1 == 1 && o.4 == dst).map(|(_, o)| o.2.clone());
        let names = on(false).chain(on(true)).collect();
        out.push((text, names));
    }
    Ok(out)
}

/// A destination.
#[derive(Clone, Debug, PartialEq)]
pub enum Dst {
    None,
    Sink,
    Val(String),
    Pair(String, String),
    Vec(String, u32),
    /// A vector read and written in place.
    Tied(String, u32),
    /// `{T*N}|pred`: a vector and a predicate.
    VecPred(String, u32),
    Multi(Vec<Dst>),
    /// A register with a part selector from the named set: `T.<mask>`.
    Part(String, String),
    /// `_|T`
    SinkPair(String),
}

/// One element of a coordinate list: its type, and whether it is an ignored element
/// (`_`, a zero of the type before it).
pub type Coord = (String, bool);

/// A source operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Src {
    Val(String),
    /// State space (`None`: generic) and element type (`None`: any).
    Addr(Option<String>, Option<String>),
    Vec(String, u32),
    Imm(String),
    /// Type, legal values, and the set's name.
    ImmIn(String, Vec<i64>, String),
    Label,
    /// The label of a `.branchtargets` list (`brx.idx`'s `tlist`).
    Targets,
    /// A register (no immediate unless the set is `sel`): type, optional selector set,
    /// negated.
    Part(String, Option<String>, bool),
    /// `[h0, .., {coords}]`: handle names (`tmap`, `tex`, `smp`, `surf`) and coordinates
    /// (none for `[tex]`).
    HandleAddr(Vec<String>, Vec<Coord>),
    /// A braced list with elements of several types or ignored ones: `{s32*3, _}`.
    Coords(Vec<Coord>),
}

/// The handle lists a `[..]` operand can start with.
pub const HANDLE_LISTS: &[&[&str]] = &[&["tmap"], &["tex"], &["tex", "smp"], &["smp"], &["surf"]];

/// Splits on commas outside brackets, braces and parentheses.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut st, mut out) = (0i32, 0, vec![]);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[st..i].trim());
                st = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[st..].trim());
    out.retain(|x| !x.is_empty());
    out
}

/// Integer arithmetic over bound numbers: `+ - * /` and parentheses.
struct Expr<'a> {
    s: &'a [u8],
    i: usize,
    x: &'a Expansion,
}

impl Expr<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i) == Some(&b' ') {
            self.i += 1;
        }
    }
    fn atom(&mut self) -> Result<i64, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'(') => {
                self.i += 1;
                let v = self.sum()?;
                self.ws();
                if self.s.get(self.i) != Some(&b')') {
                    return Err("unclosed `(` in a length".into());
                }
                self.i += 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_alphanumeric() => {
                let st = self.i;
                while self.s.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric()) {
                    self.i += 1;
                }
                let w = std::str::from_utf8(&self.s[st..self.i]).unwrap_or_default();
                let v = if w.starts_with(|c: char| c.is_ascii_digit()) { w } else { self.x.get(w).ok_or(format!("`{w}` is not bound"))? };
                v.parse().map_err(|_| format!("`{w}` = `{v}` is not a number"))
            }
            _ => Err("a length expression is malformed".into()),
        }
    }
    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.atom()?;
        loop {
            self.ws();
            match self.s.get(self.i) {
                Some(b'*') => {
                    self.i += 1;
                    v *= self.atom()?;
                }
                Some(b'/') => {
                    self.i += 1;
                    let d = self.atom()?;
                    if d == 0 || v % d != 0 {
                        return Err(format!("{v}/{d} is not a whole number"));
                    }
                    v /= d;
                }
                _ => return Ok(v),
            }
        }
    }
    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        loop {
            self.ws();
            match self.s.get(self.i) {
                Some(b'+') => {
                    self.i += 1;
                    v += self.product()?;
                }
                Some(b'-') => {
                    self.i += 1;
                    v -= self.product()?;
                }
                _ => return Ok(v),
            }
        }
    }
}

fn eval(e: &str, x: &Expansion) -> Result<u32, String> {
    let mut p = Expr { s: e.as_bytes(), i: 0, x };
    let v = p.sum()?;
    p.ws();
    if p.i != e.len() {
        return Err(format!("unexpected `{}` in a length", &e[p.i..]));
    }
    u32::try_from(v).ok().filter(|v| (1..=1024).contains(v)).ok_or(format!("vector length {v} is out of range"))
}

/// Reads a signature for one expansion of its row.
pub struct Sig<'a> {
    pub x: &'a Expansion,
}

impl Sig<'_> {
    fn dtype(&self, name: &str) -> Result<String, String> {
        let v = self.x.get(name).unwrap_or(name);
        if vocab::is_dtype(v) {
            Ok(v.to_string())
        } else {
            Err(format!("`{name}` is neither a data type nor a variable bound to one"))
        }
    }
    /// `{T*EXPR}` or `V(T)`.
    fn vector(&self, s: &str) -> Result<Option<(String, u32)>, String> {
        if s.starts_with('{') {
            let items = self.coords(s)?;
            let t = items[0].0.clone();
            if items.iter().any(|(u, pad)| *pad || *u != t) {
                return Err(format!("`{s}`: a vector here has elements of one type and no ignored ones"));
            }
            return Ok(Some((t, items.len() as u32)));
        }
        let Some((v, rest)) = s.split_once('(') else { return Ok(None) };
        let t = rest.strip_suffix(')').ok_or("unclosed `(`")?;
        let n = match self.x.get(v).unwrap_or(v) {
            "v2" => 2,
            "v4" => 4,
            "v8" => 8,
            o => return Err(format!("`{o}` is not a vector width")),
        };
        Ok(Some((self.dtype(t)?, n)))
    }
    /// `{T*EXPR, U, _, ..}`: a braced list of items, each a type, a type times a length, or
    /// `_` (an ignored element of the type before it; only after the last value).
    fn coords(&self, s: &str) -> Result<Vec<Coord>, String> {
        let inner = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')).ok_or(format!("`{s}`: a vector is written {{type*length}}"))?;
        let mut out: Vec<Coord> = Vec::new();
        for item in split_top(inner) {
            if item == "_" {
                let t = out.last().map(|(t, _)| t.clone()).ok_or(format!("`{s}`: `_` repeats the type of an element before it"))?;
                out.push((t, true));
                continue;
            }
            if out.last().is_some_and(|(_, pad)| *pad) {
                return Err(format!("`{s}`: ignored elements (`_`) come last"));
            }
            let (t, n) = match item.split_once('*') {
                Some((t, n)) => (self.dtype(t.trim())?, eval(n.trim(), self.x)?),
                None => (self.dtype(item)?, 1),
            };
            out.extend((0..n).map(|_| (t.clone(), false)));
        }
        if out.is_empty() {
            return Err(format!("`{s}`: an empty vector"));
        }
        Ok(out)
    }
    /// `[h0, .., {coords}]` after its handle names.
    fn handle_addr(&self, s: &str, items: &[&str]) -> Result<Src, String> {
        let n = items.iter().position(|i| i.starts_with('{')).unwrap_or(items.len());
        let handles: Vec<String> = items[..n].iter().map(|h| h.to_string()).collect();
        if !HANDLE_LISTS.iter().any(|l| *l == handles.iter().map(String::as_str).collect::<Vec<_>>()) {
            return Err(format!("`{s}`: the handles of a [..] operand are one of tmap; tex; tex, smp; smp; surf"));
        }
        let coords = match &items[n..] {
            [] => vec![],
            [c] => self.coords(c)?,
            _ => return Err(format!("`{s}`: one coordinate vector, last")),
        };
        if handles[0] == "tmap" {
            if coords.is_empty() || coords.iter().any(|(t, pad)| *pad || t != "s32") {
                return Err(format!("`{s}`: a tensor map takes s32 coordinates: write [tmap, {{s32*R}}]"));
            }
        } else if !coords.is_empty() && ![1, 2, 4].contains(&coords.len()) {
            return Err(format!("`{s}`: texture and surface coordinates are 1, 2 or 4 long: pad with `_`"));
        }
        Ok(Src::HandleAddr(handles, coords))
    }
    fn space(&self, s: &str) -> Result<String, String> {
        let v = self.x.get(s).unwrap_or(s);
        if vocab::SPACES.contains(&v) {
            Ok(v.to_string())
        } else {
            Err(format!("`{s}` is not a state space"))
        }
    }
    fn chain_space(&self) -> Option<String> {
        self.x.parts[1..].iter().find_map(|p| {
            let p = vocab::SPACE_ALIASES.iter().find(|(a, _)| a == p).map_or(p.as_str(), |(_, s)| s);
            (vocab::SPACES.contains(&p) && p != "tmem").then(|| p.to_string())
        })
    }

    pub fn dst(&self, s: &str) -> Result<Dst, String> {
        let items = split_top(s);
        if items.len() > 1 {
            return Ok(Dst::Multi(items.iter().map(|d| self.one_dst(d)).collect::<Result<_, _>>()?));
        }
        self.one_dst(s.trim())
    }
    fn one_dst(&self, s: &str) -> Result<Dst, String> {
        match s {
            "-" => return Ok(Dst::None),
            "_" => return Ok(Dst::Sink),
            _ => {}
        }
        if let Some(t) = s.strip_prefix("_|") {
            return Ok(Dst::SinkPair(self.dtype(t.trim())?));
        }
        if let Some((t, set)) = s.split_once(".<") {
            let set = set.strip_suffix('>').ok_or(format!("`{s}`: a selector set is written T.<set>"))?;
            return Ok(Dst::Part(self.dtype(t)?, selector_set(set)?));
        }
        if let Some(v) = s.strip_prefix('+') {
            let (t, n) = self.vector(v)?.ok_or(format!("`{s}`: only a vector can be a tied accumulator"))?;
            return Ok(Dst::Tied(t, n));
        }
        if let Some((a, b)) = s.split_once('|') {
            if let Some((t, n)) = self.vector(a)? {
                if b != "pred" {
                    return Err(format!("`{s}`: a vector's second destination is a predicate"));
                }
                return Ok(Dst::VecPred(t, n));
            }
            return Ok(Dst::Pair(self.dtype(a)?, self.dtype(b)?));
        }
        if let Some((t, n)) = self.vector(s)? {
            return Ok(Dst::Vec(t, n));
        }
        Ok(Dst::Val(self.dtype(s)?))
    }

    pub fn srcs(&self, s: &str) -> Result<Vec<Src>, String> {
        split_top(s).iter().map(|x| self.src(x)).collect()
    }
    fn src(&self, s: &str) -> Result<Src, String> {
        if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let inner = inner.trim();
            let items = split_top(inner);
            if items.first().is_some_and(|first| HANDLE_LISTS.iter().any(|l| l[0] == *first)) {
                return self.handle_addr(s, &items);
            }
            if inner == "tmem" {
                return Ok(Src::Addr(Some("tmem".into()), None));
            }
            let (elem, space) = match inner.split_once('@') {
                Some((e, sp)) => (e.trim(), Some(self.space(sp.trim())?)),
                None => (inner, self.chain_space()),
            };
            let elem = if elem.is_empty() { None } else { Some(self.dtype(elem)?) };
            return Ok(Src::Addr(space, elem));
        }
        if s == "label" {
            return Ok(Src::Label);
        }
        if s == "tlist" {
            return Ok(Src::Targets);
        }
        if let Some(t) = s.strip_prefix("reg(").and_then(|r| r.strip_suffix(')')) {
            return Ok(Src::Part(self.dtype(t.trim())?, None, false));
        }
        let (neg, body) = match s.strip_prefix('-') {
            Some(b) => (true, b.trim()),
            None => (false, s),
        };
        if let Some((t, set)) = body.split_once("{.<") {
            let set = set.strip_suffix(">}").ok_or(format!("`{s}`: an optional selector is written T{{.<set>}}"))?;
            return Ok(Src::Part(self.dtype(t)?, Some(selector_set(set)?), neg));
        }
        if neg {
            return Ok(Src::Part(self.dtype(body)?, None, true));
        }
        if let Some(inner) = s.strip_prefix("imm(").and_then(|r| r.strip_suffix(')')) {
            return match inner.split_once(':') {
                None => Ok(Src::Imm(self.dtype(inner.trim())?)),
                Some((t, set)) => {
                    let set = set.trim();
                    let vals: Vec<i64> = inline_values(set)?
                        .iter()
                        .map(|v| v.parse().map_err(|_| format!("`{v}` is not an integer")))
                        .collect::<Result<_, _>>()?;
                    let name = legal_name(set);
                    Ok(Src::ImmIn(self.dtype(t.trim())?, vals, name))
                }
            };
        }
        if s.starts_with('{') {
            let items = self.coords(s)?;
            let t = &items[0].0;
            if items.iter().all(|(u, pad)| !*pad && u == t) {
                return Ok(Src::Vec(t.clone(), items.len() as u32));
            }
            return Ok(Src::Coords(items));
        }
        if let Some((t, n)) = self.vector(s)? {
            return Ok(Src::Vec(t, n));
        }
        Ok(Src::Val(self.dtype(s)?))
    }
}

/// A selector set's name, checked against `vocab::SELECTORS`.
fn selector_set(name: &str) -> Result<String, String> {
    match vocab::SELECTORS.iter().find(|(n, _)| *n == name) {
        Some(_) => Ok(name.to_string()),
        None => Err(format!("unknown selector set `<{name}>` (tables/src/vocab.rs lists them)")),
    }
}

/// The Rust name of a legal-value set: `-1|1` -> `Lm1or1`, `24..256/8` -> `L24to256by8`.
pub fn legal_name(set: &str) -> String {
    let mut n = String::from("L");
    for c in set.replace("..", "~").chars() {
        match c {
            '-' => n.push('m'),
            '|' | ',' => n.push_str("or"),
            '~' => n.push_str("to"),
            '/' => n.push_str("by"),
            ' ' => {}
            c => n.push(c),
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig_of(pat: &str) -> Expansion {
        expand_pattern(pat).unwrap().remove(0)
    }

    #[test]
    fn optional_items_make_variants() {
        let v = expand_options("{f32*4}<resident:|pred> = [tex, <sampler:smp>, {f32*2}], <offset:{s32*2}>").unwrap();
        let named: Vec<(String, String)> = v.iter().map(|(s, n)| (s.clone(), n.join("_"))).collect();
        assert_eq!(named.len(), 8);
        assert!(named.contains(&("{f32*4} = [tex, , {f32*2}], ".into(), "".into())));
        assert!(named.contains(&("{f32*4}|pred = [tex, smp, {f32*2}], {s32*2}".into(), "sampler_offset_resident".into())));
        assert!(named.contains(&("{f32*4}|pred = [tex, , {f32*2}], ".into(), "resident".into())));
        assert!(expand_options("f32 = <Bad:f32>").is_err());
        assert!(expand_options("f32 = <x:f32").is_err());
        assert!(expand_options("f32 = <x f32>").is_err());
    }

    #[test]
    fn handle_operands_and_coordinate_lists() {
        let x = sig_of("tex.<C:f32>");
        let s = Sig { x: &x };
        let srcs = s.srcs("[tex, , {u32, C*2, _}], {s32*3, _}, {f32*2}").unwrap();
        let f = |t: &str, pad| (t.to_string(), pad);
        assert_eq!(srcs[0], Src::HandleAddr(vec!["tex".into()], vec![f("u32", false), f("f32", false), f("f32", false), f("f32", true)]));
        assert_eq!(srcs[1], Src::Coords(vec![f("s32", false), f("s32", false), f("s32", false), f("s32", true)]));
        assert_eq!(srcs[2], Src::Vec("f32".into(), 2));
        assert_eq!(s.srcs("[smp]").unwrap()[0], Src::HandleAddr(vec!["smp".into()], vec![]));
        assert_eq!(s.srcs("[tmap, {s32*3}]").unwrap()[0], Src::HandleAddr(vec!["tmap".into()], vec![f("s32", false); 3]));
        assert_eq!(s.dst("{f32*4}|pred").unwrap(), Dst::VecPred("f32".into(), 4));
        let bad = |t: &str| s.srcs(t).unwrap_err();
        assert!(bad("[tex, {f32*3}]").contains("1, 2 or 4 long"));
        assert!(bad("[surf, tex, {s32}]").contains("handles"));
        assert!(bad("[tmap, {f32*2}]").contains("s32 coordinates"));
        assert!(bad("{_, f32}").contains("repeats the type"));
        assert!(bad("{f32, _, f32}").contains("come last"));
        assert!(s.dst("{f32*4}|b32").unwrap_err().contains("predicate"));
        assert!(s.dst("{u32, f32}").unwrap_err().contains("one type"));
    }

    #[test]
    fn a_variable_bound_to_one_value() {
        let x = sig_of("tex.v<L:4>.<T:f16x2>");
        assert_eq!(x.parts, ["tex", "v4", "f16x2"]);
        assert_eq!(Sig { x: &x }.dst("{T*L}").unwrap(), Dst::Vec("f16x2".into(), 4));
        assert!(expand_pattern("tex.<bogus>").is_err());
    }
}
