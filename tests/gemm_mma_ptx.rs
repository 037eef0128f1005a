//! Every variant of the sm_80 (`mma.sync`) GEMM assembles with ptxas, for sm_80 and for
//! sm_90, with no warning, no spill and no stack frame, in bf16 and f32 C; and its
//! configuration checks refuse what the kernel cannot build.
//!
//! `PTXKIT_DUMP_PTX=dir` also writes each module's text there (for reading the SASS).

#[macro_use]
mod common;
use ptxkit::kernels::gemm::{ampere, check_mma_shape, gemm_tn_mma, GemmConfig};
use ptxkit::prelude::*;

/// The configurations the bench and the device tests use, and the corners of the checks.
fn variants() -> Vec<ampere::Config> {
    let d = ampere::Config::default();
    vec![
        d,
        ampere::Config { persistent: false, ..d },
        ampere::Config { staged_store: false, ..d },
        ampere::Config { bk: 64, stages: 3, ..d },
        ampere::Config { bm: 256, bn: 128, warps_m: 4, warps_n: 2, ..d },
        ampere::Config { bm: 128, bn: 128, warps_m: 2, warps_n: 2, ctas_per_sm: 2, ..d },
        ampere::Config { bm: 64, bn: 64, warps_m: 2, warps_n: 2, stages: 2, group_m: 1, ..d },
        ampere::Config { bm: 128, bn: 128, bk: 64, warps_m: 4, warps_n: 2, stages: 5, ..d },
    ]
}

fn every_mma_gemm_variant_assembles_clean() {
    let px = common::ptxas("every_mma_gemm_variant_assembles_clean");
    let dump = std::env::var("PTXKIT_DUMP_PTX").ok();
    let mut failures = vec![];
    let mut kernels = 0;
    for (i, cfg) in variants().into_iter().enumerate() {
        for target in [Target::SM_80, Target::SM_90] {
            let mut m = Module::new(target);
            gemm_tn_mma::<Bf16>(&mut m, "mma_bf16", &cfg).unwrap();
            gemm_tn_mma::<F32>(&mut m, "mma_f32", &cfg).unwrap();
            kernels += 2;
            let text = m.to_ptx().unwrap();
            if let Some(dir) = &dump {
                std::fs::write(format!("{dir}/mma_gemm_{i}_{target}.ptx"), &text).unwrap();
            }
            let report = match ptxkit::ptxas::report(&px, &text, target) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{cfg:?} {target}: ptxas refused it:\n{e}"));
                    continue;
                }
            };
            let cap = 65536 / (cfg.threads() * cfg.ctas_per_sm);
            if let Err(e) = report.check_clean(Some(cap)) {
                failures.push(format!("{cfg:?} {target}: {e}"));
            }
            for k in &report.kernels {
                println!("{cfg:?} {target}: {} {} registers", k.name, k.registers);
            }
            assert_eq!(report.kernels.len(), 2, "{cfg:?}: a report per kernel: {report:?}");
        }
    }
    println!("{kernels} mma GEMM kernels assembled for sm_80 and sm_90");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn mma_gemm_refuses_what_it_cannot_build() {
    let d = ampere::Config::default();
    d.check().unwrap();
    assert_eq!((d.threads(), d.warp_tile(), d.shared_bytes()), (256, (64, 64), 4 * 384 * 64 + 8 * 64 * 144));
    assert_eq!(ampere::Config { staged_store: false, ..d }.shared_bytes(), 4 * 384 * 64);
    let bad = |c: ampere::Config, what: &str| {
        let e = c.check().unwrap_err();
        assert!(e.contains(what), "{c:?}: {e}");
        let mut m = Module::new(Target::SM_80);
        let e = gemm_tn_mma::<Bf16>(&mut m, "g", &c).unwrap_err().to_string();
        assert!(e.contains(what), "{c:?}: {e}");
    };
    bad(ampere::Config { bk: 16, ..d }, "bk = 16");
    bad(ampere::Config { bm: 120, ..d }, "multiple of 16");
    bad(ampere::Config { warps_m: 1, ..d }, "accumulator registers");
    bad(ampere::Config { stages: 9, ..d }, "stages = 9");
    bad(ampere::Config { bk: 64, stages: 5, ..d }, "shared memory");
    bad(ampere::Config { group_m: 0, ..d }, "group_m");
    bad(ampere::Config { bm: 48, warps_m: 1, ..d }, "per pass");
    bad(ampere::Config { warps_m: 0, ..d }, "warps");
    bad(ampere::Config { bn: 192, ..d }, "power of two");
    ampere::Config { bn: 192, staged_store: false, ..d }.check().unwrap();
    assert!(check_mma_shape(&d, 64, 64, 100).unwrap_err().contains("multiple of 8"));
    assert!(check_mma_shape(&d, 0, 64, 64).unwrap_err().contains("M = 0"));
    assert!(check_mma_shape(&d, 1, 4096, 4096).is_ok());
    assert!(check_mma_shape(&d, 77, 130, 40).is_ok());
}

fn main() {
    common::harness::main(&[&[host!(every_mma_gemm_variant_assembles_clean), host!(mma_gemm_refuses_what_it_cannot_build)]]);
}
