//! Operands: each operand kind of a form as one Rust expression.

use super::{in_window, rust_space, rust_type, Val};
use crate::core::{DType, DstKind, Family, FormDesc, Handles, Kind, RegClass, Space};
use crate::import::ast::{Arg, VarDecl};
use std::collections::HashMap;

/// The `.align` of a declaration.
pub(super) fn align_of(v: &VarDecl) -> Option<u64> {
    v.attrs.iter().find_map(|a| a.strip_prefix(".align")?.trim().parse().ok())
}

pub(super) fn lookup(scopes: &[HashMap<String, Val>], name: &str) -> Option<Val> {
    scopes.iter().rev().find_map(|s| s.get(name).cloned())
}

/// A register as exactly type `t` (a destination, an element of a vector): its declared type,
/// through a bitcast where that differs in name only.
pub(super) fn exact_reg(a: &Arg, t: DType, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    match *a {
        Arg::Name(n) => match lookup(scopes, n) {
            Some(Val::Reg(e, have)) if have == t => Ok(e),
            Some(Val::Reg(e, have)) if have.class() == t.class() => Ok(format!("{e}.bitcast::<{}>()", rust_type(t))),
            Some(Val::Reg(_, have)) => Err(format!("`{n}` (.{}) where a .{} register goes", have.name(), t.name())),
            _ => Err(format!("`{n}` is not a register")),
        },
        Arg::Vector(v) if v.len() == 1 => exact_reg(&v[0], t, scopes),
        _ => Err("a destination of this shape".into()),
    }
}

pub(super) fn exact_regs(a: &Arg, t: DType, n: u16, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    let Arg::Vector(v) = a else { return Err("a destination that is no vector".into()) };
    if v.len() != n as usize {
        return Err(format!("a vector of {} where {n} go", v.len()));
    }
    // Dropped elements (`{%r1, _}`): `[Some(r1), None]`.
    let sinks = v.contains(&Arg::Sink);
    let els: Result<Vec<String>, String> = v
        .iter()
        .map(|e| match e {
            Arg::Sink => Ok("None".to_string()),
            e if sinks => Ok(format!("Some({})", exact_reg(e, t, scopes)?)),
            e => exact_reg(e, t, scopes),
        })
        .collect();
    Ok(format!("[{}]", els?.join(", ")))
}

/// A register wider than `t` where the instruction takes one (`r.wide()`: the data operands
/// of ld, st and cvt), by the rule `regs::Wide` checks.
fn wide_reg(a: &Arg, t: DType, scopes: &[HashMap<String, Val>]) -> Option<String> {
    let n = match a {
        Arg::Name(n) => *n,
        Arg::Vector(v) if v.len() == 1 => return wide_reg(&v[0], t, scopes),
        _ => return None,
    };
    let Some(Val::Reg(e, have)) = lookup(scopes, n) else { return None };
    let fits = have.bits() > t.bits()
        && match t.family() {
            Family::Bits => true,
            Family::Unsigned | Family::Signed => matches!(have.family(), Family::Bits | Family::Unsigned | Family::Signed),
            Family::Float => have.family() == Family::Bits,
            Family::Pred | Family::Packed => false,
        };
    fits.then(|| format!("{e}.wide()"))
}

/// `exact` (a register or value of the type), or, where it fails and the position takes one,
/// a wider register.
fn or_wide(exact: Result<String, String>, wide: bool, a: &Arg, t: DType, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    exact.or_else(|e| wide.then(|| wide_reg(a, t, scopes)).flatten().ok_or(e))
}

/// `e` in braces where the operand `a` is a one-element vector and the position takes one
/// (`r.braced()`: the data operands of ld, ldu and st), else `e`.
fn keep_braces(e: String, a: &Arg, braced: bool) -> String {
    match a {
        Arg::Vector(v) if braced && matches!(v[..], [Arg::Name(_)]) => format!("{e}.braced()"),
        _ => e,
    }
}

