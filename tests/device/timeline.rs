//! Timelines on the GPU: a kernel of 3 CTAs of 3 warps stamps a mark and a few spans per
//! warp (one warp also from a single lane); the buffer is poisoned before its counts are
//! cleared, so only what the warps wrote decodes. Each warp's records come back in the order
//! it stamped them, with increasing times, an SM of the GPU, and the count it stamped; a
//! buffer with too few slots counts what it drops, one with too few CTAs says that warps
//! had no place; and the GEMM with `timeline` computes what it computes without it, with a
//! span per tile and k-tile where it should.

use crate::{target, Test};
use ptxkit::intrinsics::timeline::{region_bytes, Timeline, HEADER_WORDS};
use ptxkit::kernels::gemm::hopper;
use ptxkit::prelude::*;
use ptxkit::runtime::testing::{normal_bf16, poison, poisoned};
use ptxkit::runtime::{Gemm, GemmRunner, GemmShape, Gpu, Launch, TimelineBuffer};
use ptxkit::trace::Trace;

const CTAS: u32 = 3;
const WARPS: u32 = 3;
const ROUNDS: u32 = 5;
/// The warp whose lane 7 alone stamps `"solo"` at the end.
const SOLO_WARP: u32 = 2;

fn stamping_kernel(gpu: &Gpu, slots: u32) -> (ptxkit::runtime::TypedKernel<(GlobalPtr<U32>,)>, Vec<String>) {
    let mut m = Module::new(target(gpu));
    let kr = m
        .kernel("stamps", |k, (buf,): (GlobalPtr<U32>,)| {
            let tl = Timeline::new(k, buf, slots);
            tl.mark(k, "start");
            k.for_range(0u32, ROUNDS, 1, |k, _| {
                tl.span(k, "work", |k| spin(k, 2000));
                tl.span(k, "rest", |k| spin(k, 500));
            });
            let tid = ptx!(k, "mov.u32", sreg::TID_X);
            let lane = k.lane_id();
            let warp = ptx!(k, "shr.u32", tid, 5u32);
            let seven = ptx!(k, "setp.eq.u32", lane, 7u32);
            let solo_warp = ptx!(k, "setp.eq.u32", warp, SOLO_WARP);
            let solo = ptx!(k, "and.pred", seven, solo_warp);
            k.if_(solo, |k| tl.mark(k, "solo"));
        })
        .unwrap();
    let events = kr.probes().events().to_vec();
    let module = crate::load(gpu, &m);
    (module.kernel(&kr).unwrap(), events)
}

/// Waits until `%globaltimer` has advanced by `ns` (the clock the stamps read, so a span
/// around it lasts at least `ns`; `nanosleep` may sleep anywhere from 0 to twice its
/// argument).
fn spin(k: &mut Kernel, ns: u64) {
    let t0 = ptx!(k, "mov.u64", sreg::GLOBALTIMER);
    let until = ptx!(k, "add.u64", t0, ns);
    k.while_(
        |k| {
            let t = ptx!(k, "mov.u64", sreg::GLOBALTIMER);
            ptx!(k, "setp.lt.u64", t, until)
        },
        |_| {},
    );
}

/// Stamps per warp: the mark, two spans a round, and the solo mark in one warp.
fn stamps(warp: u32) -> u32 {
    1 + 4 * ROUNDS + (warp == SOLO_WARP) as u32
}

