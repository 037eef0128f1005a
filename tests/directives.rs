//! Kernel directives together, checked against ptxas both ways: what the builder accepts
//! ptxas takes without a word, and each combination the builder refuses, written into the
//! text by hand, draws ptxas's error or the warning that it ignores a directive.

#[macro_use]
mod common;

use ptxkit::prelude::*;
use ptxkit::ptxas::{check, Mode};
use ptxkit::Error;

/// A kernel of `directives` (and `setmaxnreg` where `body_setmaxnreg`) on `target`.
fn build(target: Target, directives: impl FnOnce(&mut Kernel), body_setmaxnreg: bool) -> Result<String, Error> {
    let mut m = Module::new(target);
    m.max_version(Version::NEWEST); // sm_107 needs ISA 9.4
    m.kernel("k", |k, ()| {
        directives(k);
        if body_setmaxnreg {
            ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<240>);
        }
    })?;
    m.to_ptx()
}

/// What ptxas says of `text` beyond a clean assembly: its error log, or its warnings.
fn ptxas_objects(px: &std::path::Path, text: &str, target: Target) -> Vec<String> {
    match check(px, text, target, Mode::Assemble) {
        Ok(w) => w,
        Err(e) => vec![e],
    }
}

/// `.minnctapersm` up to the CTAs and threads an SM holds (`Target::per_sm`), for every
/// architecture: the bound itself assembles cleanly, one more is refused by the builder, and
/// ptxas warns that it ignores that one.
fn minnctapersm_bounds_match_ptxas() {
    let px = common::ptxas("minnctapersm_bounds_match_ptxas");
    // The architectures this ptxas knows (13.0.88 has no sm_107; `.ci/run` runs the test
    // under 13.5 too).
    let mut archs: Vec<Target> =
        common::Release::of(&px).targets().into_iter().filter(|t| t.suffix() == ptxkit::builder::Suffix::None).collect();
    archs.dedup_by_key(|t| t.sm());
    for t in archs {
        let (ctas, threads) = t.per_sm();
        // (block, CTAs): the CTA bound with 32 threads each, the thread bound with 512.
        for (block, n) in [(32, ctas), (512, threads / 512)] {
            let ok = build(
                t,
                |k| {
                    k.maxntid(block, 1, 1);
                    k.minnctapersm(n);
                },
                false,
            )
            .unwrap_or_else(|e| panic!("{t}: {block} threads, {n} CTAs: {e}"));
            assert_eq!(ptxas_objects(&px, &ok, t), Vec::<String>::new(), "{t}: {block} threads, {n} CTAs");
            let e = build(
                t,
                |k| {
                    k.maxntid(block, 1, 1);
                    k.minnctapersm(n + 1);
                },
                false,
            )
            .unwrap_err();
            assert!(e.to_string().contains(&format!(".minnctapersm {}", n + 1)), "{t}: {e}");
            let over = ok.replace(&format!(".minnctapersm {n}\n"), &format!(".minnctapersm {}\n", n + 1));
            let said = ptxas_objects(&px, &over, t);
            assert!(
                said.iter().any(|w| w.contains("minnctapersm") && w.contains("ignored")),
                "{t}: {block} threads, {} CTAs: {said:?}",
                n + 1
            );
        }
    }
}

/// Pairs ptxas refuses: `.maxntid` with `.reqntid`, `.reqnctapercluster` with
/// `.maxclusterrank`.
fn conflicting_directives_are_errors() {
    let px = common::ptxas("conflicting_directives_are_errors");
    let t = Target::SM_90;
    let cases: [(fn(&mut Kernel), fn(&mut Kernel), &str); 2] = [
        (|k| k.maxntid(128, 1, 1), |k| k.reqntid(128, 1, 1), "\n.reqntid 128, 1, 1\n"),
        (|k| k.reqnctapercluster(2, 1, 1), |k| k.maxclusterrank(2), "\n.maxclusterrank 2\n"),
    ];
    for (first, second, line) in cases {
        let alone = build(t, first, false).unwrap();
        let e = build(
            t,
            |k| {
                first(k);
                second(k);
            },
            false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("cannot both be given"), "{e}");
        let both = alone.replacen("\n{", &format!("{}{{", line), 1);
        let said = ptxas_objects(&px, &both, t);
        assert!(said.iter().any(|w| w.contains("Conflicting directives")), "{said:?}\n{both}");
    }
}

