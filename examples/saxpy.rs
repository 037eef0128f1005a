//! `y = a * x + y` on the GPU with 16-byte accesses, checked against the CPU (fused
//! multiply-add, bit-exact).
//!
//!     cargo run --release --features cuda --example saxpy
mod common;

use ptxkit::kernels;
use ptxkit::prelude::*;
use ptxkit::runtime::Launch;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_80);
    let k = kernels::saxpy(&mut m)?;
    let text = m.to_ptx()?;
    let Some(gpu) = common::gpu("saxpy") else { return Ok(()) };
    let n = common::LEN;
    let alpha = 1.75f32;
    let x: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let y: Vec<f32> = (0..n).map(|i| (i as f32 * 0.5).cos()).collect();
    let module = gpu.load(&text)?;
    let kern = module.kernel(&k)?;
    let (dx, mut dy) = (gpu.upload(&x)?, gpu.upload(&y)?);
    let cfg = Launch::new(kernels::blocks_for_v4(n as u32), kernels::BLOCK);
    let ms = gpu.time(|| kern.launch(&cfg, (&dx, &mut dy, alpha, n as u32)))?;
    let out = gpu.download(&dy)?;
    let bad = (0..n).filter(|&i| out[i].to_bits() != alpha.mul_add(x[i], y[i]).to_bits()).count();
    println!("saxpy: {n} elements in {ms:.3} ms, {bad} mismatches");
    if bad > 0 {
        std::process::exit(1);
    }
    Ok(())
}