pub(super) fn dst(form: &FormDesc, ops: &[Arg], scopes: &[HashMap<String, Val>]) -> Result<Option<String>, String> {
    let wide = ptxkit_tables::wide::dst(form.opcode());
    let braced = wide && ptxkit_tables::wide::braced(form.opcode());
    Ok(match (form.dst, ops) {
        (DstKind::None | DstKind::Sink, _) => None,
        (DstKind::Val(t), [a]) => Some(keep_braces(or_wide(exact_reg(a, t, scopes), wide, a, t, scopes)?, a, braced)),
        (DstKind::Pair(t, p), [Arg::Pair(a, b)]) => Some(format!("({}, {})", exact_reg(a, t, scopes)?, exact_reg(b, p, scopes)?)),
        (DstKind::SinkPair(p), [Arg::Pair(a, b)]) if **a == Arg::Sink => Some(exact_reg(b, p, scopes)?),
        (DstKind::Vec(t, n), [a]) => Some(exact_regs(a, t, n, scopes)?),
        (DstKind::Tied(t, n), [a]) => Some(format!("Acc({})", exact_regs(a, t, n, scopes)?)),
        (d, _) => return Err(format!("a destination of kind {d:?}")),
    })
}

/// The operand of kind `kind`; `wide`: the position takes a wider register (`r.wide()`);
/// `braced`: a one-element vector there stays one (`r.braced()`).
pub(super) fn src(kind: &Kind, a: &Arg, (wide, braced): (bool, bool), scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    match kind {
        Kind::Val(t) => Ok(keep_braces(or_wide(val(a, *t, scopes), wide, a, *t, scopes)?, a, braced)),
        Kind::Imm(t) | Kind::ImmIn(t, _) => val(a, *t, scopes),
        Kind::Vec(t, n) => {
            let Arg::Vector(v) = a else { return Err("a vector operand that is no vector".into()) };
            if v.len() != *n as usize {
                return Err(format!("a vector of {} where {n} go", v.len()));
            }
            // An array of one Rust type: registers, all of the type or all wider; else a tuple
            // of values (registers and immediates).
            let exact: Result<Vec<String>, String> = v.iter().map(|e| exact_reg(e, *t, scopes)).collect();
            let els = exact.or_else(|e| {
                let wide: Option<Vec<String>> = wide.then(|| v.iter().map(|e| wide_reg(e, *t, scopes)).collect()).flatten();
                wide.ok_or(e)
            });
            match els {
                Ok(els) => Ok(format!("[{}]", els.join(", "))),
                Err(_) if matches!(n, 2 | 4) => {
                    let vals: Result<Vec<String>, String> = v.iter().map(|e| val(e, *t, scopes)).collect();
                    Ok(format!("({})", vals?.join(", ")))
                }
                Err(e) => Err(format!("a vector of registers only ({e})")),
            }
        }
        Kind::Addr(Space::Tmem, _) => match a {
            Arg::Address(v) => match &v[..] {
                // `[%r460 + 0]`, `[%r1186 + 8]`, as Triton writes them.
                [Arg::Offset((r, off))] => match crate::import::module::offset(off) {
                    Some(0) => Ok(format!("TmemAddr::from_reg({})", exact_reg(r, DType::B32, scopes)?)),
                    Some(n) => Ok(format!("TmemAddr::from_reg({}).offset({n})", exact_reg(r, DType::B32, scopes)?)),
                    None => Err(format!("the offset `{off}`")),
                },
                [r @ Arg::Name(_)] => Ok(format!("TmemAddr::from_reg({})", exact_reg(r, DType::B32, scopes)?)),
                _ => Err("a tensor-memory address of this shape".into()),
            },
            _ => Err("a tensor-memory address of this shape".into()),
        },
        // A video instruction's register, with a part selector or none.
        Kind::Part { ty, sel: _, neg: false } => match a {
            Arg::Part((r, sel)) => Ok(format!("{}.{}", exact_reg(r, *ty, scopes)?, selector(sel)?)),
            a => val(a, *ty, scopes),
        },
        Kind::Part { ty, sel: _, neg: true } => match a {
            Arg::Neg(Arg::Part((r, sel))) => Ok(format!("-{}.{}", exact_reg(r, *ty, scopes)?, selector(sel)?)),
            Arg::Neg(r) => Ok(format!("-{}", exact_reg(r, *ty, scopes)?)),
            _ => Err("a negated operand of this shape".into()),
        },
        // A texture or surface object in a register, at its coordinates (the ignored elements
        // after them, which PTX reads as nothing, are the builder's own zeros).
        Kind::HandleAddr(h @ (Handles::Texture | Handles::Surface), coords, pads) => match a {
            Arg::Address([handle, rest @ ..]) => {
                let ty = if *h == Handles::Texture { "Texture" } else { "Surface" };
                let handle = match handle {
                    Arg::Name(n) => match lookup(scopes, n) {
                        Some(Val::Handle(e, kind)) if kind == *h => e,
                        _ => format!("ptxkit::regs::{ty}::from_reg({})", exact_reg(handle, DType::U64, scopes)?),
                    },
                    _ => return Err("a texture or surface handle of this shape".into()),
                };
                match rest {
                    [] if coords.is_empty() => Ok(handle),
                    [Arg::Vector(cs)] if cs.len() == coords.len() + *pads as usize => {
                        let cs: Result<Vec<String>, String> = cs.iter().zip(*coords).map(|(c, t)| val(c, *t, scopes)).collect();
                        Ok(format!("{handle}.at(({},))", cs?.join(", ")))
                    }
                    _ => Err("a texture or surface operand of this shape".into()),
                }
            }
            _ => Err("a texture or surface operand that is no `[…]`".into()),
        },
        Kind::Addr(space, elem) => addr(a, *space, elem.unwrap_or(DType::B8), scopes),
        Kind::HandleAddr(Handles::TensorMap, coords, 0) if coords.iter().all(|c| *c == DType::S32) => match a {
            Arg::Address(v) => match &v[..] {
                [map, Arg::Vector(cs)] if cs.len() == coords.len() => {
                    let cs: Result<Vec<String>, String> = cs.iter().map(|c| exact_reg(c, DType::S32, scopes)).collect();
                    Ok(format!("TensorAt::new({}, [{}])", exact_reg(map, DType::U64, scopes)?, cs?.join(", ")))
                }
                _ => Err("a tensor-map address of this shape".into()),
            },
            _ => Err("a tensor-map address that is no `[…]`".into()),
        },
        Kind::Label => match a {
            Arg::Name(n) => match lookup(scopes, n) {
                Some(Val::Label(l)) => Ok(l),
                _ => Err(format!("`{n}` is not a label")),
            },
            _ => Err("a label of this shape".into()),
        },
        Kind::Targets => match a {
            Arg::Name(n) => match lookup(scopes, n) {
                Some(Val::Targets(l)) => Ok(l),
                _ => Err(format!("`{n}` is not a `.branchtargets` list declared before")),
            },
            _ => Err("a target list of this shape".into()),
        },
        other => Err(format!("an operand of kind {other:?}")),
    }
}

