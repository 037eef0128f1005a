//! Attention forward at the shapes (bf16, `[B, H, S, D]`), TFLOP/s counting
//! `4·B·H·S²·D` (half of it causal), median of 20 timed runs after at least 200 ms of warm-up, on fresh random
//! inputs. `bench/attention_sdpa.py` times torch's SDPA (cuDNN and FlashAttention-2
//! backends) at the same shapes; run both in one command on the GPU machine:
//!
//!     cargo bench --features cuda --bench attention; python3 bench/attention_sdpa.py
//!
//! With `PTXKIT_RESULTS=path` the table is also written there; `PTXKIT_ATTN_SOFT_EXP=n`
//! builds every kernel with `soft_exp = n` (of each 16 exponentials, n on the FMA units);
//! `PTXKIT_ATTN_BN=d:bn,..` and `PTXKIT_ATTN_CONSUMERS=d:n,..` pick the keys per block and the
//! consumer warpgroups of head dimension d; `PTXKIT_ATTN_STREAM=0` runs the tiles of the
//! kernels that are not causal one by one ([`AttentionConfig::stream`]).
//!
//! `PTXKIT_ATTN_GRID=persistent|per_tile` overrides the launch's grid
//! ([`ptxkit::runtime::AttentionGrid`]); `PTXKIT_ATTN_ROUNDS=n` times the table n times.
//!
//! `PTXKIT_ATTN_CHECK=dir` instead runs each bench shape (and two with grouped-query heads
//! and tails) once on fresh random inputs, O and the log-sum-exp poisoned first, and writes
//! Q, K, V, O (bf16) and the log-sum-exp (f32) as raw little-endian files to `dir`, with
//! `dir/cases.tsv` naming them; `python3 bench/attention_check.py dir` then compares them with
//! torch's SDPA on the GPU.
//!
//! `PTXKIT_ATTN_SWEEP=dir` instead times D = 128, 16 heads, 64 Ki tokens per batch, at
//! sequence lengths 512 to 16384, reads `dir/sdpa_sweep.tsv` (written first by
//! `python3 bench/attention_sdpa.py sweep dir`) and draws `dir/attention_sweep.png`:
//! TFLOP/s against sequence length for ours, cuDNN and FlashAttention-2.

use half::bf16;
use ptxkit::kernels::attention::AttentionConfig;
use ptxkit::runtime::{median, Attention, AttentionGrid, AttentionShape};
use rand::{Rng, SeedableRng};
use std::fmt::Write;

#[path = "../examples/common/canvas.rs"]
mod canvas;
#[path = "gemm/plot.rs"]
#[allow(dead_code)]
mod plot;

/// Sequence lengths of the sweep.
const SWEEP: [u32; 6] = [512, 1024, 2048, 4096, 8192, 16384];

/// (batch, heads, sequence, head dimension).
const CASES: [(u32, u32, u32, u32); 4] = [(16, 16, 4096, 128), (4, 16, 16384, 128), (16, 32, 4096, 64), (8, 8, 8192, 256)];

