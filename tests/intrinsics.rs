//! The intrinsics, read off the PTX they emit (widths, patterns, branches, orderings) and
//! assembled by ptxas. Their values are checked on the GPU in tests/device/intrinsics.rs.

#[macro_use]
mod common;

use ptxkit::intrinsics::order::{self, *};
use ptxkit::intrinsics::vector::{pattern, Align};
use ptxkit::intrinsics::warp::{LaneMask, Shfl};
use ptxkit::prelude::*;

use common::assemble;

fn access_patterns() {
    // (elements, misalignment) -> accesses (position, width)
    assert_eq!(pattern::<F32>(4, 0), [(0, 4)]);
    assert_eq!(pattern::<F32>(4, 1), [(0, 1), (1, 2), (3, 1)]);
    assert_eq!(pattern::<F32>(4, 2), [(0, 2), (2, 2)]);
    assert_eq!(pattern::<F32>(4, 3), [(0, 1), (1, 2), (3, 1)]);
    assert_eq!(pattern::<F32>(8, 0), [(0, 4), (4, 4)]);
    assert_eq!(pattern::<F64>(4, 0), [(0, 2), (2, 2)]);
    assert_eq!(pattern::<F64>(4, 1), [(0, 1), (1, 2), (3, 1)]);
    assert_eq!(pattern::<U8>(16, 0), [(0, 4), (4, 4), (8, 4), (12, 4)]);
    assert_eq!(pattern::<U16>(2, 1), [(0, 1), (1, 1)]);
    assert_eq!(pattern::<F32>(1, 0), [(0, 1)]);
    // Every pattern covers the block exactly, each access aligned to its width.
    for n in [1u32, 2, 4, 8, 16] {
        for mis in 0..n.min(4) {
            let p = pattern::<F32>(n, mis);
            assert_eq!(p.iter().map(|(_, c)| c).sum::<u32>(), n);
            for (pos, c) in p {
                assert!(c.is_power_of_two() && c <= 4);
                assert_eq!((mis + pos) % c, 0, "n={n} mis={mis}: access at {pos} of {c} misaligned");
            }
        }
    }
}

fn vload_widths_follow_the_alignment_mode() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("aligned", |k, (x, y): (GlobalPtr<F32>, GlobalPtr<F32>)| {
        let i = k.global_thread_index_x();
        let e = ptx!(k, "mul.wide.u32", i, 8u32);
        let v = k.vload::<8, _>(x.at(e), Align::Aligned);
        k.vstore(y.at(e), v, Align::Aligned);
    })
    .unwrap();
    let text = assemble("aligned", &m);
    assert_eq!(text.matches("ld.global.v4.f32").count(), 2, "{text}");
    assert_eq!(text.matches("st.global.v4.f32").count(), 2);
    assert!(!text.contains("bra"), "no run-time check when aligned");

    let mut m = Module::new(Target::SM_80);
    m.kernel("offset", |k, (x, y): (GlobalPtr<F64>, GlobalPtr<U16>)| {
        let i = k.global_thread_index_x();
        let e = ptx!(k, "mul.wide.u32", i, 4u32);
        let v = k.vload::<4, _>(x.at(e).offset(1), Align::Offset(1));
        let w = k.vload::<4, _>(y.at(e).offset(2), Align::Offset(2));
        k.vstore(x.at(e).offset(1), v, Align::Offset(1));
        k.vstore(y.at(e).offset(2), w, Align::Offset(2));
    })
    .unwrap();
    let text = assemble("offset", &m);
    assert_eq!(text.matches("ld.global.f64").count(), 2);
    assert_eq!(text.matches("ld.global.v2.f64").count(), 1);
    assert_eq!(text.matches("ld.global.v2.u16").count(), 2);
    assert!(!text.contains("bra"), "a known offset is a static pattern");

    let mut m = Module::new(Target::SM_80);
    m.kernel("unknown", |k, (x, y): (GlobalPtr<U32>, GlobalPtr<U8>)| {
        let i = k.global_thread_index_x();
        let v = k.vload::<4, _>(x.at(i), Align::Unknown);
        let e = ptx!(k, "mul.wide.u32", i, 4u32);
        k.vstore(x.at(e), v, Align::Unknown);
        let e = ptx!(k, "mul.wide.u32", i, 8u32);
        let b = k.vload::<8, _>(y.at(e), Align::Unknown);
        k.vstore(y.at(e), b, Align::Aligned);
    })
    .unwrap();
    let text = assemble("unknown", &m);
    // Each run-time check emits all four patterns: v4 once, then v2 once, twice and once.
    assert_eq!(text.matches("ld.global.v4.u32").count(), 1);
    assert_eq!(text.matches("ld.global.v2.u32").count(), 4);
    assert_eq!(text.matches("st.global.v4.u32").count(), 1);
    assert!(text.matches("bra").count() >= 6, "{text}");
    assert_eq!(text.matches("st.global.v4.u8").count(), 2);
}

