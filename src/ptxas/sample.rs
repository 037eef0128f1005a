//! Sample instructions for every form, with synthesised operands: what the ptxas sweep and
//! the ptxas tests assemble. The operands are fresh registers of the kinds the form names,
//! so each line is exactly what a typed call of that form emits.

use crate::builder::{Error, Kernel, Module, Target, Version};
use crate::core::ir::Opnd;
use crate::core::{DType, DstKind, FormDesc, Kind, Label, RegClass, Sel, TexMode};

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

/// Coordinates: a fresh register of each type, then the zeros the ignored elements are
/// written as (of the last type).
fn coords(k: &mut Kernel, types: &[DType], pads: u8, run: &mut Vec<Opnd>) {
    run.extend(types.iter().map(|&t| val(k, t)));
    let last = types.last().copied().unwrap_or(DType::B32);
    run.extend((0..pads).map(|_| crate::ops::pad_opnd(last)));
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
            Kind::Imm(_) => Opnd::uint(1),
            Kind::ImmIn(_, legal) => Opnd::int(legal.first().copied().unwrap_or(0)),
            Kind::Vec(t, n) => vec(k, t, n),
            Kind::Label => {
                k.use_label(end);
                Opnd::Label(end.id)
            }
            Kind::Targets => Opnd::Label(k.branch_targets(&[end, end]).0.id),
            Kind::Addr(space, _) => {
                let class = if space.addr_bits() == 32 { RegClass::B32 } else { RegClass::B64 };
                Opnd::Addr(k.alloc(class), 0)
            }
            Kind::Part { ty, sel, neg } => Opnd::Part { reg: k.alloc(ty.class()), sel: sel.map_or(Sel::NONE, |s| s.sample()), neg },
            Kind::HandleAddr(h, types, pads) => {
                let mut run: Vec<Opnd> = (0..h.count()).map(|_| Opnd::Reg(k.alloc(RegClass::B64))).collect();
                coords(k, types, pads, &mut run);
                let (start, _) = k.push_run(&run);
                Opnd::HandleAddr { start, handles: h.count() as u8, coords: (run.len() - h.count()) as u8 }
            }
            Kind::Coords(types, pads) => {
                let mut run = vec![];
                coords(k, types, pads, &mut run);
                let (start, len) = k.push_run(&run);
                Opnd::Vec { start, len }
            }
        };
        ops.push(o);
    }
    k.push_ins(form, None, &mut ops);
}

/// Whether a form's sample goes in a device function rather than the kernel: the
/// `.param::func` loads and stores, which ptxas 13.5 takes only in a function's body (13.0
/// takes them in a kernel too).
fn in_func(form: &FormDesc) -> bool {
    form.chain.contains(".param::func")
}

