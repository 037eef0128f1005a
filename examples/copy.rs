//! Device-to-device copy, one `u32` per thread and 16 bytes per access, checked against
//! the source.
//!
//!     cargo run --release --features cuda --example copy
mod common;

use ptxkit::kernels;
use ptxkit::prelude::*;
use ptxkit::runtime::Launch;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut m = Module::new(Target::SM_80);
    let scalar = kernels::copy_scalar(&mut m)?;
    let vector = kernels::copy_v4(&mut m)?;
    let text = m.to_ptx()?;
    let Some(gpu) = common::gpu("copy") else { return Ok(()) };
    let n = common::LEN;
    let src: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let module = gpu.load(&text)?;
    let ds = gpu.upload(&src)?;
    let mut failed = false;
    for (name, k, blocks) in
        [("copy_scalar", &scalar, (n as u32).div_ceil(256)), ("copy_v4", &vector, kernels::blocks_for_copy_v4(n as u32))]
    {
        let kern = module.kernel(k)?;
        let mut dd = ptxkit::runtime::testing::poisoned::<u32>(&gpu, n)?;
        let ms = gpu.time(|| kern.launch(&Launch::new(blocks, 256), (&ds, &mut dd, n as u32)))?;
        let out = gpu.download(&dd)?;
        let bad = (0..n).filter(|&i| out[i] != src[i]).count();
        println!("{name}: {n} elements in {ms:.3} ms, {bad} mismatches");
        failed |= bad > 0;
    }
    if failed {
        std::process::exit(1);
    }
    Ok(())
}
