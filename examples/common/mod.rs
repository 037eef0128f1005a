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
