//! Builder speed: build and print a 10,000-instruction kernel. Criterion reports the
//! throughput in instructions per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptxkit::prelude::*;

/// A kernel of exactly `n` instructions (a mix of loads, arithmetic, compares, selects,
/// stores and a loop), as text.
fn build(n: usize) -> (usize, String) {
    let mut m = Module::new(Target::SM_90);
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
    ptxkit::kernels::gemm::gemm_staged::<ptxkit::types::Bf16>(&mut m, "gemm", &ptxkit::kernels::gemm::GemmConfig::default())
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

criterion_group!(benches, bench, bench_gemm);
criterion_main!(benches);