/// `setmaxnreg` needs the register count at entry: `.maxnreg`, or `.minnctapersm` with a
/// block size; with `.reqntid` alone the builder refuses it, and ptxas would drop it (C7508).
fn setmaxnreg_needs_a_register_count_at_entry() {
    let px = common::ptxas("setmaxnreg_needs_a_register_count_at_entry");
    let t = Target::SM_90A;
    let fine: [fn(&mut Kernel); 3] = [
        |k| k.maxnreg(128),
        |k| {
            k.reqntid(128, 1, 1);
            k.minnctapersm(1)
        },
        |k| {
            k.maxntid(256, 1, 1);
            k.minnctapersm(2)
        },
    ];
    for d in fine {
        let text = build(t, d, true).unwrap();
        assert_eq!(ptxas_objects(&px, &text, t), Vec::<String>::new(), "{text}");
    }
    let e = build(t, |k| k.reqntid(128, 1, 1), true).unwrap_err();
    assert!(e.to_string().contains("setmaxnreg needs the register count at entry"), "{e}");
    let bare = build(t, |k| k.reqntid(128, 1, 1), false).unwrap();
    let with = bare.replacen("\tret;", "\tsetmaxnreg.inc.sync.aligned.u32 240;\n\tret;", 1);
    let said = ptxas_objects(&px, &with, t);
    assert!(said.iter().any(|w| w.contains("setmaxnreg") && w.contains("ignored")), "{said:?}\n{with}");
}

/// `ptxas::report` on real ptxas output: a lean kernel's registers within a `.maxnreg`
/// and nothing wrong; a kernel whose local array is indexed at run time gets a stack frame
/// at least the array's size, which `check_clean` names.
fn ptxas_report_reads_each_kernel() {
    let px = common::ptxas("ptxas_report_reads_each_kernel");
    let mut m = Module::new(Target::SM_90A);
    m.kernel("lean", |k, (out, v): (GlobalPtr<U32>, Reg<U32>)| {
        k.maxnreg(32);
        let i = k.global_thread_index_x();
        let w = ptx!(k, "add.u32", v, i);
        k.st(out.at(i), w);
    })
    .unwrap();
    m.kernel("framed", |k, (out, v): (GlobalPtr<U32>, Reg<U32>)| {
        let buf = k.local_array::<U32>("buf", 64, 4);
        let i = k.global_thread_index_x();
        let slot = ptx!(k, "and.b32", i.bitcast::<B32>(), 63u32).bitcast::<U32>();
        k.st(buf.at(slot), v);
        let other = ptx!(k, "xor.b32", slot.bitcast::<B32>(), 1u32).bitcast::<U32>();
        let x = k.ld(buf.at(other));
        k.st(out.at(i), x);
    })
    .unwrap();
    let report = ptxkit::ptxas::report(&px, &m.to_ptx().unwrap(), Target::SM_90A).unwrap();
    println!("{report:#?}");
    let lean = report.kernel("lean").expect("lean's report");
    assert!(lean.registers > 0 && lean.registers <= 32, "{lean:?}");
    assert!(lean.problems(Some(32)).is_empty(), "{:?}", lean.problems(Some(32)));
    let framed = report.kernel("framed").expect("framed's report");
    assert!(framed.stack_frame >= 256, "{framed:?}");
    let err = report.check_clean(None).unwrap_err();
    assert!(err.contains("framed: a stack frame of") && !err.contains("lean"), "{err}");
}

fn main() {
    common::harness::main(&[&[
        host!(ptxas_report_reads_each_kernel),
        host!(minnctapersm_bounds_match_ptxas),
        host!(conflicting_directives_are_errors),
        host!(setmaxnreg_needs_a_register_count_at_entry),
    ]]);
}
