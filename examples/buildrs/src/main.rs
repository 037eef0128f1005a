//! The build script wrote `kernels.ptx` with ptxkit; this program includes the text, types
//! the kernel it expects (checked against the text's `.entry` declaration), and, with the
//! `cuda` feature and a GPU, launches it and checks the result.
//!
//!     cargo run -p ptxkit-buildrs-example --features cuda

use ptxkit::prelude::*;

/// The PTX the build script wrote.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

/// `x[i] *= a` for `i < n`.
pub type Scale = (GlobalPtr<F32>, Reg<F32>, Reg<U32>);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scale = KernelRef::<Scale>::from_ptx(PTX, "scale")?;
    println!("kernels.ptx: {} lines, kernel `{}` typed as {}", PTX.lines().count(), scale.name(), std::any::type_name::<Scale>());
    run(&scale)
}

#[cfg(feature = "cuda")]
fn run(scale: &KernelRef<Scale>) -> Result<(), Box<dyn std::error::Error>> {
    use ptxkit::runtime::{testing::gpu_or_skip, Launch};
    let Some(gpu) = gpu_or_skip("buildrs example") else { return Ok(()) };
    let n = 1_000_003usize;
    let host: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 7.0).collect();
    let mut x = gpu.upload(&host)?;
    let module = gpu.load(PTX)?;
    module.kernel(scale)?.launch(&Launch::cover(n as u32, 256), (&mut x, 3.0f32, n as u32))?;
    let got = gpu.download(&x)?;
    let bad = (0..n).filter(|&i| got[i].to_bits() != (host[i] * 3.0).to_bits()).count();
    println!("scale on {}: {n} elements, {bad} mismatches", gpu.name());
    if bad > 0 {
        return Err(format!("{bad} mismatches").into());
    }
    Ok(())
}

#[cfg(not(feature = "cuda"))]
fn run(_: &KernelRef<Scale>) -> Result<(), Box<dyn std::error::Error>> {
    println!("built without the `cuda` feature: not launching");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_included_text_declares_the_typed_kernel() {
        assert!(KernelRef::<Scale>::from_ptx(PTX, "scale").is_ok());
        let wrong = KernelRef::<(GlobalPtr<U32>, Reg<F32>, Reg<U32>)>::from_ptx(PTX, "scale");
        assert!(wrong.is_ok(), "a u32 pointer is also .u64 in the text; the element type is the Rust side's promise");
        let e = KernelRef::<(GlobalPtr<F32>, Reg<U32>)>::from_ptx(PTX, "scale").unwrap_err();
        assert!(e.to_string().contains("parameters are"), "{e}");
        assert!(KernelRef::<Scale>::from_ptx(PTX, "missing").is_err());
    }

    /// Needs a GPU, so it is reported as ignored unless asked for:
    /// `cargo test --features cuda -- --include-ignored` (with `PTXKIT_REQUIRE_GPU=1`, a
    /// missing GPU then fails it rather than skipping the launch).
    #[cfg(feature = "cuda")]
    #[test]
    #[ignore = "needs a GPU: run with -- --include-ignored"]
    fn launches_on_the_gpu() {
        let scale = KernelRef::<Scale>::from_ptx(PTX, "scale").unwrap();
        run(&scale).unwrap();
    }
}
