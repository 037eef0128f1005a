//! Ahead-of-time cubins, and which of them a driver loads: a kernel assembled by each ptxas
//! given (the one found, `PTXAS`, and any more in `PTXAS_MORE`, colon-separated) from its
//! own PTX text and from the same text declared as a newer PTX ISA, then loaded and run on
//! the GPU beside the same text JIT-compiled by the driver.
//!
//!     cargo run --example aot_cubin --features cuda -- build DIR   # where ptxas is
//!     cargo run --example aot_cubin --features cuda -- run DIR     # where the GPU is
//!
//! `build` writes `DIR/<label>.cubin` for each ptxas and ISA version it accepts, and the
//! texts `DIR/<label>.ptx`; `run` loads every file of DIR, runs `saxpy` with each on fresh
//! inputs against a CPU reference, and prints one line per file: loaded and correct, or the
//! loader's error. Each step says what it lacks (no ptxas, no GPU) and does nothing then.

use ptxkit::prelude::*;
use ptxkit::ptxas::{compile, version, CompileOptions};
use ptxkit::runtime::{testing::gpu_or_skip, Launch};
use std::path::{Path, PathBuf};

/// The PTX ISA versions the text is also written as (besides its own, the oldest it needs).
const NEWER: &[&str] = &["9.0", "9.5"];

fn module() -> Result<(Module, KernelRef<ptxkit::kernels::SaxpyParams>), ptxkit::Error> {
    let mut m = Module::new(Target::SM_90);
    let k = ptxkit::kernels::saxpy(&mut m)?;
    Ok((m, k))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("build"), Some(dir)) => build(Path::new(dir)),
        (Some("run"), Some(dir)) => run(Path::new(dir)),
        _ => Err("usage: aot_cubin build DIR | run DIR".into()),
    }
}

fn build(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let (m, _) = module()?;
    let text = m.to_ptx()?;
    let own = text.lines().find_map(|l| l.strip_prefix(".version ")).ok_or("no .version")?.trim().to_string();
    let mut ptxases: Vec<PathBuf> = ptxkit::ptxas::find().into_iter().collect();
    if let Ok(more) = std::env::var("PTXAS_MORE") {
        ptxases.extend(std::env::split_paths(&more));
    }
    if ptxases.is_empty() {
        println!("no ptxas found (python3 -m pip install nvidia-cuda-nvcc==13.0.88): nothing built");
        return Ok(());
    }
    for isa in std::iter::once(own.as_str()).chain(NEWER.iter().copied()) {
        let text = text.replacen(&format!(".version {own}"), &format!(".version {isa}"), 1);
        std::fs::write(dir.join(format!("isa-{isa}.ptx")), &text)?;
        for px in &ptxases {
            let v = version(px)?;
            let label = format!("ptxas-{v}.isa-{isa}");
            match compile(px, &text, m.target(), &CompileOptions::default()) {
                Ok(c) => {
                    std::fs::write(dir.join(format!("{label}.cubin")), &c.cubin)?;
                    println!("{label}: {} bytes of cubin", c.cubin.len());
                }
                Err(e) => println!("{label}: ptxas refused it: {}", e.lines().next().unwrap_or("")),
            }
        }
    }
    Ok(())
}

fn run(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let Some(gpu) = gpu_or_skip("aot_cubin") else { return Ok(()) };
    let (dmaj, dmin) = gpu.driver_version();
    println!("{} (sm_{}{}), driver API {dmaj}.{dmin}", gpu.name(), gpu.compute_capability().0, gpu.compute_capability().1);
    let (_, saxpy) = module()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    files.sort();
    let n = 1 << 20;
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 / 7.0).collect();
    let y0: Vec<f32> = (0..n).map(|i| ((i * 104729) % 1000) as f32 / 3.0).collect();
    let a = 1.5f32;
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| a.mul_add(*x, *y)).collect();
    for f in files {
        let name = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let loaded = match f.extension().and_then(|e| e.to_str()) {
            Some("cubin") => gpu.load_cubin(&std::fs::read(&f)?),
            Some("ptx") => gpu.load(&std::fs::read_to_string(&f)?),
            _ => continue,
        };
        let module = match loaded {
            Ok(m) => m,
            Err(e) => {
                println!("{name}: not loaded: {}", e.to_string().lines().next().unwrap_or(""));
                continue;
            }
        };
        let kernel = module.kernel(&saxpy)?;
        let dx = gpu.upload(&x)?;
        let mut dy = gpu.upload(&y0)?;
        kernel.launch(&Launch::new(ptxkit::kernels::blocks_for_v4(n as u32), ptxkit::kernels::BLOCK), (&dx, &mut dy, a, n as u32))?;
        let got = gpu.download(&dy)?;
        let wrong = got.iter().zip(&want).filter(|(g, w)| g.to_bits() != w.to_bits()).count();
        println!("{name}: loaded and ran: {} of {n} elements wrong", wrong);
    }
    Ok(())
}