/// A vector access at an element index past 2^32 forms its address in 64 bits: a register
/// index is scaled with `mad.lo.u64` (`mad.wide.u32` for a 32-bit one), a constant one is added
/// with `add.s64`; nothing is multiplied in 32 bits. Shared arrays (32-bit addresses) take
/// the symbol itself where the alignment is known.
fn vload_addresses_past_2_32_elements_are_64_bit() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("far", |k, (x, y): (GlobalPtr<F32>, GlobalPtr<F32>)| {
        let far: Reg<U64> = ptx!(k, "mov.u64", 5_000_000_000u64);
        let v = k.vload::<4, _>(x.at(far), Align::Aligned);
        k.vstore(y.at(5_000_000_000u64), v, Align::Aligned);
        let i = k.global_thread_index_x();
        let block = ptx!(k, "mul.wide.u32", i, 4u32);
        let w = k.vload::<4, _>(x.at(block).offset(1_500_000_000), Align::Unknown);
        k.vstore(y.at(block), w, Align::Offset(0));
        let s = k.shared_array::<F32>("tile", 64, 16);
        k.vstore(s, w, Align::Aligned);
        let t = k.vload::<4, _>(s.at(i), Align::Unknown);
        k.vstore(y.at(i), t, Align::Unknown);
    })
    .unwrap();
    let text = assemble("far", &m);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // The line after the one that contains `what`, and that line's destination register.
    let next = |what: &str| {
        let at = lines.iter().position(|l| l.contains(what)).unwrap_or_else(|| panic!("no `{what}`:\n{text}"));
        let dst = lines[at].split([' ', ',']).nth(1).unwrap().to_string();
        (lines[at + 1], dst)
    };
    // A 64-bit register index: scaled in 64 bits, the vector access at the result.
    let (scale, _) = next("mov.u64 %rd5, 5000000000;");
    assert!(scale.starts_with("mad.lo.u64 %rd6, %rd5, 4, "), "{text}");
    let (load, _) = next(scale);
    assert!(load.starts_with("ld.global.v4.f32 ") && load.ends_with("[%rd6];"), "{text}");
    // A constant index: 20,000,000,000 bytes added in a 64-bit register.
    let (store, dst) = next(", 20000000000;");
    assert!(store.starts_with(&format!("st.global.v4.f32 [{dst}], ")), "{text}");
    // A widened block index and a constant offset past 2^32 bytes; the run-time test reads
    // the low bits of the 64-bit address.
    let (scale, block) = next("mul.wide.u32 ");
    assert!(scale.starts_with(&format!("mad.lo.u64 %rd9, {block}, 4, ")), "{text}");
    let (test, dst) = next(", 6000000000;");
    assert_eq!(test, format!("cvt.u32.u64 %r13, {dst};"), "{text}");
    // No index is multiplied in 32 bits, except into the shared window's 32-bit addresses.
    assert!(!text.contains("mul.lo.u32"), "{text}");
    assert!(lines.iter().filter(|l| l.starts_with("mad.lo.u32")).all(|l| l.ends_with("%r7, %r6, %r5;") || l.ends_with("%r20;")), "{text}");
    assert!(text.contains("mov.u32 %r20, tile;") && text.contains("st.shared.v4.f32 [tile], "), "{text}");
}

