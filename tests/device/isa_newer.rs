//! Forms of PTX ISA 9.1–9.5 that run on Hopper, against CPU references: `sin`/`cos` in turns
//! (9.5), volatile local memory (9.1) and the relaxed bulk copy (9.3). CUDA 13.0's driver
//! JIT and ptxas stop at ISA 9.0, so each module is assembled ahead of time by a ptxas that
//! takes its `.version` (`PTXKIT_PTXAS_NEWEST`, else `PTXAS` when it is new enough) and
//! loaded as a cubin. Without such a ptxas the tests report themselves ignored, with the
//! reason.

use super::*;
use rand::Rng;
use std::path::PathBuf;

/// A ptxas that takes `.version need`.
fn newer_ptxas(test: &str, need: Version) -> PathBuf {
    let candidates = std::env::var_os("PTXKIT_PTXAS_NEWEST").map(PathBuf::from).into_iter().chain(ptxkit::ptxas::find());
    for px in candidates {
        if ptxkit::ptxas::newest_version(&px).is_some_and(|v| v >= need) {
            return px;
        }
    }
    skip(format!("{test}: needs a ptxas that takes PTX ISA {need} (CUDA 13.5's): set PTXKIT_PTXAS_NEWEST"))
}

/// Builds `m` (its `.version` limit raised), assembles it with a ptxas that takes the version
/// it needs, and loads the cubin.
fn load_newer(gpu: &Gpu, test: &str, m: &mut Module) -> ptxkit::runtime::LoadedModule {
    m.max_version(Version::NEWEST);
    let text = m.to_ptx().unwrap_or_else(|e| panic!("{test}: {e}"));
    let need = text.lines().find_map(|l| l.strip_prefix(".version ")).and_then(Version::parse).expect("a .version line");
    let px = newer_ptxas(test, need);
    let c = ptxkit::ptxas::compile(&px, &text, m.target(), &Default::default()).unwrap_or_else(|e| panic!("{test}: ptxas:\n{e}\n{text}"));
    println!("{test}: .version {need}, assembled by ptxas {}", ptxkit::ptxas::version(&px).unwrap());
    gpu.load_cubin(&c.cubin).unwrap_or_else(|e| panic!("{test}: {e}"))
}

/// `sin`/`cos.approx.ftz.2pi.f32` (ISA 9.5) take the angle in turns: `sin(2π·x)`. Judged
/// against f64 with the absolute error bound the ISA gives `sin.approx.f32` (2^-20.5 over
/// ±100π radians), over ±50 turns, plus half an ulp of the f32 result.
fn sin_cos_in_turns(gpu: Gpu) {
    let t = target(&gpu);
    let mut g = rng("sin_cos_in_turns");
    let mut xs: Vec<f32> = (0..N).map(|_| g.gen_range(-50.0f32..50.0)).collect();
    xs[..8].copy_from_slice(&[0.0, 0.25, 0.5, -0.25, 1.0, 0.125, -49.75, 1e-30]);
    let mut m = Module::new(t);
    let k = m
        .kernel("turns", |k, (x, s, c, n): (GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<F32>, Reg<U32>)| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let v = k.ld(x.at(i));
                let sv = ptx!(k, "sin.approx.ftz.2pi.f32", v);
                let cv = ptx!(k, "cos.approx.ftz.2pi.f32", v);
                k.st(s.at(i), sv);
                k.st(c.at(i), cv);
            });
        })
        .unwrap();
    let f = load_newer(&gpu, "sin_cos_in_turns", &mut m).kernel(&k).unwrap();
    let x = gpu.upload(&xs).unwrap();
    let (mut s, mut c) = (poisoned::<f32>(&gpu, N).unwrap(), poisoned::<f32>(&gpu, N).unwrap());
    f.launch(&Launch::cover(N as u32, 256), (&x, &mut s, &mut c, N as u32)).unwrap();
    let (s, c) = (gpu.download(&s).unwrap(), gpu.download(&c).unwrap());
    let bound = 2f64.powf(-20.5) + 2f64.powi(-25);
    let mut worst = (0.0f64, 0.0f64);
    for (i, &x) in xs.iter().enumerate() {
        let a = std::f64::consts::TAU * x as f64;
        let (es, ec) = ((s[i] as f64 - a.sin()).abs(), (c[i] as f64 - a.cos()).abs());
        assert!(
            es <= bound && ec <= bound,
            "x = {x} turns: sin {} against {}, cos {} against {} (bound {bound:e})",
            s[i],
            a.sin(),
            c[i],
            a.cos()
        );
        worst = (worst.0.max(es), worst.1.max(ec));
    }
    println!("sin_cos_in_turns: {N} values in ±50 turns; largest errors sin {:.2e}, cos {:.2e} (bound {bound:.2e})", worst.0, worst.1);
}

