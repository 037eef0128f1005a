//! Every GEMM kernel variant (bf16 and e4m3 inputs, B K- or N-contiguous, bf16 and f32 C)
//! assembles with ptxas for sm_90a with no warning (no wgmma
//! serialised, C7510 and kin; no `setmaxnreg` ignored, C7508), no spill and no stack, and
//! its registers under the `.maxnreg` cap that `setmaxnreg` budgets from.

#[macro_use]
mod common;
use ptxkit::kernels::gemm::{gemm, gemm_staged, E4m3, GemmConfig, Layout, TILE_NS};
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
        gemm::<Bf16, Bf16>(&mut m, "direct_bf16", &cfg).unwrap();
        gemm::<F32, Bf16>(&mut m, "direct_f32", &cfg).unwrap();
        gemm_staged::<Bf16>(&mut m, "staged", &cfg).unwrap();
        gemm::<Bf16, E4m3>(&mut m, "direct_bf16_e4m3", &cfg).unwrap();
        gemm::<F32, E4m3>(&mut m, "direct_f32_e4m3", &cfg).unwrap();
        gemm_staged::<E4m3>(&mut m, "staged_e4m3", &cfg).unwrap();
        kernels += 6;
        // NN (bf16 only), where B's share per CTA is whole boxes.
        let nn = GemmConfig { layout: Layout::NN, ..cfg };
        let with_nn = nn.check().is_ok();
        if with_nn {
            gemm::<Bf16, Bf16>(&mut m, "nn_bf16", &nn).unwrap();
            gemm::<F32, Bf16>(&mut m, "nn_f32", &nn).unwrap();
            gemm_staged::<Bf16>(&mut m, "nn_staged", &nn).unwrap();
            kernels += 3;
        }
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
            if common::bad_resource_line(l, cap) {
                failures.push(format!("{cfg:?}: {l}"));
            }
        }
        assert_eq!(
            lines.iter().filter(|l| l.contains("spill stores")).count(),
            if with_nn { 9 } else { 6 },
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
