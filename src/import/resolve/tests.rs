use super::*;
use crate::core::{DType, DstKind, Kind};
use crate::import::ast::{Arena, Arg, Instruction, Span};
use crate::ops::all_forms;

/// The arena of the trees made here (one per test thread, kept to the end of the run).
fn arena() -> &'static Arena {
    thread_local!(static ARENA: &'static Arena = Box::leak(Box::default()));
    ARENA.with(|a| *a)
}

type A = Arg<'static>;

fn name(s: &str) -> A {
    Arg::Name(arena().str(s))
}
fn num(s: &str) -> A {
    Arg::Number(arena().str(s))
}
fn addr(base: &str) -> A {
    Arg::Address(arena().list(&[name(base)]))
}
fn list(v: Vec<A>) -> &'static [A] {
    arena().list(&v)
}
fn vector(prefix: &str, n: usize) -> A {
    Arg::Vector(list((1..=n).map(|i| name(&format!("{prefix}{i}"))).collect()))
}
fn pair(a: A, b: A) -> A {
    Arg::Pair(arena().one(a), arena().one(b))
}
fn part(r: A, sel: &str) -> A {
    Arg::Part(arena().one((r, arena().str(sel))))
}
fn ins(chain: &'static str, operands: Vec<A>) -> Instruction<'static> {
    Instruction { guard: None, chain, operands: list(operands), span: Span { line: 1, col: 1 } }
}

/// A sample operand of each kind, shaped as the printer writes it.
fn sample_dst(k: &DstKind, out: &mut Vec<A>) {
    match k {
        DstKind::None => {}
        DstKind::Sink => out.push(Arg::Sink),
        DstKind::Val(_) => out.push(name("%d")),
        DstKind::Pair(..) => out.push(pair(name("%d"), name("%p"))),
        DstKind::Vec(_, n) | DstKind::Tied(_, n) => out.push(vector("%d", *n as usize)),
        DstKind::VecPred(_, n) => out.push(pair(vector("%d", *n as usize), name("%p"))),
        DstKind::Multi(ds) => ds.iter().for_each(|d| sample_dst(d, out)),
        DstKind::Part(_, set) => out.push(part(name("%d"), &set.sample().to_string())),
        DstKind::SinkPair(_) => out.push(pair(Arg::Sink, name("%p"))),
    }
}

fn sample_src(k: &Kind, i: usize) -> A {
    let coords = |n: usize| Arg::Vector(list((0..n).map(|j| if j % 2 == 0 { name("%c") } else { num("0") }).collect()));
    match k {
        Kind::Val(DType::Pred) if i % 2 == 1 => Arg::Not(arena().one(name("%p"))),
        Kind::Val(_) if i % 3 == 2 => num("1"),
        Kind::Val(_) => name(&format!("%a{i}")),
        Kind::Addr(..) if i % 2 == 1 => Arg::Address(list(vec![Arg::Offset(arena().one((name("%rd1"), "8")))])),
        Kind::Addr(..) => addr("%rd1"),
        Kind::Vec(_, n) => vector("%v", *n as usize),
        Kind::Imm(t) if t.name().starts_with('f') => num("0f3F800000"),
        Kind::Imm(_) => num("1"),
        Kind::ImmIn(_, vals) => num(&vals[vals.len() / 2].to_string()),
        Kind::Label => name("$L__BB0_1"),
        Kind::Targets => name("$L_targets"),
        Kind::Part { sel, neg, .. } => {
            let r = match sel {
                Some(s) => part(name("%a"), &s.sample().to_string()),
                None => name("%a"),
            };
            if *neg {
                Arg::Neg(arena().one(r))
            } else {
                r
            }
        }
        Kind::HandleAddr(h, cs, pads) => {
            let mut v: Vec<A> = (0..h.count()).map(|j| name(&format!("h{j}"))).collect();
            let total = cs.len() + *pads as usize;
            if total > 0 {
                v.push(coords(total));
            }
            Arg::Address(list(v))
        }
        Kind::Coords(cs, pads) => coords(cs.len() + *pads as usize),
    }
}

fn sample(f: &'static FormDesc) -> Instruction<'static> {
    let mut ops = vec![];
    sample_dst(&f.dst, &mut ops);
    ops.extend(f.src.iter().enumerate().map(|(i, k)| sample_src(k, i)));
    ins(f.chain, ops)
}

/// Every form, its operands shaped from its kinds, resolves to itself.
#[test]
fn every_form_resolves_to_itself() {
    let start = std::time::Instant::now();
    let _ = resolve(&ins("ret", vec![]));
    let load = start.elapsed();
    let start = std::time::Instant::now();
    let (mut n, mut bad, mut ambiguous) = (0usize, vec![], vec![]);
    for f in all_forms() {
        n += 1;
        match resolve(&sample(f)) {
            Ok(r) if std::ptr::eq(r.form, f) => {}
            Ok(r) => bad.push(format!("{} as {} resolved to {}", f.chain, f.variant, form_name(r.form))),
            // Variants told apart by a register's type alone: the syntax cannot say which.
            Err(Finding { kind: FindingKind::Ambiguous { forms, differ }, .. })
                if forms.iter().any(|x| std::ptr::eq(*x, f)) && !differ.is_empty() =>
            {
                ambiguous.push((f, differ))
            }
            Err(e) => bad.push(format!("{} as {}: {e}", f.chain, f.variant)),
        }
    }
    println!("tables and index: {load:.1?}; {n} forms resolved in {:.1?}", start.elapsed());
    println!("{} forms need a register's type to tell them from another variant: {}", ambiguous.len(), ambiguous[0].1);
    assert!(n > 50_000, "{n} forms");
    // Only `cp.async`'s source size (`u32`) and ignore-source predicate (`pred`), when the
    // operand is a name (or an immediate).
    for (f, differ) in &ambiguous {
        assert!(f.chain.starts_with("cp.async.") && f.variant == "src_size", "{} as {}: {differ}", f.chain, f.variant);
        assert_eq!(differ, "operand 4 is `u32` (src_size) or `pred` (ignore_src)");
    }
    assert!(bad.is_empty(), "{} of {n} forms do not resolve to themselves:\n{}", bad.len(), bad[..bad.len().min(40)].join("\n"));
}

#[test]
fn integer_literals() {
    use super::operands::int_value;
    for (s, v) in [("16", 16), ("0x10", 16), ("020", 16), ("0b10000", 16), ("16U", 16), ("-1", -1), ("0", 0), ("0xFFFFFFFF", 0xFFFF_FFFF)] {
        assert_eq!(int_value(s), Some(v), "{s}");
    }
    for s in ["0f3F800000", "1.5", "0x", "abc", "09"] {
        assert_eq!(int_value(s), None, "{s}");
    }
}
