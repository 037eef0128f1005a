//! Import speed: parse and print PTX modules of 10^4, 10^5 and 10^6 instructions. A table
//! gives, per size, the median time of parsing, of printing and of both, and the
//! instructions per second of both: first with an arena of its own for each parse and a
//! new `String` for each print (as `Module::from_ptx` and `print::print` do), then with one
//! arena reset and reused and one `String` cleared and printed into again
//! (`print::print_into`), as a tool that reads many texts does, so that the memory of the
//! tree and of the text is not mapped anew; criterion times the 10^4 module.
//!
//! The text is what compilers emit: register ranges, a mix of loads and stores with
//! offsets, vector operands, arithmetic, compares, guarded branches to labels, `mma.sync`
//! with braced fragments, and a `.loc` every eight instructions.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ptxkit::import::{
    ast::Arena,
    parse::parse,
    print::{print, print_into},
};
use std::fmt::Write;

/// A module of one kernel with exactly `n` instructions, and the count.
fn module(n: usize) -> String {
    let mut s = String::with_capacity(n * 40);
    s.push_str(".version 8.7\n.target sm_90a\n.address_size 64\n\n.file 1 \"k.cu\"\n");
    s.push_str(".visible .entry big(\n\t.param .u64 big_param_0,\n\t.param .u64 big_param_1,\n\t.param .f32 big_param_2\n)\n.maxntid 256, 1, 1\n{\n");
    s.push_str(
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<64>;\n\t.reg .f32 %f<64>;\n\t.reg .b64 %rd<16>;\n\t.shared .align 16 .b8 buf[4096];\n\n",
    );
    s.push_str("\tld.param.u64 %rd1, [big_param_0];\n\tld.param.u64 %rd2, [big_param_1];\n\tld.param.f32 %f1, [big_param_2];\n");
    s.push_str("\tmov.u32 %r1, %tid.x;\n\tcvta.to.global.u64 %rd3, %rd1;\n");
    let mut count = 5;
    let mut block = 0;
    while count + 16 + 1 <= n {
        let b = block;
        let (r, f) = (b % 48 + 2, b % 40 + 4);
        let _ = write!(
            s,
            "$L__BB0_{b}:\n\t.loc 1 {line} 5\n\
             \tld.global.nc.v4.f32 {{%f{f}, %f{f1}, %f{f2}, %f{f3}}}, [%rd3+{off}];\n\
             \tfma.rn.f32 %f{f}, %f1, %f{f1}, %f{f};\n\
             \tsetp.gt.f32 %p1, %f{f}, 0f3F800000;\n\
             \tselp.f32 %f{f2}, %f{f}, %f{f3}, %p1;\n\
             \tadd.s32 %r{r}, %r{r1}, 3;\n\
             \tand.b32 %r{r1}, %r{r}, 255;\n\
             \tcvt.rn.f32.u32 %f{f3}, %r{r1};\n\
             \tshl.b32 %r{r2}, %r1, 4;\n\
             \t.loc 1 {line1} 9\n\
             \tst.shared.v2.f32 [buf+{soff}], {{%f{f}, %f{f2}}};\n\
             \tld.shared.u32 %r{r}, [%r{r2}+16];\n\
             \tmul.wide.u32 %rd4, %r{r}, 4;\n\
             \tadd.s64 %rd5, %rd3, %rd4;\n\
             \tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{%f{f}, %f{f1}, %f{f2}, %f{f3}}}, {{%r2, %r3, %r4, %r5}}, {{%r6, %r7}}, {{%f{f}, %f{f1}, %f{f2}, %f{f3}}};\n\
             \tshfl.sync.bfly.b32 %r{r2}|%p2, %r{r}, 16, 31, -1;\n\
             \tsetp.lt.u32 %p3, %r{r2}, 1024;\n\
             \t@%p3 bra $L__BB0_{b};\n",
            line = 10 + b % 1000,
            line1 = 11 + b % 1000,
            f1 = f + 1,
            f2 = f + 2,
            f3 = f + 3,
            r1 = r + 1,
            r2 = r + 2,
            off = (b % 64) * 16,
            soff = (b % 256) * 8,
        );
        count += 16;
        block += 1;
    }
    while count + 1 < n {
        let _ = writeln!(s, "\tmul.rn.f32 %f2, %f2, %f1;");
        count += 1;
    }
    s.push_str("\tret;\n}\n");
    assert_eq!(count + 1, n);
    s
}

/// Median seconds of `reps` runs of `f`.
fn median(reps: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..reps.div_ceil(4) {
        f();
    }
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let t0 = std::time::Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn bench_sizes(_: &mut Criterion) {
    println!("import: parse and print, median of the reps (one thread)");
    println!(
        "| instructions | text | reps | parse | print | parse + print | million instructions/s \
         | parse, arena reused | print, String reused | parse + print, both reused | million instructions/s |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (n, reps) in [(10_000, 100), (100_000, 20), (1_000_000, 7)] {
        let text = module(n);
        let arena = Arena::new();
        let file = parse(&text, &arena).expect("the module parses");
        assert_eq!(file.instructions().len(), n);
        let back = print(&file);
        assert_eq!(print(&parse(&back, &Arena::new()).expect("the print parses")), back);
        // Each parse with its own arena, dropped with the tree, and each print into a new
        // `String` (as a caller of `parse` and `print` does).
        let tp = median(reps, || {
            let arena = Arena::new();
            drop(std::hint::black_box(parse(&text, &arena).unwrap()));
        });
        let tw = median(reps, || drop(std::hint::black_box(print(&file))));
        let tb = median(reps, || {
            let arena = Arena::new();
            drop(std::hint::black_box(print(&parse(&text, &arena).unwrap())));
        });
        // One arena and one `String`, reused.
        let (mut reused, mut out) = (Arena::new(), String::new());
        let tpr = median(reps, || {
            reused.reset();
            drop(std::hint::black_box(parse(&text, &reused).unwrap()));
        });
        let twr = median(reps, || {
            out.clear();
            print_into(&file, &mut out);
            std::hint::black_box(&out);
        });
        let tbr = median(reps, || {
            reused.reset();
            out.clear();
            print_into(&parse(&text, &reused).unwrap(), &mut out);
            std::hint::black_box(&out);
        });
        assert_eq!(out, back);
        println!(
            "| {n} | {:.1} MiB | {reps} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} |",
            text.len() as f64 / (1 << 20) as f64,
            tp * 1e3,
            tw * 1e3,
            tb * 1e3,
            n as f64 / tb / 1e6,
            tpr * 1e3,
            twr * 1e3,
            tbr * 1e3,
            n as f64 / tbr / 1e6
        );
    }
}

fn bench(c: &mut Criterion) {
    let n = 10_000;
    let text = module(n);
    let mut g = c.benchmark_group("import");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("parse_and_print_10k_instructions", |b| b.iter(|| print(&parse(&text, &Arena::new()).unwrap())));
    g.finish();
}

criterion_group!(benches, bench, bench_sizes);
criterion_main!(benches);
