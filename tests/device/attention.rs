//! Attention forward ([`ptxkit::runtime::Attention`]) against an f64 CPU reference, on
//! fresh random inputs with O and the log-sum-exp poisoned first: every kernel shape (head
//! dimension, keys per block, consumers), causal or not, both layouts, lengths that are not multiples of the tiles (queries and
//! keys of different lengths), grouped-query heads, each with the default grid and with 1 to
//! 3 CTAs looping over all the tiles; and the shape errors. Every element of O and of the
//! log-sum-exp is judged by the kernel's error model ([`judge`]).

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

/// The f64 reference of one shape: O and the log-sum-exp, and what the error model needs.
struct Reference {
    o: Vec<f64>,
    lse: Vec<f64>,
    /// Per element of O: `Σ_j p_j·|v_j| / Σ_j p_j`, the magnitude its sum is made of.
    mag: Vec<f64>,
    /// Per row: the relative error of every `p_j` on the GPU (see [`judge`]).
    eps: Vec<f64>,
    /// Per row: the keys it attends to.
    keys: Vec<u32>,
}

/// O and the log-sum-exp in f64, from the bf16 inputs, with each row's error terms.
fn reference(shape: &AttentionShape, q: &[bf16], k: &[bf16], v: &[bf16]) -> Reference {
    let (d, group) = (shape.head_dim, shape.heads / shape.kv_heads);
    let scale = shape.softmax_scale() as f64;
    let mut r = Reference {
        o: vec![0f64; shape.q_len()],
        lse: vec![0f64; shape.lse_len()],
        mag: vec![0f64; shape.q_len()],
        eps: vec![0f64; shape.lse_len()],
        keys: vec![0; shape.lse_len()],
    };
    for b in 0..shape.batch {
        for h in 0..shape.heads {
            let hk = h / group;
            for i in 0..shape.seq_q {
                let keys = if shape.causal { (i + 1).min(shape.seq_k) } else { shape.seq_k };
                // Each score, and the bound on its error in f32: the dot product's sum over
                // D (2·D·2⁻²⁴ of Σ|q·k|), and the scaling's rounding.
                let (scores, errs): (Vec<f64>, Vec<f64>) = (0..keys)
                    .map(|j| {
                        let terms = (0..d).map(|x| {
                            q[at(shape, shape.heads, shape.seq_q, (b, h, i, x))].to_f64()
                                * k[at(shape, shape.kv_heads, shape.seq_k, (b, hk, j, x))].to_f64()
                        });
                        let (dot, mag) = terms.fold((0f64, 0f64), |(s, m), t| (s + t, m + t.abs()));
                        (dot * scale, scale * (2.0 * d as f64 * 2f64.powi(-24) * mag + 2f64.powi(-23) * dot.abs()))
                    })
                    .unzip();
                let mx = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = scores.iter().map(|s| (s - mx).exp()).collect();
                let sum: f64 = weights.iter().sum();
                let row = ((b * shape.heads + h) * shape.seq_q + i) as usize;
                r.lse[row] = mx + sum.ln();
                r.eps[row] = errs.iter().copied().fold(0f64, f64::max) + 2f64.powi(-21);
                r.keys[row] = keys;
                for x in 0..d {
                    let (acc, mag) = weights.iter().enumerate().fold((0f64, 0f64), |(a, m), (j, w)| {
                        let vj = v[at(shape, shape.kv_heads, shape.seq_k, (b, hk, j as u32, x))].to_f64();
                        (a + w * vj, m + w * vj.abs())
                    });
                    let e = at(shape, shape.heads, shape.seq_q, (b, h, i, x));
                    r.o[e] = acc / sum;
                    r.mag[e] = mag / sum;
                }
            }
        }
    }
    r
}

