//! Builder speed and memory: build and print kernels of 10^4, 10^5 and 10^6 instructions.
//! A table gives, per size, the median time, instructions per second and the peak heap
//! (measured by a counting allocator) per instruction, so that linear growth shows as
//! constant rates, without and with line info (`Module::set_line_info`); criterion times the
//! 10^4 kernel and the Hopper GEMM.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptxkit::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting the bytes live and their peak.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            PEAK.fetch_max(LIVE.fetch_add(l.size(), Relaxed) + l.size(), Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new > l.size() {
                PEAK.fetch_max(LIVE.fetch_add(new - l.size(), Relaxed) + new - l.size(), Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}
#[global_allocator]
static ALLOC: Counting = Counting;

/// A kernel of exactly `n` instructions (a mix of loads, arithmetic, compares, selects,
/// stores and a loop), as text; with a `.loc` per source line when `line_info`.
fn build_with(n: usize, line_info: bool) -> (usize, String) {
    let mut m = Module::new(Target::SM_90);
    m.set_line_info(line_info);
    let mut count = 0;
    m.kernel("big", |k, (x, y, a): (GlobalPtr<F32>, GlobalPtr<F32>, Reg<F32>)| {
        let i = k.global_thread_index_x();
        let mut acc = ptx!(k, "ld.global.f32", x.at(i));
        let mut j = i;
        while k.len() + 8 + 3 <= n {
            let v = ptx!(k, "ld.global.f32", x.offset(k.len() as i64));
            acc = ptx!(k, "fma.rn.f32", a, v, acc);
            let p = ptx!(k, "setp.gt.f32", acc, 1.0f32);
            acc = ptx!(k, "selp.f32", v, acc, p);
            j = ptx!(k, "add.u32", j, 3u32);
            let b = ptx!(k, "and.b32", j, 0xffu32);
            let c = ptx!(k, "cvt.rn.f32.u32", b);
            acc = ptx!(k, "add.f32", acc, c);
        }
        while k.len() + 3 < n {
            acc = ptx!(k, "mul.rn.f32", acc, a);
        }
        ptx!(k, "st.global.f32", y.at(i), acc);
        count = k.len() + 1; // + the closing ret
        let _ = j;
    })
    .unwrap();
    (count, m.to_ptx().unwrap())
}

fn build(n: usize) -> (usize, String) {
    build_with(n, false)
}

/// Median seconds of `reps` builds of `n` instructions, and the peak heap of one build
/// (bytes above what was live before it).
fn measure(n: usize, reps: usize, line_info: bool) -> (f64, usize) {
    let build = |n| build_with(n, line_info);
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let (count, text) = build(n);
    assert_eq!(count, n);
    let peak = PEAK.load(Relaxed) - base;
    drop(text);
    for _ in 0..reps.div_ceil(4) {
        std::hint::black_box(build(n)); // warm-up
    }
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let t = std::time::Instant::now();
            std::hint::black_box(build(n));
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[reps / 2], peak)
}

fn bench_sizes(_: &mut Criterion) {
    println!("builder: build and print, median of the reps; peak heap of one build");
    println!("| instructions | line info | reps | median | million instructions/s | peak heap | heap bytes per instruction |");
    println!("|---|---|---|---|---|---|---|");
    for (n, reps, line_info) in
        [(10_000, 200, false), (100_000, 30, false), (1_000_000, 7, false), (10_000, 200, true), (100_000, 30, true), (1_000_000, 7, true)]
    {
        let (t, peak) = measure(n, reps, line_info);
        println!(
            "| {n} | {} | {reps} | {:.2} ms | {:.1} | {:.1} MiB | {:.0} |",
            if line_info { "on" } else { "off" },
            t * 1e3,
            n as f64 / t / 1e6,
            peak as f64 / (1 << 20) as f64,
            peak as f64 / n as f64
        );
    }
}

fn bench(c: &mut Criterion) {
    let n = 10_000;
    let (count, text) = build(n);
    assert_eq!(count, n);
    assert!(text.lines().count() > n);
    let mut g = c.benchmark_group("builder");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("build_and_print_10k_instructions", |b| b.iter(|| build(n)));
    g.finish();

    // A plain summary line, independent of criterion's formatting.
    let reps = 200;
    let t = std::time::Instant::now();
    for _ in 0..reps {
        std::hint::black_box(build(n));
    }
    let per = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "builder: {:.1} million instructions/s built and printed ({:.0} us per 10k-instruction kernel)",
        n as f64 / per / 1e6,
        per * 1e6
    );
}

/// The Hopper GEMM's module (its staged bf16 kernel, the default configuration), built and
/// printed.
fn gemm_ptx() -> String {
    let mut m = ptxkit::builder::Module::new(ptxkit::prelude::Target::SM_90A);
    ptxkit::kernels::gemm::gemm_staged::<ptxkit::types::Bf16>(&mut m, "gemm", &ptxkit::kernels::gemm::hopper::Config::default())
        .expect("the GEMM builds");
    m.to_ptx().expect("the GEMM prints")
}

fn bench_gemm(c: &mut Criterion) {
    assert!(gemm_ptx().contains("wgmma.mma_async"));
    c.bench_function("build_and_print_hopper_gemm", |b| b.iter(gemm_ptx));
    let reps = 200;
    let t = std::time::Instant::now();
    for _ in 0..reps {
        std::hint::black_box(gemm_ptx());
    }
    println!("builder: the Hopper GEMM's PTX built and printed in {:.0} us", t.elapsed().as_secs_f64() / reps as f64 * 1e6);
}

criterion_group!(benches, bench, bench_gemm, bench_sizes);
criterion_main!(benches);
