//! `AutoGemm::tuned`: the first product of each class of shapes measures the candidate
//! kernels and keeps the fastest; the product it computes, and every later one of the
//! class, is right against an f64 CPU product (C poisoned first, the error model of
//! `gemm_strided`); the picks go to the file named and a second `AutoGemm` reads them back
//! without measuring again.

use crate::gemm_strided::{acc_bf16, judge_buffer, reference};
use crate::{rng, skip, Test};
use half::bf16;
use ptxkit::kernels::gemm::hopper;
use ptxkit::runtime::testing::{normal_bf16, poisoned};
use ptxkit::runtime::{AutoGemm, GemmRunner, GemmShape, Gpu, Pick, ShapeClass};
use ptxkit::types::Bf16;
use rand::Rng;

fn tuned_gemm_keeps_a_candidate_and_computes_the_product(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the Hopper GEMM is built for sm_90a, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("tuned_gemm_keeps_a_candidate_and_computes_the_product");
    let file = std::env::temp_dir().join(format!("ptxkit-tuning-{}.tsv", std::process::id()));
    let _ = std::fs::remove_file(&file);
    // A skinny class, a few-tiles class with long K, one of many tiles; the second shape of
    // each pair is of the same class as the first, and runs what the first kept.
    let pairs = [
        (GemmShape::new(16, 1024, 1024), GemmShape::new(13, 1000, 1000)),
        (GemmShape::new(64, 512, 16384), GemmShape::new(60, 500, 16000)),
        (GemmShape::new(512, 1024, 512), GemmShape::new(500, 1000, 400)),
    ];
    let tuned = AutoGemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap().tuned(&gpu, Some(&file)).unwrap();
    let mut failures = vec![];
    let mut run = |gemm: &AutoGemm<Bf16>, s: &GemmShape, what: &str, failures: &mut Vec<String>| {
        let [la, lb, lc] = s.lens().map(|l| l as usize);
        let (ha, hb) = (normal_bf16(g.gen(), la), normal_bf16(g.gen(), lb));
        let f = |v: &[bf16]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
        let want = reference(&f(&ha), &f(&hb), s, lc + 64);
        let (a, b) = (gpu.upload(&ha).unwrap(), gpu.upload(&hb).unwrap());
        let mut c = poisoned::<bf16>(&gpu, want.len()).unwrap();
        match gemm.run(&gpu, &a, &b, &mut c, s).and_then(|_| gpu.download(&c)) {
            Ok(got) => judge_buffer(&format!("{what}, {s}"), &got, &want, 1.0, acc_bf16(s.k), failures),
            Err(e) => failures.push(format!("{what}, {s}: {e}")),
        }
    };
    let mut kept = vec![];
    for (first, second) in &pairs {
        assert_eq!(ShapeClass::of(first), ShapeClass::of(second), "{first} and {second} should share a class");
        assert!(tuned.tuned_pick(first).is_none(), "{first}: nothing measured yet");
        run(&tuned, first, "measured", &mut failures);
        let Some(pick) = tuned.tuned_pick(first) else { panic!("{first}: no pick kept after its product") };
        let candidates = tuned.candidates(first);
        assert!(candidates.contains(&pick) || matches!(pick, Pick::Skinny(_)), "{first}: kept {pick}, not among {candidates:?}");
        println!("{first}: kept {pick} of {} candidates", candidates.len());
        run(&tuned, second, &format!("kept {pick}"), &mut failures);
        kept.push(pick);
    }
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), pairs.len(), "one line per class:\n{text}");
    // A second AutoGemm reads them back and runs them without measuring.
    let again = AutoGemm::<Bf16>::new(&gpu, hopper::Config::default()).unwrap().tuned(&gpu, Some(&file)).unwrap();
    for ((first, second), pick) in pairs.iter().zip(&kept) {
        let read = again.tuned_pick(second);
        let same = match (read, pick) {
            (Some(Pick::Skinny(_)), Pick::Skinny(_)) => true,
            (r, p) => r == Some(*p),
        };
        assert!(same, "{first}: read back {read:?}, kept {pick}");
        run(&again, second, "read back", &mut failures);
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "reading the picks back measured again");
    let _ = std::fs::remove_file(&file);
    assert!(failures.is_empty(), "tuned GEMM wrong:\n{}", failures.join("\n"));
}

pub const TESTS: &[Test] = &[gpu!(tuned_gemm_keeps_a_candidate_and_computes_the_product)];