fn timeline_records_what_each_warp_stamped(gpu: Gpu) {
    let slots = 64;
    let (kernel, events) = stamping_kernel(&gpu, slots);
    assert_eq!(events, ["start", "work", "rest", "solo"]);
    let mut tb = TimelineBuffer::new(&gpu, slots, CTAS, WARPS).unwrap();
    poison(&gpu, tb.buffer()).unwrap();
    tb.reset(&gpu).unwrap();
    kernel.launch(&Launch::new(CTAS, 32 * WARPS), (tb.buffer(),)).unwrap();
    // The counts, read raw: each warp's stamps.
    let words = gpu.download(tb.buffer()).unwrap();
    let region = (region_bytes(slots) / 4) as usize;
    for r in 0..(CTAS * WARPS) as usize {
        assert_eq!(words[HEADER_WORDS as usize + r * region], stamps(r as u32 % WARPS), "count of warp region {r}");
    }
    let trace = tb.read(&gpu, &events).unwrap();
    assert_eq!((trace.dropped, trace.unpaired, trace.homeless), (0, 0, false));
    assert_eq!(trace.spans.len() as u32, CTAS * WARPS * 2 * ROUNDS);
    assert_eq!(trace.marks.len() as u32, CTAS * WARPS + CTAS);
    let sms = gpu.multiprocessors();
    for cta in 0..CTAS {
        for warp in 0..WARPS {
            let spans: Vec<_> = trace.spans.iter().filter(|s| s.cta == cta && s.warp == warp).collect();
            let marks: Vec<_> = trace.marks.iter().filter(|m| m.cta == cta && m.warp == warp).collect();
            let names: Vec<&str> = spans.iter().map(|s| trace.name(s.event)).collect();
            let want: Vec<&str> = (0..ROUNDS).flat_map(|_| ["work", "rest"]).collect();
            assert_eq!(names, want, "CTA {cta} warp {warp}: spans in the order stamped");
            assert_eq!(trace.name(marks[0].event), "start");
            assert!(marks[0].at_ns <= spans[0].start_ns, "CTA {cta} warp {warp}: the start mark first");
            for s in &spans {
                assert!(s.start_ns < s.end_ns, "CTA {cta} warp {warp}: {s:?} ends after it starts");
                assert!(s.sm < sms, "SM {} of {sms}", s.sm);
                assert_eq!(s.sm, spans[0].sm, "a CTA stays on its SM");
                let least = if trace.name(s.event) == "work" { 2000 } else { 500 };
                assert!(s.duration_ns() >= least, "a wait of {least} ns takes at least that: {s:?}");
            }
            for w in spans.windows(2) {
                assert!(w[0].end_ns <= w[1].start_ns, "CTA {cta} warp {warp}: spans one after the other: {w:?}");
            }
            if warp == SOLO_WARP {
                assert_eq!(marks.len(), 2);
                assert_eq!(trace.name(marks[1].event), "solo");
                assert!(marks[1].at_ns >= spans.last().unwrap().end_ns);
            } else {
                assert_eq!(marks.len(), 1);
            }
        }
    }
    // The Chrome trace names every span.
    let json = trace.to_chrome_trace();
    assert_eq!(json.matches(r#""ph":"X""#).count(), trace.spans.len());
}

fn timeline_counts_what_does_not_fit(gpu: Gpu) {
    let slots = 4;
    let (kernel, events) = stamping_kernel(&gpu, slots);
    // Room for two of the three CTAs.
    let mut tb = TimelineBuffer::new(&gpu, slots, CTAS - 1, WARPS).unwrap();
    poison(&gpu, tb.buffer()).unwrap();
    tb.reset(&gpu).unwrap();
    kernel.launch(&Launch::new(CTAS, 32 * WARPS), (tb.buffer(),)).unwrap();
    let trace = tb.read(&gpu, &events).unwrap();
    assert!(trace.homeless, "the third CTA's warps had no region");
    let made: u32 = (0..WARPS).map(stamps).sum::<u32>() * (CTAS - 1);
    assert_eq!(trace.dropped as u32, made - slots * WARPS * (CTAS - 1));
    // Four records a warp: the start mark, a work span and the begin of a rest span.
    assert_eq!(trace.spans.len() as u32, WARPS * (CTAS - 1));
    assert_eq!(trace.unpaired as u32, WARPS * (CTAS - 1));
    assert!(trace.spans.iter().all(|s| s.cta < CTAS - 1 && trace.name(s.event) == "work"));
}

fn gemm_with_a_timeline_computes_the_same_product(gpu: Gpu) {
    if gpu.compute_capability() != (9, 0) {
        crate::skip("the wgmma GEMM needs sm_90");
    }
    let (m, n, k) = (1000u32, 1536u32, 512u32);
    let cfg = hopper::Config::default();
    let plain = Gemm::<Bf16>::new(&gpu, cfg).unwrap();
    let stamped = Gemm::<Bf16>::new(&gpu, hopper::Config { timeline: Some(256), ..cfg }).unwrap();
    assert!(plain.timeline(&gpu).is_err(), "no timeline without the option");
    let a = gpu.upload(&normal_bf16(11, (m * k) as usize)).unwrap();
    let b = gpu.upload(&normal_bf16(12, (n * k) as usize)).unwrap();
    let mut c0 = poisoned::<half::bf16>(&gpu, (m * n) as usize).unwrap();
    let mut c1 = poisoned::<half::bf16>(&gpu, (m * n) as usize).unwrap();
    plain.run(&gpu, &a, &b, &mut c0, &GemmShape::new(m, n, k)).unwrap();
    stamped.run(&gpu, &a, &b, &mut c1, &GemmShape::new(m, n, k)).unwrap();
    let (c0, c1) = (gpu.download(&c0).unwrap(), gpu.download(&c1).unwrap());
    assert!(c0.iter().zip(&c1).all(|(x, y)| x.to_bits() == y.to_bits()), "the stamps change the product");
    let trace: Trace = stamped.timeline(&gpu).unwrap();
    assert_eq!((trace.dropped, trace.unpaired, trace.homeless), (0, 0, false));
    let count = |name: &str| trace.spans.iter().filter(|s| trace.name(s.event) == name).count() as u32;
    let tiles = m.div_ceil(cfg.bm()) * n.div_ceil(cfg.bn);
    let k_tiles = k.div_ceil(64);
    // One producer thread; four warps per consumer warpgroup.
    assert_eq!(count("producer wait"), tiles * k_tiles);
    assert_eq!(count("producer load"), tiles * k_tiles);
    assert_eq!(count("consumer wait"), tiles * k_tiles * 4 * cfg.consumers);
    assert_eq!(count("wgmma"), tiles * 4 * cfg.consumers);
    assert_eq!(count("epilogue"), tiles * 4 * cfg.consumers);
    assert_eq!(count("epilogue store"), tiles * 4 * cfg.consumers, "each tile's deferred stores");
    let sms = gpu.multiprocessors();
    assert!(trace.spans.iter().all(|s| s.sm < sms && s.start_ns <= s.end_ns));
    // The producer stamps from warp 0 only; the consumers from warps 4 and up.
    assert!(trace.spans.iter().filter(|s| trace.name(s.event).starts_with("producer")).all(|s| s.warp == 0));
    assert!(trace.spans.iter().filter(|s| !trace.name(s.event).starts_with("producer")).all(|s| s.warp >= 4));
}

pub const TESTS: &[Test] = &[
    gpu!(timeline_records_what_each_warp_stamped),
    gpu!(timeline_counts_what_does_not_fit),
    gpu!(gemm_with_a_timeline_computes_the_same_product),
];