fn main() {
    let Some(gpu) = ptxkit::runtime::testing::gpu_or_skip("attention bench") else { return };
    let soft: Option<u32> = std::env::var("PTXKIT_ATTN_SOFT_EXP").ok().and_then(|v| v.parse().ok());
    let stream: Option<bool> = std::env::var("PTXKIT_ATTN_STREAM").ok().map(|v| v != "0");
    let mut attn = Attention::with_configs(&gpu, |d, causal| {
        let cfg = AttentionConfig::new(d, causal);
        let cfg = AttentionConfig { soft_exp: soft.unwrap_or(cfg.soft_exp), stream: stream.unwrap_or(cfg.stream), ..cfg };
        // `PTXKIT_ATTN_BN=d:bn,..` and `PTXKIT_ATTN_CONSUMERS=d:n,..` pick the keys per block and
        // the consumer warpgroups of head dimension d.
        let cfg = per_head_dim("PTXKIT_ATTN_BN", d).map_or(cfg, |bn| cfg.with_bn(bn));
        per_head_dim("PTXKIT_ATTN_CONSUMERS", d).map_or(cfg, |n| cfg.with_consumers(n))
    })
    .expect("the kernels load");
    let grid = match std::env::var("PTXKIT_ATTN_GRID").as_deref() {
        Ok("persistent") => AttentionGrid::Persistent,
        Ok("per_tile") => AttentionGrid::PerTile,
        _ => AttentionGrid::Auto,
    };
    attn.set_grid(grid);
    let mut g = rand::rngs::StdRng::from_entropy();
    if let Ok(dir) = std::env::var("PTXKIT_ATTN_SWEEP") {
        return sweep(&gpu, &attn, &mut g, &dir);
    }
    if let Ok(dir) = std::env::var("PTXKIT_ATTN_CHECK") {
        return dump(&gpu, &attn, &mut g, &dir);
    }
    let rounds: usize = std::env::var("PTXKIT_ATTN_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut report = String::new();
    writeln!(
        report,
        "GPU: {}, driver {:?}, soft_exp {soft:?} (default 0), stream {stream:?} (default true), PTXKIT_ATTN_BN {:?}, PTXKIT_ATTN_CONSUMERS {:?}, grid {grid:?}",
        gpu.name(),
        gpu.driver_version(),
        std::env::var("PTXKIT_ATTN_BN").ok(),
        std::env::var("PTXKIT_ATTN_CONSUMERS").ok()
    )
    .unwrap();
    writeln!(report, "{:<28} {:>8} {:>10} {:>9}", "shape", "causal", "ms", "TFLOP/s").unwrap();
    for (b, h, s, d) in (0..rounds).flat_map(|_| CASES) {
        let base = AttentionShape::new(b, h, h, s, s, d);
        let rand_vec =
            |g: &mut rand::rngs::StdRng, n: usize| -> Vec<bf16> { (0..n).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect() };
        let (q, k, v) = (rand_vec(&mut g, base.q_len()), rand_vec(&mut g, base.kv_len()), rand_vec(&mut g, base.kv_len()));
        let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
        let mut o = gpu.zeros::<bf16>(base.q_len()).unwrap();
        let mut lse = gpu.zeros::<f32>(base.lse_len()).unwrap();
        for causal in [false, true] {
            let shape = base.causal(causal);
            warm_up(&gpu, || attn.run(&shape, &dq, &dk, &dv, &mut o, &mut lse).unwrap());
            let mut times: Vec<f32> = (0..20).map(|_| gpu.time(|| attn.run(&shape, &dq, &dk, &dv, &mut o, &mut lse)).unwrap()).collect();
            let ms = median(&mut times).expect("20 timings");
            let out = gpu.download(&o).unwrap();
            let finite = out.iter().all(|x| x.is_finite());
            let tflops = shape.flops() / (ms as f64 * 1e-3) / 1e12;
            writeln!(
                report,
                "{:<28} {:>8} {:>10.3} {:>9.1}{}",
                format!("B{b} H{h} S{s} D{d}"),
                causal,
                ms,
                tflops,
                if finite { "" } else { "  NON-FINITE OUTPUT" }
            )
            .unwrap();
        }
    }
    print!("{report}");
    if let Ok(path) = std::env::var("PTXKIT_RESULTS") {
        std::fs::write(path, &report).unwrap();
    }
}

/// The value for head dimension `d` in the environment variable `var` (`d:value,..`).
fn per_head_dim(var: &str, d: u32) -> Option<u32> {
    let v = std::env::var(var).ok()?;
    v.split(',').filter_map(|p| p.split_once(':')).find(|(dd, _)| dd.parse() == Ok(d)).and_then(|(_, n)| n.parse().ok())
}

/// Median TFLOP/s of `shape` on fresh random inputs.
fn time(gpu: &ptxkit::runtime::Gpu, attn: &Attention, g: &mut rand::rngs::StdRng, shape: &AttentionShape) -> f64 {
    let rand_vec = |g: &mut rand::rngs::StdRng, n: usize| -> Vec<bf16> { (0..n).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect() };
    let (q, k, v) = (rand_vec(g, shape.q_len()), rand_vec(g, shape.kv_len()), rand_vec(g, shape.kv_len()));
    let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
    let mut o = gpu.zeros::<bf16>(shape.q_len()).unwrap();
    let mut lse = gpu.zeros::<f32>(shape.lse_len()).unwrap();
    warm_up(gpu, || attn.run(shape, &dq, &dk, &dv, &mut o, &mut lse).unwrap());
    let mut times: Vec<f32> = (0..20).map(|_| gpu.time(|| attn.run(shape, &dq, &dk, &dv, &mut o, &mut lse)).unwrap()).collect();
    let ms = median(&mut times).expect("20 timings");
    assert!(gpu.download(&o).unwrap().iter().all(|x| x.is_finite()), "{shape:?}: non-finite output");
    shape.flops() / (ms as f64 * 1e-3) / 1e12
}

/// The sequence-length sweep at D = 128, beside torch's numbers from `dir/sdpa_sweep.tsv`
/// (lines `seq causal backend tflops`), and its chart.
fn sweep(gpu: &ptxkit::runtime::Gpu, attn: &Attention, g: &mut rand::rngs::StdRng, dir: &str) {
    let baseline = std::fs::read_to_string(format!("{dir}/sdpa_sweep.tsv")).expect("run bench/attention_sdpa.py sweep DIR first");
    let torch = |backend: &str, causal: bool| -> Vec<(u32, f64)> {
        baseline
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.len() == 4 && f[1] == causal.to_string() && f[2] == backend).then(|| (f[0].parse().unwrap(), f[3].parse().unwrap()))
            })
            .collect()
    };
    for causal in [false, true] {
        let mut ours = vec![];
        for s in SWEEP {
            let shape = AttentionShape::new(65536 / s, 16, 16, s, s, 128).causal(causal);
            let t = time(gpu, attn, g, &shape);
            println!("sweep D128 S{s} causal {causal}: {t:.1} TFLOP/s");
            ours.push((s, t));
        }
        let series = [
            plot::Series { label: "ptxkit".into(), rgb: [200, 30, 30], points: ours },
            plot::Series { label: "cuDNN (torch SDPA)".into(), rgb: [30, 90, 200], points: torch("cudnn", causal) },
            plot::Series { label: "FlashAttention-2 (torch SDPA)".into(), rgb: [40, 150, 60], points: torch("flash2", causal) },
        ];
        let title = format!("attention{}, bf16, D 128, H 16, 64Ki tokens: TFLOP/s", if causal { " (causal)" } else { "" });
        let png = plot::chart(&title, "sequence length (queries = keys)", &SWEEP, &series);
        std::fs::write(format!("{dir}/attention_sweep{}.png", if causal { "_causal" } else { "" }), png).unwrap();
    }
}

