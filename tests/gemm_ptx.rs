//! Every GEMM kernel variant assembles with ptxas for sm_90a with no warning (no wgmma
//! serialised, C7510 and kin; no `setmaxnreg` ignored, C7508), no spill and no stack, and
//! its registers under the `.maxnreg` cap that `setmaxnreg` budgets from.

#[macro_use]
mod common;
use ptxkit::kernels::gemm::{gemm_tn, gemm_tn_staged, GemmConfig, TILE_NS};
use ptxkit::prelude::*;

fn variants() -> Vec<GemmConfig> {
    let base = GemmConfig::default();
    let mut out = vec![];
    for bn in TILE_NS {
        for consumers in [1, 2] {
            for cluster in [1, 2] {
                for overlap in [false, true] {
                    let stages = (2..=8)
                        .rev()
                        .find(|&s| {
                            GemmConfig { bn, consumers, stages: s, ..base }.staged_shared_bytes()
                                <= ptxkit::kernels::gemm::MAX_DYNAMIC_SHARED
                        })
                        .unwrap();
                    out.push(GemmConfig { bn, consumers, cluster, overlap, stages, ..base });
                }
            }
        }
    }
    out
}

fn every_gemm_variant_assembles_clean() {
    let px = common::ptxas("every_gemm_variant_assembles_clean");
    let mut failures = vec![];
    let mut kernels = 0;
    for cfg in variants() {
        let mut m = Module::new(Target::SM_90A);
        gemm_tn::<Bf16>(&mut m, "direct_bf16", &cfg).unwrap();
        gemm_tn::<F32>(&mut m, "direct_f32", &cfg).unwrap();
        gemm_tn_staged(&mut m, "staged", &cfg).unwrap();
        kernels += 3;
        let text = m.to_ptx().unwrap();
        let lines = match ptxkit::ptxas::resources(&px, &text, Target::SM_90A) {
            Ok(l) => l,
            Err(e) => {
                failures.push(format!("{cfg:?}: ptxas refused it:\n{e}"));
                continue;
            }
        };
        let (cap, _, _) = cfg.registers();
        for l in &lines {
            let bad = l.contains("warning")
                || (l.contains("spill") && !l.contains("0 bytes spill stores, 0 bytes spill loads"))
                || (l.contains("stack frame") && !l.trim_start().starts_with("0 bytes stack frame"))
                || l.split("Used ").nth(1).and_then(|r| r.split(' ').next()?.parse::<u32>().ok()).is_some_and(|r| r > cap);
            if bad {
                failures.push(format!("{cfg:?}: {l}"));
            }
        }
        assert_eq!(
            lines.iter().filter(|l| l.contains("spill stores")).count(),
            3,
            "{cfg:?}: a resource line per kernel:\n{}",
            lines.join("\n")
        );
    }
    println!("{kernels} GEMM kernels assembled for sm_90a");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn main() {
    common::harness::main(&[&[host!(every_gemm_variant_assembles_clean)]]);
}
