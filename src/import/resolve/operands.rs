//! An instruction's operands against a form's kinds, by their syntax alone: a name is taken
//! for a register, a variable, a label or a handle (no declaration is known here), a number
//! for an immediate, and the brackets, braces, `|`, `_`, `!`, `-` and part selectors must be
//! where the form has them. Register classes are not checked.

use super::super::ast::Arg;
use crate::core::{DType, DstKind, FormDesc, Kind, Sel, SelSet};
use ptxkit_tables::{Dst, Form};

/// `ops` against the form `d` (`f` is its table row, for the message): `Err` says which
/// operand differs and what the form has there.
pub(super) fn check(d: &FormDesc, f: &Form, ops: &[Arg]) -> Result<(), String> {
    let dsts: Vec<DstKind> = match d.dst {
        DstKind::None => vec![],
        DstKind::Multi(ds) => ds.to_vec(),
        k => vec![k],
    };
    if dsts.len() + d.src.len() != ops.len() {
        let s = if ops.len() == 1 { "" } else { "s" };
        return Err(format!("{} operand{s} written", ops.len()));
    }
    let differs = |at: usize, want: String| Err(format!("operand {} is `{}`, not `{want}`", at + 1, text(&ops[at])));
    for (at, (k, o)) in dsts.iter().zip(ops).enumerate() {
        if !dst(k, o) {
            let want = match &f.dst {
                Dst::Multi(ds) => ds[at].to_string(),
                one => one.to_string(),
            };
            return differs(at, want);
        }
    }
    let n = dsts.len();
    for (j, (k, o)) in d.src.iter().zip(&ops[n..]).enumerate() {
        if !src(k, o) {
            return differs(n + j, f.srcs[j].to_string());
        }
    }
    Ok(())
}

/// What a form takes, in the tables' notation: `4 operands (f32 = f32, f32, f32)`,
/// `2 operands ([f32@global], f32)`, `no operands`.
pub fn expected(f: &Form) -> String {
    let n = match &f.dst {
        Dst::None => 0,
        Dst::Multi(ds) => ds.len(),
        _ => 1,
    } + f.srcs.len();
    let srcs: Vec<String> = f.srcs.iter().map(ToString::to_string).collect();
    let list = match (&f.dst, srcs.is_empty()) {
        (Dst::None, _) => srcs.join(", "),
        (d, true) => d.to_string(),
        (d, false) => format!("{d} = {}", srcs.join(", ")),
    };
    match n {
        0 => "no operands".to_string(),
        1 => format!("1 operand ({list})"),
        n => format!("{n} operands ({list})"),
    }
}

/// The operands as written, long vectors shortened: `{%f1, %f2, …, %f64}`.
pub fn written(ops: &[Arg]) -> String {
    if ops.is_empty() {
        return "none".to_string();
    }
    ops.iter().map(text).collect::<Vec<_>>().join(", ")
}

/// One operand as PTX text.
fn text(o: &Arg) -> String {
    let list = |v: &[Arg]| v.iter().map(text).collect::<Vec<_>>().join(", ");
    match *o {
        Arg::Name(s) | Arg::Number(s) => s.to_string(),
        Arg::Offset((b, off)) if off.starts_with(['+', '-']) => format!("{}{off}", text(b)),
        Arg::Offset((b, off)) => format!("{}+{off}", text(b)),
        Arg::Not(x) => format!("!{}", text(x)),
        Arg::Neg(x) => format!("-{}", text(x)),
        Arg::Part((x, s)) => format!("{}.{}", text(x), s.trim_start_matches('.')),
        Arg::Address(v) => format!("[{}]", list(v)),
        Arg::Vector(v) if v.len() > 6 => format!("{{{}, {}, …, {}}}", text(&v[0]), text(&v[1]), text(&v[v.len() - 1])),
        Arg::Vector(v) => format!("{{{}}}", list(v)),
        Arg::Pair(a, b) => format!("{}|{}", text(a), text(b)),
        Arg::Sink => "_".to_string(),
        Arg::Call((n, v)) => format!("{n}({})", list(v)),
        Arg::Paren(v) => format!("({})", list(v)),
    }
}

fn name(o: &Arg) -> bool {
    matches!(o, Arg::Name(_))
}

/// A number as written, with the sign of a `-` the parser kept apart.
fn number(o: &Arg) -> Option<String> {
    match *o {
        Arg::Number(s) => Some(s.to_string()),
        Arg::Neg(Arg::Number(s)) => Some(format!("-{s}")),
        _ => None,
    }
}

