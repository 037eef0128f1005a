// Shared by the kernel examples: run a kernel example on the GPU when there is one.
use ptxkit::runtime::testing::gpu_or_skip;
use ptxkit::runtime::Gpu;

pub fn gpu(example: &str) -> Option<Gpu> {
    let g = gpu_or_skip(example)?;
    println!(
        "{example}: {} (sm_{}{}), driver {}.{}",
        g.name(),
        g.compute_capability().0,
        g.compute_capability().1,
        g.driver_version().0,
        g.driver_version().1
    );
    Some(g)
}

/// A length that is not a multiple of anything, so tails run (not every example uses it).
#[allow(dead_code)]
pub const LEN: usize = (1 << 24) + 3;

/// The largest difference between `c` (rows × n, row-major, from the GPU) and the f64
/// product `A·Bᵀ` of `a` (rows × k) and `b` (n × k), both row-major bf16 (not every example
/// uses it).
#[allow(dead_code)]
pub fn largest_error(a: &[half::bf16], b: &[half::bf16], c: &[f32], n: usize, k: usize) -> f64 {
    let mut worst = 0f64;
    for (i, got) in c.iter().enumerate() {
        let (r, col) = (i / n, i % n);
        let want: f64 = (0..k).map(|x| a[r * k + x].to_f64() * b[col * k + x].to_f64()).sum();
        worst = worst.max((*got as f64 - want).abs());
    }
    worst
}
