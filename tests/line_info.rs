//! Line info (`Module::set_line_info`): each instruction's `.loc` names the Rust line that
//! emitted it. `ptx!` and the typed calls name their own line; helpers (`k.ld`, a warp
//! reduction, a descriptor) the line that called them; a kernel's parameter loads and
//! closing `ret` the `Module::kernel` call. ptxas assembles the text with `-lineinfo`
//! without a word; off, the text has no `.file` or `.loc`.

#[macro_use]
mod common;

use ptxkit::prelude::*;
use std::process::Command;

/// A kernel of a `ptx!` chain, two helpers and a store, with the line of each call.
fn build(on: bool) -> (String, [u32; 5]) {
    let mut m = Module::new(Target::SM_90A);
    m.set_line_info(on);
    let mut lines = [0; 5];
    lines[0] = line!() + 2; // the `m.kernel` call, past the attribute
    #[rustfmt::skip]
    m.kernel("k", |k, (out, v): (GlobalPtr<U32>, Reg<U32>)| {
        let i = k.global_thread_index_x(); lines[1] = line!();
        let w = ptx!(k, "add.u32", v, i); lines[2] = line!();
        let s = k.warp_reduce_commutative(w, LaneMask::FULL, |k: &mut Kernel, a, b| ptx!(k, "add.u32", a, b)); lines[3] = line!();
        k.st(out.at(i), s); lines[4] = line!();
    })
    .unwrap();
    (m.to_ptx().unwrap(), lines)
}

/// The `.loc` line numbers in `text`, in order, for file 1.
fn loc_lines(text: &str) -> Vec<u32> {
    text.lines().filter_map(|l| l.trim().strip_prefix(".loc 1 ")).map(|r| r.split(' ').next().unwrap().parse().unwrap()).collect()
}

fn every_instruction_names_the_rust_line_that_emitted_it() {
    let (text, [kernel, index, add, reduce, store]) = build(true);
    assert!(text.contains(".file 1 \"tests/line_info.rs\""), "{text}");
    assert_eq!(text.matches(".file ").count(), 1, "only this file emitted instructions:\n{text}");
    let seen = loc_lines(&text);
    // Parameters, then each call in order (the reduction's loop and its operator's `add`
    // both name the reduction's line: the operator closure is the caller's code on that
    // line), then the closing `ret`.
    let mut want = vec![kernel, index, add, reduce, store, kernel];
    want.dedup();
    let mut got = seen.clone();
    got.dedup();
    assert_eq!(got, want, "the .loc lines in order:\n{text}");
    // Every instruction is under a `.loc`: the first statement line after the declarations is one.
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim().starts_with(".reg"))
        .skip_while(|l| l.trim().starts_with(".reg"))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert!(body[0].trim().starts_with(".loc 1 "), "{body:?}");
    let px = common::ptxas("every_instruction_names_the_rust_line_that_emitted_it");
    let file = std::env::temp_dir().join(format!("ptxkit-line-info-{}.ptx", std::process::id()));
    std::fs::write(&file, &text).unwrap();
    let out = Command::new(&px).args(["-lineinfo", "-arch", "sm_90a"]).arg(&file).args(["-o", "/dev/null"]).output().unwrap();
    let _ = std::fs::remove_file(&file);
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "ptxas -lineinfo: {said}\n{text}");
}

fn off_the_text_has_no_line_info() {
    let (off, _) = build(false);
    assert!(!off.contains(".file") && !off.contains(".loc"), "{off}");
    let (on, _) = build(true);
    let stripped: String =
        on.lines().filter(|l| !l.trim().starts_with(".loc ") && !l.starts_with(".file ")).map(|l| format!("{l}\n")).collect();
    // The same instructions either way: only the `.file` block's blank line differs.
    assert_eq!(stripped.replacen("\n\n\n", "\n\n", 1), off);
}

