//! Bandwidth of the example kernels at 1 GiB per buffer, beside cuMemcpyDtoD in the same
//! run, timed with CUDA events; plus each module's builder time and JIT time.
//!
//!     CUDA_CACHE_DISABLE=1 cargo bench --features cuda --bench kernels
//!
//! Every kernel is first checked against the CPU on the full buffers. The table it prints
//! (median of 30 timed runs after warm-up) is what bench/results/ records; with
//! `PTXKIT_RESULTS=path` it is also written there.

use criterion::{criterion_group, criterion_main, Criterion};
use ptxkit::kernels::{self, BLOCK};
use ptxkit::prelude::*;
use ptxkit::runtime::{median, Gpu, Launch, LoadedModule, RuntimeError};
use std::fmt::Write;
use std::time::{Duration, Instant};

const N: usize = 1 << 28; // 1 GiB of 4-byte elements
const GIB: f64 = (1u64 << 30) as f64;

/// Builds one kernel in its own module; returns the text and the builder time.
fn build<P>(f: impl FnOnce(&mut Module) -> Result<KernelRef<P>, Error>) -> (KernelRef<P>, String, Duration) {
    let t = Instant::now();
    let mut m = Module::new(Target::SM_80);
    let k = f(&mut m).expect("kernel builds");
    let text = m.to_ptx().expect("module prints");
    (k, text, t.elapsed())
}

fn load(gpu: &Gpu, text: &str) -> LoadedModule {
    gpu.load(text).unwrap_or_else(|e| panic!("JIT: {e}"))
}

fn gbps(bytes: f64, ms: f32) -> f64 {
    bytes / (ms as f64 * 1e-3) / 1e9
}

