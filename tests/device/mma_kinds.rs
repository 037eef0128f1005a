//! sm_120a's `mma.sync` kinds against the CPU reference of `mma.rs`: `kind::f8f6f4` over every
//! pairing of e4m3, e5m2, e3m2, e2m3 and e2m1 into f32 and f16, and the block-scaled
//! `kind::mxf8f6f4` (ue8m0, `scale_vec::1X`), `kind::mxf4` (ue8m0, 2X) and `kind::mxf4nvf4`
//! (ue8m0 2X, ue4m3 4X), through `mma.rs`'s harness: per-thread fragments from the PTX ISA's
//! layouts (m16n8k32 for the 8-bit containers, m16n8k64 for packed e2m1), fresh random tiles,
//! poisoned outputs, the f64 product within the fp8 bound.
//!
//! FP6 and FP4 elements of `kind::f8f6f4`/`mxf8f6f4` sit in 8-bit containers (e3m2 and e2m3 in
//! the low 6 bits, e2m1 in bits 2–5; PTX ISA 9.0, 9.7.14.5.14); `mxf4`/`mxf4nvf4` take e2m1
//! packed eight to a register. Every thread's scale-a-data and scale-b-data words are random,
//! the `{byte-id, thread-id}` selectors a random legal choice each round, so the reference
//! reads the scale from the thread and byte the selectors name (9.7.14.3; see
//! `Round::scale`) and every other byte is a decoy.
//!
//! The forms run on the GPU's architecture-specific target where ptxas takes them: all of
//! them on sm_120a/sm_121a, the e4m3/e5m2 `kind::f8f6f4` ones also on sm_100a, sm_103a and
//! sm_110a. Elsewhere (Hopper) the test ends as ignored with the reason.

use super::mma::{check, forms, hopper_forms, run_all_on, Check, Env, Mma};
use super::*;
use ptxkit::ops::mma;
use rand::rngs::StdRng;
use std::marker::PhantomData;

fn kind_forms() -> Vec<(&'static str, Check)> {
    let mut v = forms!(in_place B32:
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e4m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e5m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e3m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e4m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e5m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e3m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e5m2.e2m1.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e4m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e5m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e3m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e3m2.e2m1.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e4m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e5m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e3m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m3.e2m1.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e5m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m3.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e4m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e5m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e3m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e4m3.e2m1.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e4m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e5m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e3m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e5m2.e2m1.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e4m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e5m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e3m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e3m2.e2m1.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e4m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e5m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e3m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e4m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e5m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e3m2.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m3.f16"
        "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f16.e2m1.e2m1.f16"
    );
    v.extend(forms!(scaled B32:
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e5m2.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e5m2.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e5m2.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e5m2.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e5m2.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e3m2.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e3m2.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e3m2.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e3m2.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e3m2.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m3.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m3.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m3.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m3.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m3.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e2m1.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e5m2.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m3.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e4m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e5m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e3m2.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m3.f32.ue8m0"
        "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e2m1.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0"
        "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"
    ));
    v
}

fn mma_kind_forms(gpu: Gpu) {
    let cc = gpu.compute_capability();
    let forms = kind_forms();
    let runs = |t: &Target| forms.iter().any(|(c, _)| Mma::parse(c).desc().req().is_some_and(|r| r.allows(*t)));
    let Some(t) = Target::parse(&format!("sm_{}{}a", cc.0, cc.1)).filter(runs) else {
        skip(format!(
            "needs sm_120a (compute capability 12.x; the e4m3/e5m2 kind::f8f6f4 forms also sm_100a, sm_103a, sm_110a): the GPU is {cc:?}"
        ));
    };
    run_all_on(&gpu, t, "mma_kind_forms", forms);
}

/// The kinds listed here are exactly the table's forms that `hopper_forms` leaves out.
fn every_kind_form_has_a_device_check() {
    let listed: std::collections::BTreeSet<&str> = kind_forms().into_iter().map(|(c, _)| c).collect();
    let hopper: std::collections::BTreeSet<&str> = hopper_forms().map(|f| f.chain).collect();
    let rest: std::collections::BTreeSet<&str> = mma::forms().iter().map(|f| f.chain).filter(|c| !hopper.contains(c)).collect();
    assert_eq!(listed, rest);
    assert_eq!(listed.len(), 104);
}

/// Packing, scale words and selectors, the reference and the comparison, through the CPU model
/// of the instruction.
fn kind_forms_round_trip_through_the_cpu_model() {
    let mut g = rng("kind_forms_round_trip_through_the_cpu_model");
    let failed: Vec<String> = kind_forms().into_iter().filter_map(|(_, check)| check(&mut Env::Cpu, &mut g).err()).collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Every kernel of the GPU test, assembled by ptxas for sm_120a with no warning.
fn kind_kernels_assemble() {
    let px = ptxas("kind_kernels_assemble");
    let mut g = rng("kind_kernels_assemble");
    let mut m = Module::new(Target::SM_120A);
    for (chain, check) in kind_forms() {
        check(&mut Env::Build(&mut m), &mut g).unwrap_or_else(|e| panic!("{chain}: {e}"));
    }
    let text = m.to_ptx().unwrap();
    let said = ptxkit::ptxas::check(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}"));
    assert!(said.is_empty(), "ptxas: {said:?}");
    assert_eq!(text.matches("\tmma.sync.aligned.").count(), 104);
    assert_eq!(text.lines().filter(|l| l.trim_start().starts_with("mma.") && l.contains(".block_scale")).count(), 54);
}

pub const TESTS: &[Test] = &[
    gpu!(mma_kind_forms),
    host!(every_kind_form_has_a_device_check),
    host!(kind_forms_round_trip_through_the_cpu_model),
    host!(kind_kernels_assemble),
];