/// The SASS (ptxas `-lineinfo`, then nvdisasm) names the Rust line of each instruction:
/// the index reads, the shuffles, the store, the exit.
fn sass_names_the_rust_line_of_each_instruction() {
    let (text, [kernel, index, _, reduce, store]) = build(true);
    let px = common::ptxas("sass_names_the_rust_line_of_each_instruction");
    let Some(nvdisasm) = ptxkit::ptxas::find_nvdisasm() else {
        common::harness::skip("nvdisasm not found (python3 -m pip install nvidia-cuda-nvdisasm, or set NVDISASM)")
    };
    let sass = ptxkit::ptxas::sass(&px, &nvdisasm, &text, Target::SM_90A).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let k = sass.kernel("k").unwrap_or_else(|| panic!("no kernel `k` in:\n{sass}"));
    let at = |op: &str| -> Vec<u32> {
        k.lines
            .iter()
            .filter(|l| l.text.starts_with(op))
            .map(|l| l.source.as_ref().map_or(0, |(f, n)| if f == file!() { *n } else { 0 }))
            .collect()
    };
    let all = |op: &str, line: u32, what: &str| {
        let seen = at(op);
        assert!(!seen.is_empty() && seen.iter().all(|&n| n == line), "{what} ({op}) at lines {seen:?}, not {line}:\n{sass}");
    };
    all("S2R", index, "the thread and CTA index reads");
    all("SHFL.BFLY", reduce, "the warp reduction's shuffles");
    all("STG.E", store, "the store");
    all("EXIT", kernel, "the closing ret");
    assert_eq!(at("SHFL.BFLY").len(), 5, "{sass}");
    assert!(k.lines.iter().all(|l| l.source.as_ref().is_some_and(|(f, _)| f == file!())), "{sass}");
    println!("{sass}");
}

/// Control flow, loops, barriers, rings, deadlines and accumulators emit under the line
/// of the call that asked for them: no instruction names a file of the library.
fn builder_and_helper_instructions_name_the_callers_file() {
    use ptxkit::intrinsics::mbarrier::{Deadline, Publish, Ring};
    let mut m = Module::new(Target::SM_90A);
    m.set_line_info(true);
    m.kernel("k", |k, (out, n): (GlobalPtr<U32>, Reg<U32>)| {
        let ring = Ring::new(k, "ring", 2);
        ring.init(k, 1, 1, Publish::CtaAsync);
        let d = Deadline::new(k, 100).recording(out);
        let t = k.thread_rank();
        let acc = ptx!(k, "mov.u32", 0u32);
        k.for_range(0u32, n, 1, |k, i| {
            let s = ring.slot(k, i);
            s.acquire(k, &d);
            let _ = s.full.arrive(k);
            s.wait(k, &d);
            s.release(k);
            let late = d.timed_out(k);
            k.if_else(
                late,
                |k| k.assign(acc, 7u32),
                |k| {
                    ptx!(k, "add.u32" => acc, acc, i);
                },
            );
        });
        let j = ptx!(k, "mov.u32", 0u32);
        k.while_(
            |k| ptx!(k, "setp.lt.u32", j, 4u32),
            |k| {
                ptx!(k, "add.u32" => j, j, 1u32);
            },
        );
        k.switch_(t, 2, |k, c| k.assign(acc, c as u32));
        let first = ptx!(k, "setp.eq.u32", t, 0u32);
        k.guarded(first, |k| k.st(out.at(t), acc));
        let z: ptxkit::ops::Acc<F32, 4> = k.zeroed_acc();
        k.if_(first, |k| k.st(out.cast::<F32>().at(j), z[0]));
    })
    .unwrap();
    let text = m.to_ptx().unwrap();
    let files: Vec<&str> = text.lines().filter(|l| l.starts_with(".file ")).collect();
    assert_eq!(files, [".file 1 \"tests/line_info.rs\""], "{text}");
    common::assemble("builder_and_helper_instructions_name_the_callers_file", &m);
}

fn main() {
    common::harness::main(&[&[
        host!(every_instruction_names_the_rust_line_that_emitted_it),
        host!(off_the_text_has_no_line_info),
        host!(sass_names_the_rust_line_of_each_instruction),
        host!(builder_and_helper_instructions_name_the_callers_file),
    ]]);
}
