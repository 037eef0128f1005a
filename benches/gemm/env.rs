//! What the GEMM benches read from the environment: the shapes, and configurations given as
//! changes to a default.

/// `PTXKIT_GEMM_SHAPES=MxNxK,...`, or `default` when unset.
pub fn shapes(default: Vec<(u32, u32, u32)>) -> Vec<(u32, u32, u32)> {
    match std::env::var("PTXKIT_GEMM_SHAPES") {
        Ok(s) => s
            .split(',')
            .map(|t| {
                let v: Vec<u32> = t.split('x').map(|x| x.trim().parse().expect("PTXKIT_GEMM_SHAPES: MxNxK,...")).collect();
                assert_eq!(v.len(), 3, "PTXKIT_GEMM_SHAPES: MxNxK,...");
                (v[0], v[1], v[2])
            })
            .collect(),
        Err(_) => default,
    }
}

/// `var=field=value,...;field=value,...`: one configuration per `;`, each `default` with
/// the named fields set by `set(config, field, value)` (which panics on an unknown field);
/// the default alone when `var` is unset.
pub fn configs<C: Clone>(var: &str, default: C, set: impl Fn(&mut C, &str, u32)) -> Vec<C> {
    let Ok(s) = std::env::var(var) else { return vec![default] };
    s.split(';')
        .map(|c| {
            let mut cfg = default.clone();
            for kv in c.split(',').filter(|kv| !kv.trim().is_empty()) {
                let (key, v) = kv.split_once('=').unwrap_or_else(|| panic!("{var}: field=value,..."));
                let v: u32 = v.trim().parse().unwrap_or_else(|_| panic!("{var}: numeric values"));
                set(&mut cfg, key.trim(), v);
            }
            cfg
        })
        .collect()
}

/// TFLOP/s of an `m × n × k` product (2·M·N·K operations) that took `ms` milliseconds.
pub fn tflops(m: u32, n: u32, k: u32, ms: f32) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64 / (ms as f64 * 1e-3) / 1e12
}

/// Timing rounds, each 2 warm-up and `PER_ROUND` timed runs of every product in turn.
pub const ROUNDS: usize = 5;
pub const PER_ROUND: usize = 10;

/// How far `got` (bf16 C) is from `want`, or the table cell that says it is wrong: products
/// are compared before they are timed, and a wrong one is not timed. `tol` is the relative
/// error allowed (1e-2 for bf16 inputs).
pub fn agree(
    gpu: &ptxkit::runtime::Gpu,
    got: &ptxkit::runtime::CudaSlice<half::bf16>,
    want: &ptxkit::runtime::CudaSlice<half::bf16>,
    tol: f64,
) -> Result<Result<f64, String>, ptxkit::runtime::RuntimeError> {
    let f = |v: Vec<half::bf16>| v.iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
    let d = ptxkit::runtime::testing::discrepancy(&f(gpu.download(got)?), &f(gpu.download(want)?), tol);
    Ok(if d.wrong > 0 || d.relative.is_nan() || d.relative >= tol {
        Err(format!("WRONG ({} elements, first {:?}), rel. error {:.1e}", d.wrong, d.first, d.relative))
    } else {
        Ok(d.relative)
    })
}

/// The median milliseconds of each of `runs`, timed with CUDA events in `ROUNDS` rounds that
/// alternate them, so that clock and temperature drift fall on all of them.
pub fn time_rounds(
    gpu: &ptxkit::runtime::Gpu,
    runs: &mut [&mut dyn FnMut() -> Result<(), ptxkit::runtime::RuntimeError>],
) -> Result<Vec<f32>, ptxkit::runtime::RuntimeError> {
    let mut times = vec![vec![]; runs.len()];
    for _ in 0..ROUNDS {
        for (run, t) in runs.iter_mut().zip(&mut times) {
            t.extend(gpu.bench(2, PER_ROUND, &mut **run)?);
        }
    }
    Ok(times.iter().map(|t| ptxkit::runtime::median(t).unwrap_or(f32::NAN)).collect())
}

/// `PTXKIT_GEMM_SUSTAIN=n`: each product also runs `n` times back to back (after the timed
/// rounds), printing the wall-clock span (Unix ms) and median TFLOP/s of each stretch, so
/// that clock and power logs (`nvidia-smi --query-gpu=... -lms 10`) can be read against them.
pub fn sustain(
    gpu: &ptxkit::runtime::Gpu,
    (m, n, k): (u32, u32, u32),
    labels: &[&str],
    runs: &mut [&mut dyn FnMut() -> Result<(), ptxkit::runtime::RuntimeError>],
) -> Result<(), ptxkit::runtime::RuntimeError> {
    let Some(count) = std::env::var("PTXKIT_GEMM_SUSTAIN").ok().and_then(|s| s.parse::<usize>().ok()) else { return Ok(()) };
    let now = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    for (label, run) in labels.iter().zip(runs.iter_mut()) {
        let start = now();
        let t = gpu.bench(0, count, &mut **run)?;
        gpu.synchronize()?;
        let ms = ptxkit::runtime::median(&t[t.len() / 2..]).unwrap_or(f32::NAN);
        println!(
            "sustain {m}×{n}×{k} {label}: {start}..{} ms, {count} runs, median of the second half {:.1} TFLOP/s",
            now(),
            tflops(m, n, k, ms)
        );
    }
    Ok(())
}
