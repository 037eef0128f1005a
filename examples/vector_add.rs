//! `c = a + b` on the GPU with 16-byte accesses, checked against the CPU.
//!
//!     cargo run --release --features cuda --example vector_add
mod common;

use ptxkit::kernels;
use ptxkit::prelude::*;
use ptxkit::runtime::Launch;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_80);
    let k = kernels::vector_add(&mut m)?;
    let text = m.to_ptx()?;
    let Some(gpu) = common::gpu("vector_add") else { return Ok(()) };
    let n = common::LEN;
    let a: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let b: Vec<f32> = (0..n).map(|i| (i as f32 * 0.5).cos()).collect();
    let module = gpu.load(&text)?;
    let kern = module.kernel(&k)?;
    let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut dc = ptxkit::runtime::testing::poisoned::<f32>(&gpu, n)?;
    let cfg = Launch::new(kernels::blocks_for_v4(n as u32), kernels::BLOCK);
    let ms = gpu.time(|| kern.launch(&cfg, (&da, &db, &mut dc, n as u32)))?;
    let c = gpu.download(&dc)?;
    let bad = (0..n).filter(|&i| c[i].to_bits() != (a[i] + b[i]).to_bits()).count();
    println!("vector_add: {n} elements in {ms:.3} ms, {bad} mismatches");
    if bad > 0 {
        std::process::exit(1);
    }
    Ok(())
}
