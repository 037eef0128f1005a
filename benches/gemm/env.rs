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
