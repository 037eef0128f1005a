//! Guards read from the PTX: a guard passed with `ptx!(k, @p, ...)` lands on that
//! instruction and not on the address arithmetic lowered for it; `Kernel::guarded` puts its
//! guard on every instruction a helper emits, and an instruction with a guard of its own
//! inside the scope (a loop's branch, a nested scope) gets the conjunction of both.

#[macro_use]
mod common;

use common::assemble;
use ptxkit::intrinsics::vector::Align;
use ptxkit::prelude::*;

/// The instruction lines between the comments `begin` and `end`.
fn between<'a>(text: &'a str, begin: &str, end: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = text.lines().collect();
    let a = lines.iter().position(|l| l.trim() == format!("// {begin}")).expect("begin marker");
    let b = lines.iter().position(|l| l.trim() == format!("// {end}")).expect("end marker");
    lines[a + 1..b].iter().map(|l| l.trim()).filter(|l| !l.is_empty() && !l.ends_with(':')).collect()
}

fn guard_of(line: &str) -> Option<&str> {
    line.strip_prefix('@').map(|r| r.split_whitespace().next().unwrap_or(""))
}

fn an_explicit_guard_lands_on_its_instruction() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("explicit", |k, (x, y, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let p = ptx!(k, "setp.lt.u32", i, n);
        k.comment("begin");
        let v = ptx!(k, @p, "ld.global.u32", x.at(i));
        ptx!(k, @!p, "st.global.u32", y.at(i), v);
        k.comment("end");
    })
    .unwrap();
    let text = assemble("explicit", &m);
    let body = between(&text, "begin", "end");
    // Address arithmetic is unguarded; only the access itself is.
    let ld = body.iter().position(|l| l.contains("ld.global.u32")).unwrap();
    let st = body.iter().position(|l| l.contains("st.global.u32")).unwrap();
    assert!(body[ld].starts_with("@%p1 ld.global.u32"), "{text}");
    assert!(body[st].starts_with("@!%p1 st.global.u32"), "{text}");
    assert!(body.iter().filter(|l| l.contains("mad.wide.u32")).all(|l| guard_of(l).is_none()), "{text}");
}

fn a_guarded_scope_guards_every_instruction_of_a_helper() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("scoped", |k, (x, y, n): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let p = ptx!(k, "setp.lt.u32", i, n);
        k.comment("begin");
        k.guarded(p, |k| {
            let v = k.ld(x.at(i));
            k.st(y.at(i), v);
        });
        k.comment("end");
    })
    .unwrap();
    let text = assemble("scoped", &m);
    let body = between(&text, "begin", "end");
    assert!(body.len() >= 4, "{text}");
    assert!(body.iter().all(|l| guard_of(l) == Some("%p1")), "every instruction of the scope carries @%p1:\n{text}");
    assert!(body.iter().any(|l| l.starts_with("@%p1 mad.wide.u32")) && body.iter().any(|l| l.starts_with("@%p1 ld.global.f32")));
}

fn guards_inside_a_scope_are_conjoined() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("conjoined", |k, (x, y, n): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let p = ptx!(k, "setp.lt.u32", i, n);
        let q = ptx!(k, "setp.ne.u32", i, 7u32);
        k.comment("begin");
        k.guarded(!p, |k| {
            // A run-time alignment check: branches with guards of their own.
            let v = k.vload::<4, _>(x.at(i), Align::Unknown);
            k.guarded(q, |k| k.vstore(y.at(i), v, Align::Unknown));
            k.raw("membar.cta");
        });
        k.comment("end");
    })
    .unwrap();
    let text = assemble("conjoined", &m);
    let body = between(&text, "begin", "end");
    // Conjunctions are computed unguarded, so they are defined in every thread.
    let helpers: Vec<&&str> = body.iter().filter(|l| l.starts_with("and.pred") || l.starts_with("not.pred")).collect();
    assert!(helpers.len() >= 3, "{text}");
    for l in &body {
        if l.starts_with("and.pred") || l.starts_with("not.pred") {
            continue;
        }
        let g = guard_of(l).unwrap_or_else(|| panic!("unguarded `{l}` inside the scope:\n{text}"));
        // The outer scope's own guard is the negation of %p1; anything else is a conjunction.
        assert!(g == "!%p1" || helpers.iter().any(|h| h.contains(&format!(" {g},"))), "`{l}` has an unknown guard:\n{text}");
    }
    assert!(body.contains(&"@!%p1 membar.cta;"), "raw text takes the scope's guard:\n{text}");
    // A branch inside the scope is guarded by a conjunction, not by the scope's guard alone.
    assert!(body.iter().any(|l| l.contains(" bra ") && guard_of(l) != Some("!%p1")), "{text}");
}

fn raw_text_with_its_own_guard_is_refused_in_a_scope() {
    let mut m = Module::new(Target::SM_80);
    let r = m.kernel("raw_guard", |k, (n,): (Reg<U32>,)| {
        let p = ptx!(k, "setp.ne.u32", n, 0u32);
        k.guarded(p, |k| k.raw("@%p1 membar.cta"));
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
}

fn main() {
    common::harness::main(&[&[
        host!(an_explicit_guard_lands_on_its_instruction),
        host!(a_guarded_scope_guards_every_instruction_of_a_helper),
        host!(guards_inside_a_scope_are_conjoined),
        host!(raw_text_with_its_own_guard_is_refused_in_a_scope),
    ]]);
}