/// Each bench shape, causal and not, and two with grouped-query heads and tails, run once on
/// fresh random inputs with O and the log-sum-exp poisoned; the inputs and outputs written
/// to `dir` for `bench/attention_check.py`.
fn dump(gpu: &ptxkit::runtime::Gpu, attn: &Attention, g: &mut rand::rngs::StdRng, dir: &str) {
    let mut shapes: Vec<AttentionShape> =
        CASES.iter().flat_map(|&(b, h, s, d)| [false, true].map(|c| AttentionShape::new(b, h, h, s, s, d).causal(c))).collect();
    shapes.push(AttentionShape::new(2, 16, 4, 3000, 5000, 128));
    shapes.push(AttentionShape::new(3, 12, 2, 4097, 4097, 64).causal(true));
    let bytes = |v: &[bf16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect() };
    let mut index = String::new();
    for (n, shape) in shapes.iter().enumerate() {
        let rand_vec =
            |g: &mut rand::rngs::StdRng, n: usize| -> Vec<bf16> { (0..n).map(|_| bf16::from_f32(g.gen_range(-1.0..1.0))).collect() };
        let (q, k, v) = (rand_vec(g, shape.q_len()), rand_vec(g, shape.kv_len()), rand_vec(g, shape.kv_len()));
        let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
        let mut o = ptxkit::runtime::testing::poisoned::<bf16>(gpu, shape.q_len()).unwrap();
        let mut lse = ptxkit::runtime::testing::poisoned::<f32>(gpu, shape.lse_len()).unwrap();
        attn.run(shape, &dq, &dk, &dv, &mut o, &mut lse).unwrap();
        let (o, lse) = (gpu.download(&o).unwrap(), gpu.download(&lse).unwrap());
        for (what, data) in [("q", bytes(&q)), ("k", bytes(&k)), ("v", bytes(&v)), ("o", bytes(&o))] {
            std::fs::write(format!("{dir}/{n}.{what}"), data).unwrap();
        }
        std::fs::write(format!("{dir}/{n}.lse"), lse.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
        let AttentionShape { batch, heads, kv_heads, seq_q, seq_k, head_dim, causal, .. } = *shape;
        writeln!(index, "{n} {batch} {heads} {kv_heads} {seq_q} {seq_k} {head_dim} {causal}").unwrap();
        println!("dumped case {n}: {shape:?}");
    }
    std::fs::write(format!("{dir}/cases.tsv"), index).unwrap();
}

/// Runs `f` at least 3 times and for at least 200 ms (the clocks of an idle GPU take that
/// long to rise: the first shape would otherwise be timed slow), then waits for it.
fn warm_up(gpu: &ptxkit::runtime::Gpu, mut f: impl FnMut()) {
    let start = std::time::Instant::now();
    let mut n = 0;
    while n < 3 || start.elapsed() < std::time::Duration::from_millis(200) {
        f();
        n += 1;
        if n % 8 == 0 {
            gpu.synchronize().unwrap();
        }
    }
    gpu.synchronize().unwrap();
}