/// `ld`/`st.volatile.local` (ISA 9.1): each thread writes its eight words to its own local
/// array and reads them back in reverse order; a volatile access is not merged or dropped.
fn volatile_local_memory(gpu: Gpu) {
    let t = target(&gpu);
    let mut g = rng("volatile_local_memory");
    let xs: Vec<u32> = (0..N * 8).map(|_| g.gen()).collect();
    let mut m = Module::new(t);
    let k = m
        .kernel("reverse", |k, (x, out, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
            let scratch = k.local_array::<U32>("scratch", 8, 4);
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let base = ptx!(k, "mul.lo.u32", i, 8u32);
                for j in 0..8u32 {
                    let at = ptx!(k, "add.u32", base, j);
                    let v = k.ld(x.at(at));
                    ptx!(k, "st.volatile.local.u32", scratch.offset(j as i64), v);
                }
                for j in 0..8u32 {
                    let v = ptx!(k, "ld.volatile.local.u32", scratch.offset(7 - j as i64));
                    let at = ptx!(k, "add.u32", base, j);
                    k.st(out.at(at), v);
                }
            });
        })
        .unwrap();
    let f = load_newer(&gpu, "volatile_local_memory", &mut m).kernel(&k).unwrap();
    let x = gpu.upload(&xs).unwrap();
    let mut out = poisoned::<u32>(&gpu, N * 8).unwrap();
    f.launch(&Launch::cover(N as u32, 128), (&x, &mut out, N as u32)).unwrap();
    let got = gpu.download(&out).unwrap();
    let want: Vec<u32> = (0..N * 8).map(|i| xs[i / 8 * 8 + 7 - i % 8]).collect();
    check("ld/st.volatile.local.u32", |i| xs[i], &got, &want);
}

/// `cp.async.bulk … .relaxed.gpu.b128` (ISA 9.3): 4 KiB from global to shared memory with
/// relaxed semantics at GPU scope, completing on an mbarrier (a bounded wait), then written
/// back out by every thread; compared word for word with the source.
fn relaxed_bulk_copy(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        skip(format!("relaxed_bulk_copy: built for sm_90a; the GPU is {:?}", gpu.compute_capability()));
    }
    const WORDS: u32 = 1024;
    const THREADS: u32 = 128;
    let mut g = rng("relaxed_bulk_copy");
    let xs: Vec<u32> = (0..WORDS).map(|_| g.gen()).collect();
    let mut m = Module::new(Target::SM_90A);
    let k = m
        .kernel("relaxed_copy", |k, (src, out, status, size): (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
            let (smem, first, done) = super::tma::bulk_load::<U32>(k, size, |k, smem, bar| {
                ptx!(k, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.relaxed.gpu.b128", smem, src, size, bar);
            });
            let tid = ptx!(k, "mov.u32", sreg::TID_X);
            k.if_(done, |k| {
                for j in 0..WORDS / THREADS {
                    let at = ptx!(k, "add.u32", tid, j * THREADS);
                    let v = ptx!(k, "ld.shared.u32", smem.at(at));
                    ptx!(k, "st.global.u32", out.at(at), v);
                }
            });
            super::tma::report(k, done, first, status);
        })
        .unwrap();
    let f = load_newer(&gpu, "relaxed_bulk_copy", &mut m).kernel(&k).unwrap();
    let src = gpu.upload(&xs).unwrap();
    let mut out = poisoned::<u32>(&gpu, WORDS as usize).unwrap();
    let mut status = poisoned::<u32>(&gpu, 2).unwrap();
    f.launch(&Launch::new(1, THREADS).shared(WORDS * 4), (&src, &mut out, &mut status, WORDS * 4)).unwrap();
    super::tma::status_ok(&gpu, &status, "relaxed_bulk_copy").unwrap_or_else(|e| panic!("{e}"));
    check("cp.async.bulk.relaxed.gpu.b128", |i| xs[i], &gpu.download(&out).unwrap(), &xs);
}

pub const TESTS: &[Test] = &[gpu!(sin_cos_in_turns), gpu!(volatile_local_memory), gpu!(relaxed_bulk_copy)];
