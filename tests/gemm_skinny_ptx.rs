//! Every configuration of the skinny GEMM that `SkinnyGemm` builds (16 to 64 rows, bf16 and
//! e4m3 inputs, bf16 and f32 C), with its loads an iteration ahead and not, assembles for sm_90a with no warning, no spill and no stack
//! frame; and its configuration check refuses what the kernel cannot build.
//!
//! `PTXKIT_DUMP_PTX=dir` also writes each module's text there (for reading the SASS).

#[macro_use]
mod common;
use ptxkit::kernels::gemm::{gemm_skinny, skinny, E4m3};
use ptxkit::prelude::*;

fn every_skinny_variant_assembles_clean() {
    let px = common::ptxas("every_skinny_variant_assembles_clean");
    let dump = std::env::var("PTXKIT_DUMP_PTX").ok();
    let mut failures = vec![];
    let cfgs = [16, 32, 48, 64].map(skinny::Config::for_rows);
    for cfg in cfgs.into_iter().flat_map(|c| [c, skinny::Config { ahead: false, ..c }]) {
        let mut m = Module::new(Target::SM_90A);
        gemm_skinny::<Bf16, Bf16>(&mut m, "bf16_bf16", &cfg).unwrap();
        gemm_skinny::<F32, Bf16>(&mut m, "f32_bf16", &cfg).unwrap();
        gemm_skinny::<Bf16, E4m3>(&mut m, "bf16_e4m3", &cfg).unwrap();
        let text = m.to_ptx().unwrap();
        if let Some(dir) = &dump {
            std::fs::write(format!("{dir}/skinny_{}_{}.ptx", cfg.max_m(), cfg.ahead), &text).unwrap();
        }
        let report = match ptxkit::ptxas::report(&px, &text, Target::SM_90A) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{cfg:?}: ptxas refused it:\n{e}"));
                continue;
            }
        };
        if let Err(e) = report.check_clean(Some(255)) {
            failures.push(format!("{cfg:?}: {e}"));
        }
        for k in &report.kernels {
            println!("{cfg:?}: {} {} registers", k.name, k.registers);
        }
        assert_eq!(report.kernels.len(), 3, "{cfg:?}: a report per kernel: {report:?}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn skinny_gemm_refuses_what_it_cannot_build() {
    let d = skinny::Config::for_rows(16);
    d.check().unwrap();
    assert_eq!((d.max_m(), d.warp_n(), d.threads(), d.iter_bytes()), (16, 16, 128, 512));
    assert_eq!(skinny::Config::for_rows(1).max_m(), 16);
    assert_eq!(skinny::Config::for_rows(33).max_m(), 48);
    for (c, what) in [
        (skinny::Config { m_blocks: 5, ..d }, "m_blocks = 5"),
        (skinny::Config { n_blocks: 0, ..d }, "n_blocks = 0"),
        (skinny::Config { unroll: 9, ..d }, "unroll = 9"),
        (skinny::Config { warps: 17, ..d }, "warps = 17"),
    ] {
        let e = c.check().unwrap_err();
        assert!(e.contains(what), "{c:?}: {e}");
        let mut m = Module::new(Target::SM_90A);
        let e = gemm_skinny::<Bf16, Bf16>(&mut m, "g", &c).err().expect("refused").to_string();
        assert!(e.contains(what), "{c:?}: {e}");
    }
}

fn main() {
    common::harness::main(&[&[host!(every_skinny_variant_assembles_clean), host!(skinny_gemm_refuses_what_it_cannot_build)]]);
}
