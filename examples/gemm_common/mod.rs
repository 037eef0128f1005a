//! Shared by the GEMM examples: where no GPU runs the kernel, its PTX is written to
//! `target/` and assembled; where one does, the product is checked against cuBLAS and both
//! are timed.

use ptxkit::prelude::*;

/// Writes `m`'s text to `target/<file>` and prints what ptxas says of its registers,
/// spills and warnings for the module's target.
pub fn write_and_assemble(m: &Module, file: &str) -> Result<(), Box<dyn std::error::Error>> {
    let ptx = m.to_ptx()?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join(file);
    std::fs::create_dir_all(path.parent().expect("target/"))?;
    std::fs::write(&path, &ptx)?;
    println!("{} lines of PTX in {}", ptx.lines().count(), path.display());
    match ptxkit::ptxas::find() {
        Some(px) => {
            let report = ptxkit::ptxas::resources(&px, &ptx, m.target())?;
            report
                .iter()
                .filter(|l| l.contains("Used") || l.contains("spill") || l.contains("warning"))
                .for_each(|l| println!("ptxas: {}", l.trim()));
        }
        None => println!("ptxas not found (python3 -m pip install nvidia-cuda-nvcc==13.0.88, or set PTXAS): not assembled"),
    }
    Ok(())
}

/// `C = A·Bᵀ` at 4096³ in bf16 by `ours` (A, B, C, m, n, k), checked against cuBLAS on
/// random inputs with the outputs poisoned first, then both timed.
#[cfg(feature = "cublas")]
pub fn check_and_time(
    gpu: &ptxkit::runtime::Gpu,
    mut ours: impl FnMut(
        &ptxkit::runtime::CudaSlice<half::bf16>,
        &ptxkit::runtime::CudaSlice<half::bf16>,
        &mut ptxkit::runtime::CudaSlice<half::bf16>,
        u32,
        u32,
        u32,
    ) -> Result<(), ptxkit::runtime::RuntimeError>,
) -> Result<(), Box<dyn std::error::Error>> {
    use half::bf16;
    use ptxkit::runtime::testing::{discrepancy, median, normal_bf16, poisoned};
    use ptxkit::runtime::{Cublas, GemmRunner, GemmShape};

    let (m, n, k) = (4096u32, 4096u32, 4096u32);
    let blas = Cublas::new(gpu)?;
    let a = gpu.upload(&normal_bf16(1, (m * k) as usize))?;
    let b = gpu.upload(&normal_bf16(2, (n * k) as usize))?;
    let (mut c, mut r) = (poisoned::<bf16>(gpu, (m * n) as usize)?, poisoned::<bf16>(gpu, (m * n) as usize)?);
    ours(&a, &b, &mut c, m, n, k)?;
    blas.run(gpu, &a, &b, &mut r, &GemmShape::new(m, n, k))?;
    let f = |v: Vec<bf16>| v.iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
    let d = discrepancy(&f(gpu.download(&c)?), &f(gpu.download(&r)?), 1e-2);
    println!("{m}x{n}x{k}: relative error against cuBLAS {:.1e}, {} elements outside tolerance", d.relative, d.wrong);
    if d.wrong > 0 {
        return Err(format!("the product is wrong: {d:?}").into());
    }
    let flop = 2.0 * m as f64 * n as f64 * k as f64;
    let mine = median(&gpu.bench(5, 20, || ours(&a, &b, &mut c, m, n, k))?).unwrap_or(f32::NAN);
    let theirs = median(&gpu.bench(5, 20, || blas.run(gpu, &a, &b, &mut r, &GemmShape::new(m, n, k)))?).unwrap_or(f32::NAN);
    let tf = |ms: f32| flop / (ms as f64 * 1e-3) / 1e12;
    println!("ptxkit {:.0} TFLOP/s, cuBLAS {:.0} TFLOP/s on {}", tf(mine), tf(theirs), gpu.name());
    Ok(())
}
