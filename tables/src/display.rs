//! Operands and destinations written back in the tables' notation, every variable bound:
//! what the macros' messages and the forms reference show.

use crate::notation::{Coord, Dst, Src};

/// A coordinate list as a table writes it: `{u32, f32*2, _}`.
fn write_coords(f: &mut std::fmt::Formatter, cs: &[Coord]) -> std::fmt::Result {
    let mut items: Vec<String> = vec![];
    let mut i = 0;
    while i < cs.len() {
        let (t, pad) = &cs[i];
        if *pad {
            items.push("_".into());
            i += 1;
            continue;
        }
        let n = cs[i..].iter().take_while(|(u, p)| u == t && !p).count();
        items.push(if n > 1 { format!("{t}*{n}") } else { t.clone() });
        i += n;
    }
    write!(f, "{{{}}}", items.join(", "))
}

/// A source operand in the notation of the tables, every variable bound: `f32`, `[u32@global]`,
/// `{f32*4}`, `imm(s32: -1|1)`, `[tmap, {s32*2}]`.
impl std::fmt::Display for Src {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Src::Val(t) => f.write_str(t),
            Src::Addr(space, elem) => {
                let e = elem.as_deref().unwrap_or("");
                match space.as_deref() {
                    Some("tmem") => f.write_str("[tmem]"),
                    Some(s) => write!(f, "[{e}@{s}]"),
                    None => write!(f, "[{e}]"),
                }
            }
            Src::Vec(t, n) => write!(f, "{{{t}*{n}}}"),
            Src::Imm(t) => write!(f, "imm({t})"),
            Src::ImmIn(t, vals, _) if vals.len() > 6 => write!(f, "imm({t}: {}..{}, {} values)", vals[0], vals[vals.len() - 1], vals.len()),
            Src::ImmIn(t, vals, _) => write!(f, "imm({t}: {})", vals.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("|")),
            Src::Label => f.write_str("label"),
            Src::Targets => f.write_str("tlist"),
            Src::Part(t, set, neg) => {
                let sign = if *neg { "-" } else { "" };
                match set {
                    Some(s) => write!(f, "{sign}{t}{{.<{s}>}}"),
                    None if *neg => write!(f, "-{t}"),
                    None => write!(f, "reg({t})"),
                }
            }
            Src::HandleAddr(hs, cs) => {
                write!(f, "[{}", hs.join(", "))?;
                if !cs.is_empty() {
                    f.write_str(", ")?;
                    write_coords(f, cs)?;
                }
                f.write_str("]")
            }
            Src::Coords(cs) => write_coords(f, cs),
        }
    }
}

/// A destination in the notation of the tables: `-`, `_`, `f32`, `pred|pred`, `{f32*4}`,
/// `+{f32*64}`, `{f32*4}|pred`, `u32.<hmask>`, `_|pred`, several separated by commas.
impl std::fmt::Display for Dst {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Dst::None => f.write_str("-"),
            Dst::Sink => f.write_str("_"),
            Dst::Val(t) => f.write_str(t),
            Dst::Pair(a, b) => write!(f, "{a}|{b}"),
            Dst::Vec(t, n) => write!(f, "{{{t}*{n}}}"),
            Dst::Tied(t, n) => write!(f, "+{{{t}*{n}}}"),
            Dst::VecPred(t, n) => write!(f, "{{{t}*{n}}}|pred"),
            Dst::Multi(ds) => write!(f, "{}", ds.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
            Dst::Part(t, set) => write!(f, "{t}.<{set}>"),
            Dst::SinkPair(t) => write!(f, "_|{t}"),
        }
    }
}
