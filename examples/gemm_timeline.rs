//! A phase timeline of the Hopper GEMM: which SM did what, when.
//!
//!     cargo run --release --features cuda --example gemm_timeline -- OUT_DIR [SIZE]
//!
//! Runs the bf16 GEMM (`hopper::Config::default()` with `timeline`) once at SIZE³ (8192 unless
//! given; `M,N,K` for other shapes) on random inputs, after a warm-up run, and writes into
//! OUT_DIR (or `$OUT`, or the current directory):
//!
//! - `timeline.png`: a row per SM, a thin sub-row per warp, a bar per span coloured by its
//!   phase: the producer's waits for an empty stage and its TMA loads, each consumer warp's
//!   waits for a full stage, its wgmma main loop per tile and its epilogue;
//! - `timeline.json`: the same spans in the Chrome trace event format (open it in
//!   `chrome://tracing` or ui.perfetto.dev), an SM per process and a warp per thread.
//!
//! It prints, per phase, the number of spans and their total and mean duration, how many
//! records the warps had no slot for, and the time of the same product without stamps. It
//! needs an sm_90 GPU (H100/H200) and says so where there is none.

#[path = "common/canvas.rs"]
mod canvas;
#[path = "common/timeline_chart.rs"]
mod timeline_chart;

use ptxkit::kernels::gemm::hopper;
use ptxkit::runtime::testing::{median, normal_bf16};
use ptxkit::runtime::{Gemm, GemmRunner, GemmShape, Gpu};
use ptxkit::types::Bf16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().or_else(|| std::env::var("OUT").ok()).unwrap_or_else(|| ".".into());
    let (m, n, k) = match args.next() {
        None => (8192, 8192, 8192),
        Some(s) => match s.split(',').map(str::parse::<u32>).collect::<Result<Vec<_>, _>>()?[..] {
            [x] => (x, x, x),
            [m, n, k] => (m, n, k),
            _ => return Err(format!("SIZE is N or M,N,K, not {s}").into()),
        },
    };
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            println!("gemm_timeline: no CUDA GPU here ({e}): nothing run, nothing written");
            return Ok(());
        }
    };
    if gpu.compute_capability() != (9, 0) {
        println!("gemm_timeline: {} is not sm_90 (H100/H200): the wgmma GEMM cannot run, nothing written", gpu.name());
        return Ok(());
    }
    let plain = hopper::Config::default();
    // Slots for the busiest warp, the producer: two spans (four records) per k-tile of its
    // share of the tiles, and some to spare.
    let tiles = m.div_ceil(plain.bm()) as u64 * n.div_ceil(plain.bn) as u64;
    let per_cta = tiles.div_ceil(gpu.multiprocessors() as u64);
    let slots = (per_cta * k.div_ceil(64) as u64 * 4 + 64).min(ptxkit::intrinsics::timeline::MAX_SLOTS as u64) as u32;
    let cfg = hopper::Config { timeline: Some(slots), ..plain };
    println!("{} (sm_90), {m}x{n}x{k} bf16, {slots} slots per warp", gpu.name());

    let a = gpu.upload(&normal_bf16(1, m as usize * k as usize))?;
    let b = gpu.upload(&normal_bf16(2, n as usize * k as usize))?;
    let mut c = gpu.zeros::<half::bf16>(m as usize * n as usize)?;
    let stamped = Gemm::<Bf16>::new(&gpu, cfg)?;
    let without = Gemm::<Bf16>::new(&gpu, plain)?;
    let time = |g: &Gemm<Bf16>, c: &mut _| -> Result<f32, Box<dyn std::error::Error>> {
        Ok(median(&gpu.bench(2, 10, || g.run(&gpu, &a, &b, c, &GemmShape::new(m, n, k)))?).unwrap_or(f32::NAN))
    };
    let (ms_plain, ms_stamped) = (time(&without, &mut c)?, time(&stamped, &mut c)?);
    // The timeline of one run, after the timed ones.
    stamped.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k))?;
    let trace = stamped.timeline(&gpu)?;

    std::fs::create_dir_all(&out)?;
    let dir = std::path::Path::new(&out);
    let title = format!("GEMM {m}x{n}x{k} bf16 on {}: phases per SM", gpu.name());
    std::fs::write(dir.join("timeline.png"), timeline_chart::timeline_png(&trace, &title))?;
    std::fs::write(dir.join("timeline.json"), trace.to_chrome_trace())?;

    let flop = 2.0 * m as f64 * n as f64 * k as f64;
    let tf = |ms: f32| flop / (ms as f64 * 1e-3) / 1e12;
    println!("without stamps {ms_plain:.3} ms ({:.0} TFLOP/s), with {ms_stamped:.3} ms ({:.0} TFLOP/s)", tf(ms_plain), tf(ms_stamped));
    if let Some((t0, t1)) = trace.time_range() {
        println!(
            "stamped run: {:.3} ms from the first stamp to the last, {} warps on {} SMs",
            (t1 - t0) as f64 / 1e6,
            trace.places().len(),
            {
                let mut sms: Vec<u32> = trace.places().iter().map(|p| p.sm).collect();
                sms.dedup();
                sms.len()
            }
        );
    }
    println!("{:<16} {:>9} {:>12} {:>10}", "phase", "spans", "total ms", "mean us");
    for e in trace.totals() {
        println!("{:<16} {:>9} {:>12.3} {:>10.3}", e.name, e.count, e.total_ns as f64 / 1e6, e.mean_ns() / 1e3);
    }
    println!(
        "records dropped (no slot): {}; unpaired begins or ends: {}; warps without a region: {}",
        trace.dropped,
        trace.unpaired,
        if trace.homeless { "some" } else { "none" }
    );
    println!("wrote {} and {}", dir.join("timeline.png").display(), dir.join("timeline.json").display());
    Ok(())
}
