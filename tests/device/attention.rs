//! Attention forward ([`ptxkit::runtime::Attention`]) against an f64 CPU reference, on
//! fresh random inputs with O and the log-sum-exp poisoned first: every kernel shape (head
//! dimension, keys per block, consumers), causal or not, both layouts, lengths that are not multiples of the tiles (queries and
//! keys of different lengths), grouped-query heads, each with the default grid and with 1 to
//! 3 CTAs looping over all the tiles; and the shape errors.

use super::*;
use half::bf16;
use ptxkit::kernels::attention::AttentionConfig;
use ptxkit::runtime::{Attention, AttentionGrid, AttentionShape, QkvLayout};
use rand::Rng;

/// Element `(b, h, s, d)` of a tensor of `heads` heads and `seq` rows in `layout`.
fn at(shape: &AttentionShape, heads: u32, seq: u32, (b, h, s, d): (u32, u32, u32, u32)) -> usize {
    let (hh, ss, dd) = (heads as usize, seq as usize, shape.head_dim as usize);
    let (b, h, s, d) = (b as usize, h as usize, s as usize, d as usize);
    match shape.layout {
        QkvLayout::Bhsd => ((b * hh + h) * ss + s) * dd + d,
        QkvLayout::Bshd => ((b * ss + s) * hh + h) * dd + d,
    }
}

/// O and the log-sum-exp in f64, from the bf16 inputs.
fn reference(shape: &AttentionShape, q: &[bf16], k: &[bf16], v: &[bf16]) -> (Vec<f64>, Vec<f64>) {
    let (d, group) = (shape.head_dim, shape.heads / shape.kv_heads);
    let scale = shape.softmax_scale() as f64;
    let mut o = vec![0f64; shape.q_len()];
    let mut lse = vec![0f64; shape.lse_len()];
    for b in 0..shape.batch {
        for h in 0..shape.heads {
            let hk = h / group;
            for i in 0..shape.seq_q {
                let keys = if shape.causal { (i + 1).min(shape.seq_k) } else { shape.seq_k };
                let scores: Vec<f64> = (0..keys)
                    .map(|j| {
                        let dot: f64 = (0..d)
                            .map(|x| {
                                q[at(shape, shape.heads, shape.seq_q, (b, h, i, x))].to_f64()
                                    * k[at(shape, shape.kv_heads, shape.seq_k, (b, hk, j, x))].to_f64()
                            })
                            .sum();
                        dot * scale
                    })
                    .collect();
                let mx = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = scores.iter().map(|s| (s - mx).exp()).collect();
                let sum: f64 = weights.iter().sum();
                lse[((b * shape.heads + h) * shape.seq_q + i) as usize] = mx + sum.ln();
                for x in 0..d {
                    let acc: f64 = weights
                        .iter()
                        .enumerate()
                        .map(|(j, w)| w * v[at(shape, shape.kv_heads, shape.seq_k, (b, hk, j as u32, x))].to_f64())
                        .sum();
                    o[at(shape, shape.heads, shape.seq_q, (b, h, i, x))] = acc / sum;
                }
            }
        }
    }
    (o, lse)
}