/// Judges O and the log-sum-exp by the kernel's error model, every bound allowed twice:
///
/// - each `p_j = exp(s_j − m)` is off by at most `2ε` of itself, `ε` the row's largest score
///   error (the f32 dot product over D and the scaling, in [`reference`]) plus `ex2.approx`'s
///   2⁻²¹; the row sum and `P·V` add f32 sums over the row's keys (`2·keys·2⁻²⁴`);
/// - P goes to the `P·V` wgmma in bf16 (2⁻⁸ of each `p_j`), and O is stored in bf16 (2⁻⁸);
/// - so an element of O is within `2·(2⁻⁸ + 2ε + acc)·(mag + |o|) + 2⁻⁷·|o|`, `mag` its
///   `Σ p_j·|v_j| / Σ p_j`, and the log-sum-exp within `2·(2ε + acc + 2⁻²¹) + 2⁻²²·|lse|`
///   (the running maximum's error, the sum's, and `lg2.approx`).
///
/// Returns the largest error as a share of its bound, and the first element past it.
fn judge(shape: &AttentionShape, r: &Reference, o: &[bf16], lse: &[f32]) -> (f64, Option<String>) {
    let (mut worst, mut first) = (0f64, None);
    let d = shape.head_dim as usize;
    for (i, (got, want)) in o.iter().zip(&r.o).enumerate() {
        // The row of element i, in either layout: its (b, h, s).
        let (b, h, s) = match shape.layout {
            QkvLayout::Bhsd => {
                let row = i / d;
                let (bh, s) = (row / shape.seq_q as usize, row % shape.seq_q as usize);
                (bh / shape.heads as usize, bh % shape.heads as usize, s)
            }
            QkvLayout::Bshd => {
                let row = i / d;
                let (bs, h) = (row / shape.heads as usize, row % shape.heads as usize);
                (bs / shape.seq_q as usize, h, bs % shape.seq_q as usize)
            }
        };
        let row = (b * shape.heads as usize + h) * shape.seq_q as usize + s;
        let acc = 2.0 * r.keys[row] as f64 * 2f64.powi(-24);
        let bound =
            2.0 * (2f64.powi(-8) + 2.0 * r.eps[row] + acc) * (r.mag[i] + want.abs()) + 2f64.powi(-7) * want.abs() + f64::MIN_POSITIVE;
        let e = (got.to_f64() - want).abs();
        worst = worst.max(e / bound);
        if e.is_nan() || e > bound {
            first.get_or_insert(format!("O element {i} (row {row}): {} against {want} (bound {bound:.3e})", got.to_f64()));
        }
    }
    for (row, (got, want)) in lse.iter().zip(&r.lse).enumerate() {
        let acc = 2.0 * r.keys[row] as f64 * 2f64.powi(-24);
        let bound = 2.0 * (2.0 * r.eps[row] + acc + 2f64.powi(-21)) + 2f64.powi(-22) * want.abs();
        let e = (*got as f64 - want).abs();
        worst = worst.max(e / bound);
        if e.is_nan() || e > bound {
            first.get_or_insert(format!("log-sum-exp of row {row}: {got} against {want} (bound {bound:.3e})"));
        }
    }
    (worst, first)
}

fn attention_matches_a_cpu_reference(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("the attention kernel needs sm_90a, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("attention_matches_a_cpu_reference");
    let mut failures = vec![];
    let (mut cases, mut worst_share) = (0, 0f64);
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
                let want = reference(&shape, &q, &k, &v);
                for grid in [AttentionGrid::Auto, AttentionGrid::Ctas(g.gen_range(1..=3))] {
                    attn.set_grid(grid);
                    let mut o = poisoned::<bf16>(&gpu, shape.q_len()).unwrap();
                    let mut lse = poisoned::<f32>(&gpu, shape.lse_len()).unwrap();
                    attn.run(&shape, &dq, &dk, &dv, &mut o, &mut lse).unwrap();
                    let (o, lse) = (gpu.download(&o).unwrap(), gpu.download(&lse).unwrap());
                    let (share, first) = judge(&shape, &want, &o, &lse);
                    worst_share = worst_share.max(share);
                    println!("bn {bn}, {consumers} consumers, stream {stream}, {shape:?}, {grid:?}: largest error {share:.3} of the bound");
                    if let Some(first) = first {
                        failures.push(format!("bn {bn}, {consumers} consumers, stream {stream}, {shape:?}, {grid:?}: {first}"));
                    }
                    cases += 1;
                }
            }
        }
    }
    println!("{cases} cases; the largest error of any element: {worst_share:.3} of its bound");
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
