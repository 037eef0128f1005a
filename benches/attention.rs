//! Attention forward at the shapes (bf16, `[B, H, S, D]`), TFLOP/s counting
//! `4·B·H·S²·D` (half of it causal), median of 20 timed runs after warm-up, on fresh random
//! inputs. `bench/attention_sdpa.py` times torch's SDPA (cuDNN and FlashAttention-2
//! backends) at the same shapes; run both in one command on the GPU machine:
//!
//!     cargo bench --features cuda --bench attention; python3 bench/attention_sdpa.py
//!
//! With `PTXKIT_RESULTS=path` the table is also written there.

use half::bf16;
use ptxkit::runtime::{median, Attention, AttentionShape};
use rand::{Rng, SeedableRng};
use std::fmt::Write;

/// (batch, heads, sequence, head dimension).
const CASES: [(u32, u32, u32, u32); 4] = [(16, 16, 4096, 128), (4, 16, 16384, 128), (16, 32, 4096, 64), (8, 8, 8192, 256)];

fn main() {
    let Some(gpu) = ptxkit::runtime::testing::gpu_or_skip("attention bench") else { return };
    let attn = Attention::new(&gpu).expect("the kernels load");
    let mut g = rand::rngs::StdRng::from_entropy();
    let mut report = String::new();
    writeln!(report, "GPU: {}, driver {:?}", gpu.name(), gpu.driver_version()).unwrap();
    writeln!(report, "{:<28} {:>8} {:>10} {:>9}", "shape", "causal", "ms", "TFLOP/s").unwrap();
    for (b, h, s, d) in CASES {
        let base = AttentionShape::new(b, h, h, s, s, d);
        let rand_vec = |g: &mut rand::rngs::StdRng, n: usize| -> Vec<bf16> { (0..n).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect() };
        let (q, k, v) = (rand_vec(&mut g, base.q_len()), rand_vec(&mut g, base.kv_len()), rand_vec(&mut g, base.kv_len()));
        let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
        let mut o = gpu.zeros::<bf16>(base.q_len()).unwrap();
        let mut lse = gpu.zeros::<f32>(base.lse_len()).unwrap();
        for causal in [false, true] {
            let shape = base.causal(causal);
            for _ in 0..3 {
                attn.run(&shape, &dq, &dk, &dv, &mut o, &mut lse).unwrap();
            }
            let mut times: Vec<f32> = (0..20).map(|_| gpu.time(|| attn.run(&shape, &dq, &dk, &dv, &mut o, &mut lse)).unwrap()).collect();
            let ms = median(&mut times).expect("20 timings");
            let out = gpu.download(&o).unwrap();
            let finite = out.iter().all(|x| x.is_finite());
            let tflops = shape.flops() / (ms as f64 * 1e-3) / 1e12;
            writeln!(report, "{:<28} {:>8} {:>10.3} {:>9.1}{}", format!("B{b} H{h} S{s} D{d}"), causal, ms, tflops, if finite { "" } else { "  NON-FINITE OUTPUT" })
                .unwrap();
        }
    }
    print!("{report}");
    if let Ok(path) = std::env::var("PTXKIT_RESULTS") {
        std::fs::write(path, &report).unwrap();
    }
}
