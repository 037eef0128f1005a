//! The `mma` family on the host: fresh and in-place accumulators, a sparse call with its
//! metadata and selector, the selector's legal set enforced when a kernel is built, and the
//! legal sets set against what ptxas accepts.

#[macro_use]
mod common;

use ptxkit::ops::{mma, Kind};
use ptxkit::prelude::*;
use ptxkit::ptxas::{sample, Mode};

fn fresh_in_place_and_sparse_calls() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("mma", |k, (a, b, e, out): (GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<F32>)| {
        let lane = ptx!(k, "mov.u32", sreg::LANEID);
        let i = ptx!(k, "mul.lo.u32", lane, 4u32);
        let af: [Reg<B32>; 4] = std::array::from_fn(|j| k.ld(a.at(i).offset(j as i64)));
        let bf: [Reg<B32>; 4] = std::array::from_fn(|j| k.ld(b.at(i).offset(j as i64)));
        let zero: [Reg<F32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.f32", 0.0f32));
        // D in fresh registers, then D += A*B in place.
        let d = ptx!(k, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", af, [bf[0], bf[1]], zero);
        ptx!(k, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" => d, af, [bf[2], bf[3]], d);
        // 2:4-sparse A: four registers hold the kept half of a 16x32 tile.
        let meta = k.ld(e.at(lane));
        ptx!(k, "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32" => d, af, bf, d, meta, 1u32);
        for (j, r) in d.iter().enumerate() {
            k.st(out.at(i).offset(j as i64), *r);
        }
    })
    .unwrap();
    let text = common::assemble("mma", &m);
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("mma.")).map(str::trim).collect();
    assert_eq!(lines.len(), 3, "{text}");
    let braces = |l: &str| -> Vec<String> { l.split('{').skip(1).map(|p| p[..p.find('}').unwrap()].to_string()).collect() };
    let (fresh, in_place, sparse) = (braces(lines[0]), braces(lines[1]), braces(lines[2]));
    assert_ne!(fresh[0], fresh[3], "{}", lines[0]);
    assert_eq!(in_place[0], in_place[3], "{}", lines[1]);
    assert_eq!(in_place[0], fresh[0], "the in-place call writes the first call's D");
    assert_eq!(sparse[0], sparse[3]);
    assert!(lines[2].ends_with(", 1;"), "{}", lines[2]);
    assert!(text.contains(".target sm_80"));
}

fn a_selector_outside_its_set_is_an_error() {
    let mut m = Module::new(Target::SM_80);
    let r = m.kernel("sparse", |k, ()| {
        let a: [Reg<B32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.b32", 0u32));
        let c: [Reg<F32>; 4] = std::array::from_fn(|_| ptx!(k, "mov.f32", 0.0f32));
        let e = ptx!(k, "mov.b32", 0x4444_4444u32);
        let sel: u32 = 2; // m16n8k16 .tf32 keeps a pair of threads' metadata: 0 or 1
        ptx!(k, "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", a, a, c, e, sel);
    });
    match r {
        Err(e @ Error::ImmediateNotAllowed { value: 2, .. }) => assert!(e.to_string().contains("0, 1"), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// Sparse forms whose selector ptxas 13.0 accepts beyond the PTX ISA's set: the .f16 inputs
/// with .f32 accumulators at m16n8k32 (a pair of threads holds the metadata, so the ISA allows
/// 0 and 1; ptxas takes 0 to 3, and keeps 0 and 1 for the .f16 accumulator and .bf16 forms).
const PTXAS_LENIENT: &[&str] =
    &["mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"];

fn sparsity_selectors_against_ptxas() {
    let px = common::ptxas("sparsity_selectors_against_ptxas");
    let sparse: Vec<&'static ptxkit::ops::FormDesc> = mma::forms().iter().filter(|f| f.chain.starts_with("mma.sp")).collect();
    let legal = |f: &ptxkit::ops::FormDesc| match f.src.last() {
        Some(Kind::ImmIn(_, l)) => *l,
        other => panic!("{}: {other:?}", f.chain),
    };
    let mut accepted: Vec<(&str, i64)> = vec![];
    for v in 0..5i64 {
        // Each form again, its selector set to `v` alone.
        let with_v: Vec<&'static ptxkit::ops::FormDesc> = sparse
            .iter()
            .map(|f| {
                let mut src = f.src.to_vec();
                let Some(Kind::ImmIn(t, _)) = src.last().copied() else { unreachable!() };
                *src.last_mut().unwrap() = Kind::ImmIn(t, Vec::leak(vec![v]));
                &*Box::leak(Box::new(ptxkit::ops::FormDesc { src: Vec::leak(src), ..**f }))
            })
            .collect();
        accepted.extend(sample::assemblable(&px, Mode::Assemble, &with_v, Target::SM_90, Version::MAX).iter().map(|f| (f.chain, v)));
    }
    let mut wrong = vec![];
    for f in &sparse {
        let took: Vec<i64> = accepted.iter().filter(|(c, _)| *c == f.chain).map(|(_, v)| *v).collect();
        let l = legal(f);
        if !l.iter().all(|v| took.contains(v)) {
            wrong.push(format!("{}: ptxas rejects part of {l:?} (takes {took:?})", f.chain));
        }
        if took.iter().any(|v| !l.contains(v)) && !PTXAS_LENIENT.contains(&f.chain) {
            wrong.push(format!("{}: ptxas takes {took:?}, the table {l:?}", f.chain));
        }
    }
    println!("{} sparse forms, selectors 0..4 each at sm_90: ptxas took {} (form, selector) pairs", sparse.len(), accepted.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn main() {
    common::harness::main(&[&[
        host!(fresh_in_place_and_sparse_calls),
        host!(a_selector_outside_its_set_is_an_error),
        host!(sparsity_selectors_against_ptxas),
    ]]);
}