/// A module with one sample of each form, in order (unchecked: the point is to ask ptxas):
/// the `.param::func` forms in a device function `sample_func`, the others in the kernel
/// `samples`, at `version`. Returns the text and, for each form, the 1-based line its
/// sample is on. The module is in the independent texturing mode if a form needs it (forms
/// of both modes cannot share a module: [`assemblable`] separates them).
pub fn sample_module(forms: &[&'static FormDesc], target: Target, version: Version) -> Result<(String, Vec<usize>), Error> {
    let mut m = Module::new(target);
    m.set_version(version);
    m.unchecked = true;
    if forms.iter().any(|f| f.tex_mode() == Some(TexMode::Independent)) {
        m.set_tex_mode(TexMode::Independent)?;
    }
    let body = |k: &mut Kernel, of_func: bool| {
        let end = k.label();
        for f in forms.iter().filter(|f| in_func(f) == of_func) {
            emit_sample(k, f, end);
        }
        k.place(end);
    };
    if forms.iter().any(|f| in_func(f)) {
        m.func("sample_func", |k, ()| body(k, true))?;
    }
    m.kernel("samples", |k, ()| {
        if forms.iter().any(|f| f.opcode() == "setmaxnreg") {
            k.maxnreg(128); // without a register count at entry the kernel is refused
        }
        body(k, false);
    })?;
    let text = m.to_ptx()?;
    // The function comes first in the text, then the kernel: each body's samples are found in
    // order from where its text begins.
    let kernel_at = text.lines().position(|l| l.contains(".entry samples")).unwrap_or(0);
    let mut in_fn = text.lines().enumerate().take(kernel_at);
    let mut in_kernel = text.lines().enumerate().skip(kernel_at);
    let mut lines = Vec::with_capacity(forms.len());
    for f in forms {
        let pre_a = format!("\t{} ", f.chain);
        let pre_b = format!("\t{};", f.chain);
        let is = |(_, l): &(usize, &str)| l.starts_with(&pre_a) || l.starts_with(&pre_b);
        let found = if in_func(f) { in_fn.find(is) } else { in_kernel.find(is) };
        let line = found.map(|(i, _)| i + 1).unwrap_or(0);
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
        // The module header: the lines before the first body (the device function's, where
        // the `.param::func` samples go, or the kernel's).
        let header = text.lines().position(|l| l.starts_with(".func") || l.starts_with(".visible .entry")).map_or(0, |i| i + 1);
        if bad.iter().any(|l| *l <= header) {
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

/// What ptxas says of one sample line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    /// Accepted with this warning (or advisory) on the line.
    Warned(String),
    /// Rejected with this message.
    Rejected(String),
}

/// Like [`sample_module`], with each form's chain written as given (`ld.u32.global` for
/// `ld.global.u32`): the same operands, another spelling.
pub fn spelt_module(items: &[(&'static FormDesc, &str)], target: Target, version: Version) -> Result<(String, Vec<usize>), Error> {
    let forms: Vec<&'static FormDesc> = items.iter().map(|(f, _)| *f).collect();
    let (text, lines) = sample_module(&forms, target, version)?;
    let mut out: Vec<&str> = text.lines().collect();
    let mut spelt: Vec<String> = Vec::with_capacity(items.len());
    for ((f, s), &l) in items.iter().zip(&lines) {
        // A sample line is `\t{chain} operands;` or `\t{chain};` (line 0: not found).
        let Some(line) = l.checked_sub(1).and_then(|l| out.get(l)) else {
            return Err(Error::InvalidArgument { kernel: "samples".into(), what: format!("no sample line of `{}`", f.chain) });
        };
        spelt.push(format!("\t{s}{}", &line[1 + f.chain.len()..]));
    }
    for (&l, s) in lines.iter().zip(&spelt) {
        out[l - 1] = s;
    }
    let mut t = out.join("\n");
    t.push('\n');
    Ok((t, lines))
}

/// What ptxas says of each spelling (`items` as in [`spelt_module`]) at (`target`,
/// `version`): one ptxas run for them all, again for the lines it did not blame while it
/// rejects the module, and a bisection where it rejects one without blaming a line.
pub fn verdicts(
    ptxas: &std::path::Path,
    mode: crate::ptxas::Mode,
    items: &[(&'static FormDesc, &str)],
    target: Target,
    version: Version,
) -> Vec<Verdict> {
    let mut out = vec![Verdict::Accepted; items.len()];
    let mut live: Vec<usize> = (0..items.len()).collect();
    while !live.is_empty() {
        let sel: Vec<(&'static FormDesc, &str)> = live.iter().map(|&i| items[i]).collect();
        let (text, lines) = match spelt_module(&sel, target, version) {
            Ok(x) => x,
            Err(e) => {
                for &i in &live {
                    out[i] = Verdict::Rejected(format!("no sample module: {e}"));
                }
                break;
            }
        };
        let res = crate::ptxas::check(ptxas, &text, target, mode);
        let msg = match &res {
            Ok(w) => w.join("\n"),
            Err(m) => m.clone(),
        };
        let blamed = crate::ptxas::line_messages(&msg);
        let mut rest = vec![];
        for (&i, l) in live.iter().zip(&lines) {
            match blamed.get(l) {
                Some((true, m)) => out[i] = Verdict::Rejected(m.clone()),
                Some((false, m)) => out[i] = Verdict::Warned(m.clone()),
                None => rest.push(i),
            }
        }
        if res.is_ok() {
            break; // the lines not blamed stay accepted
        }
        if rest.len() == live.len() {
            if let [only] = live[..] {
                out[only] = Verdict::Rejected(msg.lines().next().unwrap_or("rejected").to_string());
                break;
            }
            let (a, b) = live.split_at(live.len() / 2);
            for half in [a, b] {
                let sub: Vec<(&'static FormDesc, &str)> = half.iter().map(|&i| items[i]).collect();
                for (&i, v) in half.iter().zip(verdicts(ptxas, mode, &sub, target, version)) {
                    out[i] = v;
                }
            }
            break;
        }
        live = rest;
    }
    out
}