fn run(c: &mut Criterion) {
    let Some(gpu) = ptxkit::runtime::testing::gpu_or_skip("kernels bench") else { return };
    let mut report = String::new();
    let (cc, drv) = (gpu.compute_capability(), gpu.driver_version());
    writeln!(
        report,
        "GPU: {} (sm_{}{}), driver API {}.{}, JIT cache disabled: {}",
        gpu.name(),
        cc.0,
        cc.1,
        drv.0,
        drv.1,
        gpu.jit_cache_disabled()
    )
    .unwrap();

    // The first module of a process also initialises the form and ISA tables; do that
    // before timing the builder.
    let _ = build(kernels::copy_scalar);
    let (k_copy, t_copy, b_copy) = build(kernels::copy_scalar);
    let (k_v4, t_v4, b_v4) = build(kernels::copy_v4);
    let (k_add, t_add, b_add) = build(kernels::vector_add);
    let (k_saxpy, t_saxpy, b_saxpy) = build(kernels::saxpy);
    let (m_copy, m_v4, m_add, m_saxpy) = (load(&gpu, &t_copy), load(&gpu, &t_v4), load(&gpu, &t_add), load(&gpu, &t_saxpy));
    writeln!(report, "\n| module | instructions (PTX lines) | builder time | JIT time |\n|---|---|---|---|").unwrap();
    for (name, text, b, m) in [
        ("copy_scalar", &t_copy, b_copy, &m_copy),
        ("copy_v4", &t_v4, b_v4, &m_v4),
        ("vector_add", &t_add, b_add, &m_add),
        ("saxpy", &t_saxpy, b_saxpy, &m_saxpy),
    ] {
        writeln!(
            report,
            "| {name} | {} | {:.1} us | {:.2} ms |",
            text.lines().count(),
            b.as_secs_f64() * 1e6,
            m.jit_time().as_secs_f64() * 1e3
        )
        .unwrap();
    }

    let host: Vec<u32> = (0..N as u32).map(|i| i.wrapping_mul(2654435761) ^ (i >> 7)).collect();
    let fa: Vec<f32> = host.iter().map(|v| (*v >> 8) as f32 * 1e-4).collect();
    let fb: Vec<f32> = host.iter().map(|v| (v.rotate_left(11) >> 8) as f32 * -3e-5).collect();
    let src = gpu.upload(&host).unwrap();
    let mut dst = gpu.zeros::<u32>(N).unwrap();
    let (a, b) = (gpu.upload(&fa).unwrap(), gpu.upload(&fb).unwrap());
    let mut out = gpu.zeros::<f32>(N).unwrap();
    let n = N as u32;
    let (copy, v4, add, saxpy) =
        (m_copy.kernel(&k_copy).unwrap(), m_v4.kernel(&k_v4).unwrap(), m_add.kernel(&k_add).unwrap(), m_saxpy.kernel(&k_saxpy).unwrap());
    let scalar_cfg = Launch::new(n.div_ceil(BLOCK), BLOCK);
    let v4_cfg = Launch::new(kernels::blocks_for_copy_v4(n), BLOCK);
    let vec_cfg = Launch::new(kernels::blocks_for_v4(n), BLOCK);
    let alpha = 0.75f32;

    // Correct first, on the full buffers.
    for (name, res) in [("copy_scalar", copy.launch(&scalar_cfg, (&src, &mut dst, n)))] {
        res.unwrap();
        assert!(gpu.download(&dst).unwrap() == host, "{name}: wrong copy");
    }
    ptxkit::runtime::testing::poison(&gpu, &mut dst).unwrap();
    v4.launch(&v4_cfg, (&src, &mut dst, n)).unwrap();
    assert!(gpu.download(&dst).unwrap() == host, "copy_v4: wrong copy");
    add.launch(&vec_cfg, (&a, &b, &mut out, n)).unwrap();
    let got = gpu.download(&out).unwrap();
    assert!((0..N).all(|i| got[i].to_bits() == (fa[i] + fb[i]).to_bits()), "vector_add: wrong sums");
    let mut y = gpu.upload(&fb).unwrap();
    saxpy.launch(&vec_cfg, (&a, &mut y, alpha, n)).unwrap();
    let got = gpu.download(&y).unwrap();
    assert!((0..N).all(|i| got[i].to_bits() == alpha.mul_add(fa[i], fb[i]).to_bits()), "saxpy: wrong results");

    // Then timed, all in this run: medians of 30 event-timed runs after 5 warm-ups.
    let time = |f: &mut dyn FnMut() -> Result<(), RuntimeError>| median(&gpu.bench(5, 30, f).unwrap()).unwrap();
    let memcpy_ms = time(&mut || gpu.memcpy_dtod(&src, &mut dst));
    let memcpy_bw = gbps(2.0 * GIB, memcpy_ms);
    let rows = [
        ("cuMemcpyDtoD (baseline)", 2.0, memcpy_ms),
        ("copy_scalar", 2.0, time(&mut || copy.launch(&scalar_cfg, (&src, &mut dst, n)))),
        ("copy_v4", 2.0, time(&mut || v4.launch(&v4_cfg, (&src, &mut dst, n)))),
        ("vector_add", 3.0, time(&mut || add.launch(&vec_cfg, (&a, &b, &mut out, n)))),
        ("saxpy", 3.0, time(&mut || saxpy.launch(&vec_cfg, (&a, &mut y, alpha, n)))),
    ];
    writeln!(report, "\n| kernel (1 GiB per buffer) | GiB moved | median ms | GB/s | ratio to memcpy |\n|---|---|---|---|---|").unwrap();
    for (name, gib, ms) in rows {
        let bw = gbps(gib * GIB, ms);
        writeln!(report, "| {name} | {gib} | {ms:.3} | {bw:.0} | {:.3} |", bw / memcpy_bw).unwrap();
    }
    println!("{report}");

    // Criterion's own statistics over the same launches, GPU-timed.
    let mut g = c.benchmark_group("kernels_1GiB");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let mut custom = |name: &str, f: &mut dyn FnMut() -> Result<(), RuntimeError>| {
        g.bench_function(name, |bch| {
            bch.iter_custom(|iters| {
                Duration::from_secs_f64(gpu.bench(0, iters as usize, &mut *f).unwrap().iter().map(|t| *t as f64).sum::<f64>() * 1e-3)
            })
        });
    };
    custom("memcpy_dtod", &mut || gpu.memcpy_dtod(&src, &mut dst));
    custom("copy_v4", &mut || v4.launch(&v4_cfg, (&src, &mut dst, n)));
    g.finish();

    // Shapes of the vector copy, in this run beside the same baseline.
    let sms = gpu.multiprocessors();
    // Each shape is timed twice, each time right after its own memcpy baseline, so the
    // ratio is to an adjacent baseline and the spread shows the noise.
    let mut shapes =
        String::from("\n| copy_v4 shape | median ms (two runs) | memcpy ms beside | ratio to memcpy (two runs) |\n|---|---|---|---|\n");
    let mut variants = Vec::new();
    for block in [128, 256, 384, 512, 768] {
        variants.push(kernels::CopyV4 { block, unroll: 1, ..kernels::CopyV4::DEFAULT });
    }
    variants.push(kernels::CopyV4 { block: 512, unroll: 2, ..kernels::CopyV4::DEFAULT });
    variants.push(kernels::CopyV4 { block: 1024, unroll: 2, ..kernels::CopyV4::DEFAULT });
    for o in variants {
        let (k, text, _) = build(|m| kernels::copy_v4_with(m, "copy_shape", o));
        let module = load(&gpu, &text);
        let kern = module.kernel(&k).unwrap();
        let cfg = Launch::new(o.blocks(n, sms), o.block);
        ptxkit::runtime::testing::poison(&gpu, &mut dst).unwrap();
        kern.launch(&cfg, (&src, &mut dst, n)).unwrap();
        assert!(gpu.download(&dst).unwrap() == host, "{o:?}: wrong copy");
        let mut runs = Vec::new();
        for _ in 0..2 {
            let base = time(&mut || gpu.memcpy_dtod(&src, &mut dst));
            let ms = time(&mut || kern.launch(&cfg, (&src, &mut dst, n)));
            runs.push((ms, base));
        }
        writeln!(
            shapes,
            "| block {}, unroll {}, load {:?}, store {:?}{} | {:.3}, {:.3} | {:.3}, {:.3} | {:.3}, {:.3} |",
            o.block,
            o.unroll,
            o.load,
            o.store,
            if o.grid_stride { ", grid-stride" } else { "" },
            runs[0].0,
            runs[1].0,
            runs[0].1,
            runs[1].1,
            runs[0].1 / runs[0].0,
            runs[1].1 / runs[1].0
        )
        .unwrap();
    }
    println!("{shapes}");
    if let Ok(path) = std::env::var("PTXKIT_RESULTS") {
        std::fs::write(&path, report + &shapes).expect("write results");
    }
}

criterion_group!(benches, run);
criterion_main!(benches);