fn ordering_table_covers_every_combination_once() {
    let orderings = ["Weak", "Volatile", "Relaxed", "Acquire", "Release", "AcqRel", "SeqCst"];
    let scopes = ["NoScope", "Cta", "Cluster", "Gpu", "Sys"];
    for (o, s, ld, st, fe) in order::TABLE {
        assert!(orderings.contains(o) && scopes.contains(s));
        for (c, sfx) in [(ld, ".global.u32"), (st, ".global.u32"), (fe, "")] {
            if let Some(c) = c {
                let chain = format!("{c}{sfx}");
                assert!(ptxkit::ops::all_forms().any(|f| f.chain == chain && f.variant == "plain"), "table row {o} {s}: no form `{chain}`");
            }
        }
        let scoped = *s != "NoScope";
        assert_eq!(scoped, !["Weak", "Volatile"].contains(o), "{o} {s}");
    }
    // A weak access is `k.ld`/`k.st`, not a row: one spelling per instruction.
    assert!(order::TABLE.iter().all(|(o, ..)| *o != "Weak"));
    assert_eq!(order::TABLE.len(), 1 + 5 * 4);
    let mut m = Module::new(Target::SM_90);
    m.kernel("orders", |k, (x,): (GlobalPtr<U32>,)| {
        let a = k.ld_ordered(Acquire, Cluster, x.offset(0));
        let b = k.ld_ordered(Volatile, NoScope, x.offset(1));
        let c = k.ld_ordered(Relaxed, Sys, x.offset(2));
        k.st_ordered(Release, Cta, x.offset(3), a);
        k.st_ordered(Relaxed, Gpu, x.offset(4), b);
        k.st(x.offset(5), c);
        k.fence(AcqRel, Gpu);
        k.fence(Acquire, Cta);
        k.fence(SeqCst, Cluster);
        let s = k.shared_array::<U32>("s", 4, 4);
        let d = k.ld_ordered(Acquire, Cta, s.offset(0));
        k.st_ordered(Release, Cta, s.offset(1), d);
    })
    .unwrap();
    let text = assemble("orders", &m);
    for want in [
        "ld.acquire.cluster.global.u32",
        "ld.volatile.global.u32",
        "ld.relaxed.sys.global.u32",
        "st.release.cta.global.u32",
        "st.relaxed.gpu.global.u32",
        "fence.acq_rel.gpu;",
        "fence.acq_rel.cta;",
        "fence.sc.cluster;",
        "ld.acquire.cta.shared.u32",
        "st.release.cta.shared.u32",
    ] {
        assert!(text.contains(want), "missing {want}");
    }
}

fn warp_and_block_collectives_assemble_for_any_value() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("collectives", |k, (x, y): (GlobalPtr<U64>, GlobalPtr<U32>)| {
        let i = k.global_thread_index_x();
        let a = k.ld(x.at(i));
        let b = k.ld(y.at(i));
        let f = ptx!(k, "cvt.rn.f32.u32", b);
        let p = ptx!(k, "setp.lt.u32", b, 7u32);
        let h = ptx!(k, "cvt.u16.u32", b);
        // Shuffles of a 64-bit value, a struct (tuple) and an array, and a predicate.
        let s = k.shfl(Shfl::Down, (a, f, h), 3u32, LaneMask::FULL);
        let t = k.shfl(Shfl::Idx, [b, b, b], 5u32, LaneMask::FULL);
        let q = k.shfl(Shfl::Xor, p, 1u32, LaneMask::FULL);
        // A non-commutative operator: composition of affine maps x -> a*x + b.
        let compose = |k: &mut Kernel, (a1, b1): (Reg<U32>, Reg<U32>), (a2, b2): (Reg<U32>, Reg<U32>)| {
            let a = ptx!(k, "mul.lo.u32", a1, a2);
            let bb = ptx!(k, "mad.lo.u32", a2, b1, b2);
            (a, bb)
        };
        let mask = ptx!(k, "vote.sync.ballot.b32", p, 0xffff_ffffu32);
        let incl = k.warp_scan((b, t[1]), LaneMask::FULL, compose);
        let one = ptx!(k, "mov.u32", 1u32);
        let zero = ptx!(k, "mov.u32", 0u32);
        k.if_(p, |k| {
            let ex = k.warp_scan_exclusive((b, b), (one, zero), LaneMask::reg(mask), compose);
            let r = k.warp_reduce(a, mask, |k, u, v| ptx!(k, "add.u64", u, v));
            k.st(x.at(i), r);
            k.st(y.at(i), ex.1);
        });
        let bs = k.block_scan::<128, _>(s.0, |k, u, v| ptx!(k, "add.u64", u, v));
        let be = k.block_scan_exclusive::<128, _>(incl, (one, zero), compose);
        let br = k.block_reduce::<128, _>(q, |k, u, v| ptx!(k, "or.pred", u, v));
        let all = k.vote_all(br, LaneMask::FULL);
        let sel = ptx!(k, "selp.u32", be.0, be.1, all);
        k.st(y.at(i), sel);
        k.st(x.at(i), bs);
    })
    .unwrap();
    let text = assemble("collectives", &m);
    assert!(text.contains("fns.b32") && text.contains("shfl.sync.idx.b32"), "masked scans find partners with fns");
    assert!(text.contains("bar.sync 0;"));
}

