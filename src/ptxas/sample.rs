//! Sample instructions for every form, with synthesised operands: what the ptxas sweep and
//! the ptxas tests assemble. The operands are fresh registers of the kinds the form names,
//! so each line is exactly what a typed call of that form emits.

use crate::builder::{Error, Kernel, Module, Target, Version};
use crate::core::ir::{AddrBase, Opnd};
use crate::core::{Coord, DType, DstKind, FormDesc, Kind, Label, RegClass, Sel, TexMode};

fn val(k: &mut Kernel, t: DType) -> Opnd {
    Opnd::Reg(k.alloc(t.class()))
}

fn vec(k: &mut Kernel, t: DType, n: u16) -> Opnd {
    let regs: Vec<Opnd> = (0..n).map(|_| val(k, t)).collect();
    let (start, len) = k.push_run(&regs);
    Opnd::Vec { start, len }
}

fn dst(k: &mut Kernel, d: DstKind, ops: &mut Vec<Opnd>) {
    match d {
        DstKind::None => {}
        DstKind::Sink => ops.push(Opnd::Sink),
        DstKind::Val(t) => ops.push(val(k, t)),
        DstKind::Pair(a, b) => ops.push(Opnd::Pair(k.alloc(a.class()), k.alloc(b.class()))),
        DstKind::Vec(t, n) | DstKind::Tied(t, n) => ops.push(vec(k, t, n)),
        DstKind::Part(t, set) => ops.push(Opnd::Part { reg: k.alloc(t.class()), sel: set.sample(), neg: false }),
        DstKind::SinkPair(t) => ops.push(Opnd::SinkPair(k.alloc(t.class()))),
        DstKind::VecPred(t, n) => {
            let Opnd::Vec { start, len } = vec(k, t, n) else { unreachable!() };
            ops.push(Opnd::VecPred { start, len, pred: k.alloc(RegClass::Pred) });
        }
        DstKind::Multi(ds) => {
            for d in ds {
                dst(k, *d, ops);
            }
        }
    }
}

/// A coordinate: a fresh register, or the zero an ignored element is written as.
fn coord(k: &mut Kernel, c: Coord) -> Opnd {
    match c {
        Coord::Val(t) => val(k, t),
        Coord::Pad(t) => crate::ops::pad_opnd(t),
    }
}

/// Emits one instruction of `form` into `k` with fresh operands (registers of the kinds the
/// form names; for an immediate from a legal set, its first value; a part selector other
/// than the operand's default where it takes one); `end` is a label placed
/// at the end of the body, for branches.
pub fn emit_sample(k: &mut Kernel, form: &'static FormDesc, end: Label) {
    let mut ops = Vec::new();
    dst(k, form.dst, &mut ops);
    for s in form.src {
        let o = match *s {
            Kind::Val(t) => val(k, t),
            Kind::Imm(_) => Opnd::UInt(1),
            Kind::ImmIn(_, legal) => Opnd::Int(legal.first().copied().unwrap_or(0)),
            Kind::Vec(t, n) => vec(k, t, n),
            Kind::Label => {
                k.use_label(end);
                Opnd::Label(end.id)
            }
            Kind::Targets => Opnd::Label(k.branch_targets(&[end, end]).0.id),
            Kind::Addr(space, _) => {
                let class = if space.addr_bits() == 32 { RegClass::B32 } else { RegClass::B64 };
                Opnd::Addr(AddrBase::Reg(k.alloc(class)), 0)
            }
            Kind::Part { ty, sel, neg } => Opnd::Part { reg: k.alloc(ty.class()), sel: sel.map_or(Sel::NONE, |s| s.sample()), neg },
            Kind::HandleAddr(h, cs) => {
                let mut run: Vec<Opnd> = (0..h.count()).map(|_| Opnd::Reg(k.alloc(RegClass::B64))).collect();
                run.extend(cs.iter().map(|c| coord(k, *c)));
                let (start, _) = k.push_run(&run);
                Opnd::HandleAddr { start, handles: h.count() as u8, coords: cs.len() as u8 }
            }
            Kind::Coords(cs) => {
                let run: Vec<Opnd> = cs.iter().map(|c| coord(k, *c)).collect();
                let (start, len) = k.push_run(&run);
                Opnd::Vec { start, len }
            }
        };
        ops.push(o);
    }
    k.push_ins(form, None, &mut ops);
}

/// A module with one kernel holding one sample of each form, in order, at `version`
/// (unchecked: the point is to ask ptxas). Returns the text and, for each form, the
/// 1-based line its sample is on. The module is in the independent texturing mode if a
/// form needs it (forms of both modes cannot share a module: [`assemblable`] separates
/// them).
pub fn sample_module(forms: &[&'static FormDesc], target: Target, version: Version) -> Result<(String, Vec<usize>), Error> {
    let mut m = Module::new(target);
    m.set_version(version);
    m.unchecked = true;
    if forms.iter().any(|f| f.tex_mode() == Some(TexMode::Independent)) {
        m.set_tex_mode(TexMode::Independent)?;
    }
    m.kernel("samples", |k, ()| {
        let end = k.label();
        for f in forms {
            emit_sample(k, f, end);
        }
        k.place(end);
    })?;
    let text = m.to_ptx()?;
    let mut lines = Vec::with_capacity(forms.len());
    let mut it = text.lines().enumerate();
    for f in forms {
        let pre_a = format!("\t{} ", f.chain);
        let pre_b = format!("\t{};", f.chain);
        let line = it.by_ref().find(|(_, l)| l.starts_with(&pre_a) || l.starts_with(&pre_b)).map(|(i, _)| i + 1).unwrap_or(0);
        lines.push(line);
    }
    Ok((text, lines))
}

/// The forms of `forms` that ptxas accepts at (`target`, `version`): one ptxas run per
/// batch; the lines it blames drop out, and a batch rejected without a line to blame is
/// bisected.
pub fn assemblable(
    ptxas: &std::path::Path,
    mode: crate::ptxas::Mode,
    forms: &[&'static FormDesc],
    target: Target,
    version: Version,
) -> Vec<&'static FormDesc> {
    let independent = |f: &FormDesc| f.tex_mode() == Some(TexMode::Independent);
    if forms.iter().any(|f| independent(f)) && !forms.iter().all(|f| independent(f)) {
        let (ind, uni): (Vec<&'static FormDesc>, Vec<&'static FormDesc>) = forms.iter().copied().partition(|f| independent(f));
        let mut r = assemblable(ptxas, mode, &uni, target, version);
        r.extend(assemblable(ptxas, mode, &ind, target, version));
        return r;
    }
    let mut live: Vec<&'static FormDesc> = forms.to_vec();
    while !live.is_empty() {
        let Ok((text, lines)) = sample_module(&live, target, version) else { return vec![] };
        let Err(msg) = crate::ptxas::check(ptxas, &text, target, mode) else { return live };
        let bad = crate::ptxas::error_lines(&msg);
        let entry = text.lines().position(|l| l.starts_with(".visible .entry")).map_or(0, |i| i + 1);
        if bad.iter().any(|l| *l <= entry) {
            return vec![]; // the module header itself (version/target) is rejected
        }
        let keep: Vec<_> = live.iter().zip(&lines).filter(|(_, l)| !bad.contains(l)).map(|(f, _)| *f).collect();
        if keep.len() == live.len() {
            if live.len() == 1 {
                return vec![];
            }
            let (a, b) = live.split_at(live.len() / 2);
            let mut r = assemblable(ptxas, mode, a, target, version);
            r.extend(assemblable(ptxas, mode, b, target, version));
            return r;
        }
        live = keep;
    }
    live
}