/// The value of an integer literal: decimal, `0x`, `0b`, octal `0…`, with an optional `U`
/// suffix and sign; `None` for a float or anything else.
pub(super) fn int_value(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let s = s.strip_suffix(['U', 'u']).unwrap_or(s);
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() {
        return None;
    }
    let v = i128::from_str_radix(digits, radix).ok()?;
    i64::try_from(if neg { -v } else { v }).ok()
}

/// A value: a register or variable name, `var+imm` (an address), a number, `!p` for a
/// predicate.
fn val(o: &Arg, t: DType) -> bool {
    match o {
        Arg::Name(_) | Arg::Number(_) => true,
        Arg::Offset((b, _)) => matches!(b, Arg::Name(_) | Arg::Number(_)),
        Arg::Not(x) => t == DType::Pred && name(x),
        _ => number(o).is_some(),
    }
}

/// `[base]` or `[base+off]`: a register or variable name, or an absolute address.
fn addr(o: &Arg) -> bool {
    let Arg::Address(v) = o else { return false };
    match &v[..] {
        [Arg::Name(_) | Arg::Number(_)] => true,
        [Arg::Offset((b, _))] => matches!(b, Arg::Name(_) | Arg::Number(_)),
        _ => false,
    }
}

fn braced(o: &Arg, n: usize, elem: impl Fn(&Arg) -> bool) -> bool {
    matches!(o, Arg::Vector(v) if v.len() == n && v.iter().all(elem))
}

/// A coordinate or an ignored element.
fn coord(o: &Arg) -> bool {
    matches!(o, Arg::Name(_) | Arg::Number(_) | Arg::Sink) || number(o).is_some()
}

/// `.b1`, `h10`: the selector of a [`Arg::Part`], with or without its dot.
fn sel(s: &str) -> Option<Sel> {
    let s = s.strip_prefix('.').unwrap_or(s);
    let (half, digits) = match s.as_bytes().first()? {
        b'b' => (false, &s[1..]),
        b'h' => (true, &s[1..]),
        _ => return None,
    };
    let lanes: Vec<u8> = digits.bytes().map(|c| c.wrapping_sub(b'0')).collect();
    if half {
        Sel::halves(&lanes)
    } else {
        Sel::bytes(&lanes)
    }
}

fn part_in(o: &Arg, set: SelSet) -> bool {
    matches!(o, Arg::Part((r, s)) if name(r) && sel(s).is_some_and(|x| set.admits(x)))
}

fn dst(k: &DstKind, o: &Arg) -> bool {
    let reg_or_sink = |e: &Arg| name(e) || matches!(e, Arg::Sink);
    match k {
        DstKind::None | DstKind::Multi(_) => false,
        DstKind::Sink => matches!(o, Arg::Sink),
        DstKind::Val(_) => name(o),
        DstKind::Pair(..) => matches!(o, Arg::Pair(a, b) if name(a) && name(b)),
        DstKind::Vec(_, n) => braced(o, *n as usize, reg_or_sink),
        DstKind::Tied(_, n) => braced(o, *n as usize, name),
        DstKind::VecPred(_, n) => matches!(o, Arg::Pair(v, p) if braced(v, *n as usize, reg_or_sink) && name(p)),
        DstKind::Part(_, set) => part_in(o, *set),
        DstKind::SinkPair(_) => matches!(o, Arg::Pair(a, p) if matches!(**a, Arg::Sink) && name(p)),
    }
}

fn src(k: &Kind, o: &Arg) -> bool {
    match k {
        Kind::Val(t) => val(o, *t),
        Kind::Addr(..) => addr(o),
        Kind::Vec(t, n) => braced(o, *n as usize, |e| val(e, *t) && !matches!(e, Arg::Not(_))),
        Kind::Imm(_) => number(o).is_some(),
        Kind::ImmIn(_, vals) => number(o).and_then(|s| int_value(&s)).is_some_and(|v| vals.contains(&v)),
        Kind::Label | Kind::Targets => name(o),
        Kind::Part { sel: set, neg, .. } => {
            let inner = match (o, neg) {
                (Arg::Neg(x), true) => &**x,
                (Arg::Neg(_), false) | (_, true) => return false,
                (x, false) => x,
            };
            match set {
                None => name(inner),
                Some(s) => name(inner) || part_in(inner, *s) || (*s == SelSet::Scalar && !neg && number(inner).is_some()),
            }
        }
        Kind::HandleAddr(h, coords, pads) => {
            let Arg::Address(v) = o else { return false };
            let (n, total) = (h.count(), coords.len() + *pads as usize);
            let want = n + usize::from(total > 0);
            v.len() == want && v[..n].iter().all(name) && (total == 0 || braced(&v[n], total, coord))
        }
        Kind::Coords(types, pads) => braced(o, types.len() + *pads as usize, coord),
    }
}