/// The method of `Reg` that gives a part selector: `b0()`, `h10()`, `bytes::<7, 6, 5, 4>()`.
fn selector(sel: &str) -> Result<String, String> {
    let digits: Vec<char> = sel.chars().skip(1).collect();
    let named =
        ["b0", "b1", "b2", "b3", "h0", "h1", "h10", "b10", "b20", "b21", "b30", "b31", "b32", "b210", "b310", "b320", "b321", "b3210"];
    let list = |d: &[char]| d.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ");
    match (sel.chars().next(), digits.len()) {
        _ if named.contains(&sel) => Ok(format!("{sel}()")),
        (Some('h'), 2) if digits.iter().all(|c| ('0'..='3').contains(c)) => Ok(format!("halves::<{}>()", list(&digits))),
        (Some('b'), 4) if digits.iter().all(|c| ('0'..='7').contains(c)) => Ok(format!("bytes::<{}>()", list(&digits))),
        _ => Err(format!("the part selector `.{sel}`")),
    }
}

/// A value of type `t`: a register (through a bitcast where only the name of its type
/// differs), a special register, a symbol's address or an immediate.
pub(super) fn val(a: &Arg, t: DType, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    match *a {
        Arg::Name(n) => match lookup(scopes, n) {
            Some(Val::Reg(e, have)) if t.accepts(have) => Ok(e),
            Some(Val::Reg(e, have)) if have.class() == t.class() => Ok(format!("{e}.bitcast::<{}>()", rust_type(t))),
            Some(Val::Reg(_, have)) => Err(format!("`{n}` (.{}) where a .{} value goes", have.name(), t.name())),
            Some(Val::Ptr(e, _)) => Ok(format!("{e}.symbol::<{}>().expect(\"a symbol\")", rust_type(t))),
            Some(Val::Func(f, ..) | Val::Entry(f)) if t.bits() == 64 => Ok(format!("{f}.addr()")),
            Some(_) => Err(format!("`{n}` is no value")),
            None => {
                let c = n.trim_start_matches('%').to_uppercase().replace('.', "_");
                if crate::regs::sreg::ALL.iter().any(|(name, _)| *name == n) {
                    Ok(format!("sreg::{c}"))
                } else {
                    Err(format!("`{n}` is not declared"))
                }
            }
        },
        Arg::Not(p) => match *p {
            Arg::Name(n) => match lookup(scopes, n) {
                Some(Val::Reg(e, DType::Pred)) if t == DType::Pred => Ok(format!("!{e}")),
                _ => Err(format!("`!{n}` where a .{} goes", t.name())),
            },
            _ => Err("a negation of this shape".into()),
        },
        Arg::Number(s) => imm(s, t),
        Arg::Vector(v) if v.len() == 1 => val(&v[0], t, scopes),
        _ => Err("a value of this shape".into()),
    }
}