fn scans_and_reductions_are_real_loops() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("one_scan", |k, (x,): (GlobalPtr<U32>,)| {
        let i = k.global_thread_index_x();
        let v = k.ld(x.at(i));
        let s = k.warp_scan(v, LaneMask::FULL, |k, a, b| ptx!(k, "add.u32", a, b));
        let r = k.warp_reduce(s, LaneMask::FULL, |k, a, b| ptx!(k, "max.u32", a, b));
        k.st(x.at(i), r);
    })
    .unwrap();
    let text = assemble("one_scan", &m);
    // One shuffle and one operator per loop body, five trips at run time.
    assert_eq!(text.matches("shfl.sync.up.b32").count(), 1, "{text}");
    assert_eq!(text.matches("shfl.sync.bfly.b32").count(), 1);
    assert_eq!(text.matches("max.u32").count(), 1);
    let back_edges = text.lines().filter(|l| l.trim_start().starts_with("bra ")).count();
    assert!(back_edges >= 2, "each loop needs a back edge:\n{text}");
}

/// A commutative reduction over the full warp is the hand-written butterfly: per trip, the
/// distance, one `shfl.sync.bfly` per word, the operator and the loop-carried copy, and no
/// lane-order bookkeeping (`and`, `setp`, `selp`); the ordered one keeps its bookkeeping.
fn commutative_warp_reduction_is_the_plain_butterfly() {
    let body = |commutative: bool| {
        let mut m = Module::new(Target::SM_80);
        m.kernel("warp_sum", |k, (x,): (GlobalPtr<F32>,)| {
            let i = k.global_thread_index_x();
            let v = k.ld(x.at(i));
            let add = |k: &mut Kernel, a: Reg<F32>, b: Reg<F32>| ptx!(k, "add.f32", a, b);
            let r = if commutative { k.warp_reduce_commutative(v, LaneMask::FULL, add) } else { k.warp_reduce(v, LaneMask::FULL, add) };
            k.st(x.at(i), r);
        })
        .unwrap();
        let text = assemble("warp_sum", &m);
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let start = lines.iter().position(|l| l.starts_with("$L__") && l.ends_with(':')).expect("a loop label");
        let end = start + lines[start..].iter().position(|l| l.starts_with("bra $L__")).expect("a back edge");
        let ops: Vec<String> = lines[start + 1..end]
            .iter()
            .map(|l| l.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or_default().to_string())
            .collect();
        ops
    };
    assert_eq!(body(true), ["setp.ge.u32", "bra", "shl.b32", "shfl.sync.bfly.b32", "add.f32", "mov.b32", "add.u32"]);
    let ordered = body(false);
    assert!(ordered.iter().filter(|o| o.starts_with("selp")).count() >= 2 && ordered.contains(&"and.b32".to_string()), "{ordered:?}");
}

fn main() {
    common::harness::main(&[&[
        host!(commutative_warp_reduction_is_the_plain_butterfly),
        host!(access_patterns),
        host!(vload_widths_follow_the_alignment_mode),
        host!(vload_addresses_past_2_32_elements_are_64_bit),
        host!(ordering_table_covers_every_combination_once),
        host!(warp_and_block_collectives_assemble_for_any_value),
        host!(scans_and_reductions_are_real_loops),
    ]]);
}
