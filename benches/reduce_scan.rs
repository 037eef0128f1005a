//! Device-wide sum and inclusive scan of 2^30 f32, built from the block collectives, timed
//! with CUDA events beside cuMemcpyDtoD in the same run. `bench/torch_baseline.py` times
//! torch.sum and torch.cumsum on the same machine right after (the device command runs
//! both); bench/results/ records the pair.
//!
//!     cargo bench --features cuda --bench reduce_scan

use ptxkit::kernels::{self, SCAN_BLOCK, SCAN_TILE, SUM_BLOCK};
use ptxkit::prelude::*;
use ptxkit::runtime::{median, Launch, RuntimeError};
use std::fmt::Write;

const N: usize = 1 << 30;

/// The worst relative error of `got` against the f64 running sum of `host`; panics above
/// 1e-5 or on a non-finite element.
fn scan_error(host: &[f32], got: &[f32], what: &str) -> f64 {
    let (mut acc, mut worst) = (0f64, 0f64);
    for (i, v) in host.iter().enumerate() {
        acc += *v as f64;
        let e = (got[i] as f64 - acc).abs() / acc.max(1.0);
        assert!(e.is_finite(), "{what}: element {i} is {}", got[i]);
        worst = worst.max(e);
    }
    assert!(worst < 1e-5, "{what}: worst relative error {worst}");
    worst
}