fn attention_matches_a_cpu_reference(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the attention kernel needs sm_90a, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("attention_matches_a_cpu_reference");
    let mut failures = vec![];
    let mut cases = 0;
    // Not causal, each shape with its tiles streamed (the default) and one by one.
    for ((d, bn, consumers), stream) in AttentionConfig::SHAPES.into_iter().flat_map(|s| [(s, true), (s, false)]) {
        let mut attn = Attention::with_configs(&gpu, |dd, causal| {
            let cfg = AttentionConfig { stream, ..AttentionConfig::new(dd, causal) };
            if dd == d {
                cfg.with_bn(bn).with_consumers(consumers)
            } else {
                cfg
            }
        })
        .unwrap();
        let causals: &[bool] = if stream { &[false, true] } else { &[false] };
        for &causal in causals {
            for layout in [QkvLayout::Bhsd, QkvLayout::Bshd] {
                let kv_heads = g.gen_range(1..=2);
                let heads = kv_heads * g.gen_range(1..=3);
                // Lengths around the tiles: a partial query block and a partial key block;
                // for causal, equal lengths (the benchmarks' case) half of the time.
                let seq_q = g.gen_range(1..=sized(300, 140));
                let seq_k = if causal && g.gen_bool(0.5) { seq_q } else { g.gen_range(1..=sized(300, 140)) };
                let shape = AttentionShape::new(g.gen_range(1..=2), heads, kv_heads, seq_q, seq_k, d).layout(layout).causal(causal);
                let rand_vec = |g: &mut StdRng, n: usize| -> Vec<bf16> { (0..n).map(|_| bf16::from_f32(g.gen_range(-2.0..2.0))).collect() };
                let (q, k, v) = (rand_vec(&mut g, shape.q_len()), rand_vec(&mut g, shape.kv_len()), rand_vec(&mut g, shape.kv_len()));
                let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
                let (want_o, want_lse) = reference(&shape, &q, &k, &v);
                for grid in [AttentionGrid::Auto, AttentionGrid::Ctas(g.gen_range(1..=3))] {
                    attn.set_grid(grid);
                    let mut o = poisoned::<bf16>(&gpu, shape.q_len()).unwrap();
                    let mut lse = poisoned::<f32>(&gpu, shape.lse_len()).unwrap();
                    attn.run(&shape, &dq, &dk, &dv, &mut o, &mut lse).unwrap();
                    let (o, lse) = (gpu.download(&o).unwrap(), gpu.download(&lse).unwrap());
                    let (mut num, mut den, mut worst) = (0f64, 0f64, 0f64);
                    let mut bad = 0;
                    for (got, want) in o.iter().zip(&want_o) {
                        let e = got.to_f64() - want;
                        if !e.is_finite() {
                            bad += 1;
                        }
                        num += e * e;
                        den += want * want;
                        worst = worst.max(e.abs());
                    }
                    let rel = (num / den.max(1e-30)).sqrt();
                    let lse_worst = lse.iter().zip(&want_lse).map(|(a, b)| (*a as f64 - b).abs()).fold(0f64, |m, e| {
                        if e.is_nan() {
                            f64::INFINITY
                        } else {
                            m.max(e)
                        }
                    });
                    println!("bn {bn}, {consumers} consumers, stream {stream}, {shape:?}, {grid:?}: O relative error {rel:.2e} (largest {worst:.2e}), lse largest error {lse_worst:.2e}");
                    // bf16 P and O: relative error near 4e-3; the log-sum-exp in f32 with ex2/lg2.approx.
                    if bad > 0 || !(rel < 1e-2) || !(worst < 5e-2) || !(lse_worst < 2e-3) {
                        failures.push(format!(
                            "bn {bn}, {consumers} consumers, stream {stream}, {shape:?}, {grid:?}: {bad} non-finite, O relative {rel:.2e}, largest {worst:.2e}, lse {lse_worst:.2e}"
                        ));
                    }
                    cases += 1;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {cases} cases wrong:\n{}", failures.len(), failures.join("\n"));
}

/// Shapes and buffers the kernels cannot take are errors that say what to change.
fn attention_refuses_what_it_cannot_do(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the attention kernel needs sm_90a, the GPU is {:?}", gpu.compute_capability()));
    }
    let attn = Attention::new(&gpu).unwrap();
    let buf = |n: usize| gpu.zeros::<bf16>(n.max(1)).unwrap();
    let try_run = |shape: AttentionShape, q_extra: usize| {
        let (q, k, v) = (buf(shape.q_len() + q_extra), buf(shape.kv_len()), buf(shape.kv_len()));
        let (mut o, mut lse) = (buf(shape.q_len()), gpu.zeros::<f32>(shape.lse_len().max(1)).unwrap());
        attn.run(&shape, &q, &k, &v, &mut o, &mut lse).unwrap_err().to_string()
    };
    let e = try_run(AttentionShape::new(1, 2, 1, 10, 10, 96), 0);
    assert!(e.contains("64, 128 or 256, not 96"), "{e}");
    let e = try_run(AttentionShape::new(1, 3, 2, 10, 10, 64), 0);
    assert!(e.contains("2 key/value heads do not divide 3"), "{e}");
    let e = try_run(AttentionShape::new(1, 2, 1, 10, 10, 64), 5);
    assert!(e.contains("Q holds 1285 elements"), "{e}");
    let e = try_run(AttentionShape::new(1, 2, 1, 10, 0, 64), 0);
    assert!(e.contains("at least 1"), "{e}");
}

pub const TESTS: &[Test] = &[gpu!(attention_matches_a_cpu_reference), gpu!(attention_refuses_what_it_cannot_do)];