/// An immediate of type `t` as a Rust literal with the same bits.
pub(super) fn imm(s: &str, t: DType) -> Result<String, String> {
    let bad = || format!("the immediate `{s}` where a .{} goes", t.name());
    let int = match crate::import::module::number(s, if matches!(t, DType::F32 | DType::F64) { Some(t) } else { None }) {
        Some(crate::core::ir::Opnd::Int(v)) => v.get() as i64 as i128,
        Some(crate::core::ir::Opnd::UInt(v)) => v.get() as i128,
        Some(crate::core::ir::Opnd::F32(b)) if t == DType::F32 => return Ok(format!("f32::from_bits(0x{b:08X})")),
        Some(crate::core::ir::Opnd::F64(b)) if t == DType::F64 => return Ok(format!("f64::from_bits(0x{:016X})", b.get())),
        // A float's bits where bits go (`mov.b32 %r1, 0fFF800000;`).
        Some(crate::core::ir::Opnd::F32(b)) if t.bits() == 32 && t.family() != Family::Float => b as i128,
        Some(crate::core::ir::Opnd::F64(b)) if t.bits() == 64 && t.family() != Family::Float => b.get() as i128,
        _ => return Err(bad()),
    };
    let bits = t.bits();
    match t.family() {
        // ptxas reads any nonzero immediate as true (`mov.pred %p1, -1;`).
        Family::Pred => Ok((int != 0).to_string()),
        Family::Float if t == DType::F32 => Ok(format!("f32::from_bits(0x{:08X})", (int as f32).to_bits())),
        Family::Float if t == DType::F64 => Ok(format!("f64::from_bits(0x{:016X})", (int as f64).to_bits())),
        Family::Unsigned | Family::Signed | Family::Bits if bits <= 64 => {
            let wrapped = (int as u128 & (u128::MAX >> (128 - bits))) as u64;
            let width = bits.max(8);
            if t.family() == Family::Signed || (t.family() == Family::Bits && int < 0) {
                let v = ((wrapped as i64) << (64 - bits)) >> (64 - bits);
                Ok(format!("{v}i{width}"))
            } else {
                Ok(format!("{wrapped}u{width}"))
            }
        }
        _ => Err(bad()),
    }
}

/// An address operand of space `space` and element `elem`.
pub(super) fn addr(a: &Arg, space: Space, elem: DType, scopes: &[HashMap<String, Val>]) -> Result<String, String> {
    let Arg::Address(v) = a else { return Err("an address that is no `[…]`".into()) };
    // A zero offset written out (`[%r1+0]`) stays written (`Ptr::explicit_offset`), as the
    // importer keeps it.
    let (base, off, explicit) = match v {
        [Arg::Offset((b, off))] => (b, crate::import::module::offset(off).ok_or_else(|| format!("the offset `{off}`"))?, *off == "+0"),
        [b] => (b, 0, false),
        _ => return Err("an address of this shape".into()),
    };
    let Arg::Name(n) = *base else { return Err("an address with this base".into()) };
    let space_t = rust_space(space).ok_or("a tensor-memory address")?;
    let e = rust_type(elem);
    let p = match lookup(scopes, n) {
        Some(Val::Reg(r, t)) if matches!(t.class(), RegClass::B32 | RegClass::B64) => format!("Ptr::<{space_t}, {e}>::from_addr_reg({r})"),
        Some(Val::Ptr(p, have)) if in_window(have, space) => format!("{p}.cast::<{e}>()"),
        Some(Val::Var(v, ty)) if space == Space::Param => format!("{}.cast::<{e}>()", Val::var_ptr(&v, &ty)),
        Some(Val::Ptr(_, have)) => return Err(format!("`{n}` is in {} where the instruction names {}", have.name(), space.name())),
        _ => return Err(format!("`{n}` is not an address")),
    };
    Ok(match (off, explicit) {
        (0, true) => format!("{p}.explicit_offset()"),
        (0, false) => p,
        _ => format!("{p}.byte_offset({off})"),
    })
}