fn main() {
    let Some(gpu) = ptxkit::runtime::testing::gpu_or_skip("reduce_scan bench") else { return };
    let mut report = String::new();
    writeln!(
        report,
        "GPU: {} ({} SMs), driver API {}.{}",
        gpu.name(),
        gpu.multiprocessors(),
        gpu.driver_version().0,
        gpu.driver_version().1
    )
    .unwrap();
    let mut m = Module::new(Target::SM_80);
    let (sp, sf) = (kernels::sum_partials(&mut m).unwrap(), kernels::sum_final(&mut m).unwrap());
    let (ts, tp, st) =
        (kernels::scan_tile_sums(&mut m).unwrap(), kernels::scan_tile_prefix(&mut m).unwrap(), kernels::scan_tiles(&mut m).unwrap());
    let module = gpu.load(&m.to_ptx().unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let (sp, sf, ts, tp, st) = (
        module.kernel(&sp).unwrap(),
        module.kernel(&sf).unwrap(),
        module.kernel(&ts).unwrap(),
        module.kernel(&tp).unwrap(),
        module.kernel(&st).unwrap(),
    );

    // Random data in [0, 1), never zeros; an f64 reference.
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let host: Vec<f32> = (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect();
    let x = gpu.upload(&host).unwrap();
    let n = N as u32;
    let sum_blocks = gpu.multiprocessors() * (2048 / SUM_BLOCK as u32);
    let mut partials = gpu.zeros::<f32>(sum_blocks as usize).unwrap();
    let mut total = ptxkit::runtime::testing::poisoned::<f32>(&gpu, 1).unwrap();
    let tiles = n.div_ceil(SCAN_TILE);
    let mut tile_sums = gpu.zeros::<f32>(tiles as usize).unwrap();
    let mut tile_prefix = gpu.zeros::<f32>(tiles as usize).unwrap();
    let mut y = ptxkit::runtime::testing::poisoned::<f32>(&gpu, N).unwrap();
    let mut copy = gpu.zeros::<f32>(N).unwrap();

    // Correct first.
    sp.launch(&Launch::new(sum_blocks, SUM_BLOCK as u32), (&x, &mut partials, n)).unwrap();
    sf.launch(&Launch::new(1, 1024), (&partials, &mut total, sum_blocks)).unwrap();
    ts.launch(&Launch::new(tiles, SCAN_BLOCK as u32), (&x, &mut tile_sums, n)).unwrap();
    tp.launch(&Launch::new(1, 1024), (&tile_sums, &mut tile_prefix, tiles)).unwrap();
    st.launch(&Launch::new(tiles, SCAN_BLOCK as u32), (&x, &mut y, &tile_prefix, n)).unwrap();
    let got_sum = gpu.download(&total).unwrap()[0] as f64;
    let exact: f64 = host.iter().map(|v| *v as f64).sum();
    let sum_err = (got_sum - exact).abs() / exact;
    assert!(sum_err < 1e-5, "sum {got_sum} vs {exact}: relative error {sum_err}");
    let worst = scan_error(&host, &gpu.download(&y).unwrap(), "three-pass scan");
    writeln!(report, "sum relative error {sum_err:.2e}; scan worst relative error {worst:.2e} (against f64)").unwrap();

    let mut sum = || -> Result<(), RuntimeError> {
        sp.launch(&Launch::new(sum_blocks, SUM_BLOCK as u32), (&x, &mut partials, n))?;
        sf.launch(&Launch::new(1, 1024), (&partials, &mut total, sum_blocks))
    };
    let mut scan = || -> Result<(), RuntimeError> {
        ts.launch(&Launch::new(tiles, SCAN_BLOCK as u32), (&x, &mut tile_sums, n))?;
        tp.launch(&Launch::new(1, 1024), (&tile_sums, &mut tile_prefix, tiles))?;
        st.launch(&Launch::new(tiles, SCAN_BLOCK as u32), (&x, &mut y, &tile_prefix, n))
    };

    let time = |f: &mut dyn FnMut() -> Result<(), RuntimeError>| median(&gpu.bench(3, 20, f).unwrap()).unwrap();

    // The single-pass scan (decoupled look-back), at several shapes: each checked, then timed
    // with its status words and tile counter cleared inside each timed run.
    let mut one_pass_rows = Vec::new();
    // The default shape first, then neighbours (earlier sweeps are in bench/results/).
    for (block, items, minb) in [
        (kernels::ONE_PASS_BLOCK as u32, kernels::ONE_PASS_ITEMS, 0u32),
        (384, 28, 5),
        (320, 28, 0),
        (384, 20, 0),
        (256, 36, 0),
        (256, 28, 0),
    ] {
        let mut m1 = Module::new(Target::SM_80);
        let kr = match block {
            256 => kernels::scan_single_pass::<256>(&mut m1, "scan_single_pass", items, minb),
            320 => kernels::scan_single_pass::<320>(&mut m1, "scan_single_pass", items, minb),
            384 => kernels::scan_single_pass::<384>(&mut m1, "scan_single_pass", items, minb),
            other => panic!("no instantiation for blocks of {other} threads"),
        }
        .unwrap();
        let module1 = gpu.load(&m1.to_ptx().unwrap()).unwrap_or_else(|e| panic!("{e}"));
        let k1 = module1.kernel(&kr).unwrap();
        let tiles1 = n.div_ceil(block * items);
        let mut status = gpu.zeros::<u64>(tiles1 as usize).unwrap();
        let mut counter = gpu.zeros::<u32>(1).unwrap();
        let mut out1 = ptxkit::runtime::testing::poisoned::<f32>(&gpu, N).unwrap();
        let mut run1 = || -> Result<(), RuntimeError> {
            gpu.fill_bytes(&mut status, 0)?;
            gpu.fill_bytes(&mut counter, 0)?;
            k1.launch(&Launch::new(tiles1, block), (&x, &mut out1, &mut status, &mut counter, n))
        };
        run1().unwrap();
        drop(run1);
        let worst = scan_error(&host, &gpu.download(&out1).unwrap(), &format!("single-pass scan, {block} x {items}"));
        let mut run1 = || -> Result<(), RuntimeError> {
            gpu.fill_bytes(&mut status, 0)?;
            gpu.fill_bytes(&mut counter, 0)?;
            k1.launch(&Launch::new(tiles1, block), (&x, &mut out1, &mut status, &mut counter, n))
        };
        let ms = time(&mut run1);
        one_pass_rows.push((block, items, minb, ms, worst));
    }
    let memcpy = time(&mut || gpu.memcpy_dtod(&x, &mut copy));
    let bw = 2.0 * 4.0 * N as f64 / (memcpy as f64 * 1e-3) / 1e9;
    let t_sum = time(&mut sum);
    let t_scan = time(&mut scan);
    let read_bound = 4.0 * N as f64 / (bw * 1e9) * 1e3;
    let rw_bound = 8.0 * N as f64 / (bw * 1e9) * 1e3;
    writeln!(report, "\n| 2^30 f32 | median ms | GB/s moved | bound at memcpy bandwidth |\n|---|---|---|---|").unwrap();
    writeln!(report, "| cuMemcpyDtoD 4 GiB | {memcpy:.3} | {bw:.0} | |").unwrap();
    writeln!(
        report,
        "| sum (2 kernels) | {t_sum:.3} | {:.0} | read 4 GiB: {read_bound:.3} ms ({:.1} % of bound) |",
        4.0 * N as f64 / (t_sum as f64 * 1e6),
        100.0 * read_bound / t_sum as f64
    )
    .unwrap();
    writeln!(
        report,
        "| inclusive scan (3 kernels) | {t_scan:.3} | {:.0} | read+write 8 GiB: {rw_bound:.3} ms ({:.1} % of bound) |",
        12.0 * N as f64 / (t_scan as f64 * 1e6),
        100.0 * rw_bound / t_scan as f64
    )
    .unwrap();
    for (block, items, minb, ms, worst) in &one_pass_rows {
        writeln!(report, "| inclusive scan, single pass, {block} threads x {items}, min blocks/SM {minb} (worst rel. error {worst:.1e}) | {ms:.3} | {:.0} | read+write 8 GiB: {rw_bound:.3} ms ({:.1} % of bound) |", 8.0 * N as f64 / (*ms as f64 * 1e6), 100.0 * rw_bound / *ms as f64).unwrap();
    }
    let best = one_pass_rows.iter().map(|r| r.3).fold(f32::INFINITY, f32::min);
    println!("{report}");
    println!("PTXKIT_SCAN1_MS={best:.4}");
    println!("PTXKIT_SUM_MS={t_sum:.4} PTXKIT_SCAN_MS={t_scan:.4} PTXKIT_MEMCPY_MS={memcpy:.4}");
    if let Ok(p) = std::env::var("PTXKIT_RESULTS") {
        std::fs::write(p, report).unwrap();
    }
}
