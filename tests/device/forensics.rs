//! Hang forensics on the GPU: a pipeline whose producer arms one tile's full barrier with
//! one byte too few (the bulk copy brings 256 bytes, the barrier expects 255, so its
//! transaction count never returns to zero) must end, not hang, and the host's error must
//! name the barrier, its stage, the parity, the CTAs, the warp and the Rust line of the
//! wait. The same kernel with every tile armed right must pass the check, and the tiles
//! before the broken one must still arrive intact. Producer and consumers give up on what
//! never came (a consumer releases only a stage it consumed, a producer fills only a stage
//! it acquired), so nothing arrives on a barrier out of turn.

use super::*;
use ptxkit::intrinsics::mbarrier::{Deadline, Publish, Ring};
use ptxkit::runtime::{RuntimeError, WaitLog};
use rand::Rng;

const STAGES: u32 = 2;
const TILES: u32 = 6;
/// Words per tile (a bulk copy of 256 bytes).
const TILE: u32 = 64;
const CTAS: u32 = 3;
/// The tile armed one byte short: stage 1, round 1 (parity 1).
const BROKEN: u32 = 3;
const TRIES: u32 = 4096;

/// (input tiles, per-tile sums out, wait log, tile armed one byte short or `u32::MAX`).
type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>);

/// Warp 0's lane 0 produces each tile with a bulk copy; warp 1 consumes it: lane `l` adds
/// words `l` and `l + 32` and the warp's sum of the tile is stored. Returns the line of the
/// consumer's wait.
fn pipeline(target: Target) -> (Module, KernelRef<P>, u32) {
    let mut m = Module::new(target);
    let mut wait_line = 0;
    let kr = m
        .kernel("broken_pipeline", |k, (input, sums, log, broken): P| {
            let ring = Ring::new(k, "pipe", STAGES);
            let tiles = k.shared_array::<U32>("tiles", STAGES * TILE, 128);
            ring.init(k, 1, 32, Publish::CtaAsync);
            let d = Deadline::new(k, TRIES).with_hint_ns(1000).recording(log);
            let tid = ptx!(k, "mov.u32", sreg::TID_X);
            let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
            let lane = k.lane_id();
            let producer = ptx!(k, "setp.lt.u32", tid, 32u32);
            k.if_else(
                producer,
                |k| {
                    let first = ptx!(k, "setp.eq.u32", lane, 0u32);
                    k.if_(first, |k| {
                        k.for_range(0u32, TILES, 1, |k, i| {
                            let s = ring.slot(k, i);
                            // A producer whose stage never came free fills nothing.
                            let free = s.acquire(k, &d);
                            k.if_(free, |k| {
                                let short = ptx!(k, "setp.eq.u32", i, broken);
                                let bytes = ptx!(k, "selp.u32", TILE * 4 - 1, TILE * 4, short);
                                let _ = s.full.arrive_expect_tx(k, bytes);
                                let tile = ptx!(k, "mad.lo.u32", cta, TILES, i);
                                let word = ptx!(k, "mul.lo.u32", tile, TILE);
                                let dst = ptx!(k, "mul.lo.u32", s.stage, TILE);
                                let bar = s.full.ptr();
                                ptx!(
                                    k,
                                    "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
                                    tiles.at(dst),
                                    input.at(word),
                                    TILE * 4,
                                    bar
                                );
                            });
                        });
                    });
                },
                |k| {
                    k.for_range(0u32, TILES, 1, |k, i| {
                        let s = ring.slot(k, i);
                        let (ok, line) = (s.wait(k, &d), line!());
                        wait_line = line;
                        k.if_(ok, |k| {
                            let at = ptx!(k, "mad.lo.u32", s.stage, TILE, lane);
                            let a = k.ld(tiles.at(at));
                            let b = k.ld(tiles.offset(32).at(at));
                            let v = ptx!(k, "add.u32", a, b);
                            let sum = k.warp_reduce_commutative(v, LaneMask::FULL, |k, a, b| ptx!(k, "add.u32", a, b));
                            let first = ptx!(k, "setp.eq.u32", lane, 0u32);
                            let tile = ptx!(k, "mad.lo.u32", cta, TILES, i);
                            k.guarded(first, |k| k.st(sums.at(tile), sum));
                            // Only a stage that was consumed is released.
                            s.release(k);
                        });
                    });
                },
            );
        })
        .unwrap();
    (m, kr, wait_line)
}

/// Without a GPU: the kernel, with its recording waits, assembles with no ptxas warning,
/// and its probes name the consumer's wait.
fn broken_pipeline_assembles() {
    let (m, kr, line) = pipeline(Target::SM_90);
    let text = m.to_ptx().unwrap();
    let px = ptxas("broken_pipeline_assembles");
    ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let sites = kr.probes().wait_sites();
    // The producer's acquire (on `pipe_empty`) and the consumer's wait (on `pipe_full`).
    assert_eq!(sites.len(), 2, "{sites:?}");
    assert_eq!((sites[1].barrier.as_deref(), sites[1].line, sites[1].file), (Some("pipe_full"), line, file!()));
    assert_eq!(sites[0].barrier.as_deref(), Some("pipe_empty"));
}

fn run(gpu: &Gpu, broken: u32, input: &[u32]) -> (Result<(), RuntimeError>, Vec<u32>, std::time::Duration) {
    let (m, kr, _) = pipeline(target(gpu));
    let module = load(gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let din = gpu.upload(input).unwrap();
    let mut sums = poisoned::<u32>(gpu, (CTAS * TILES) as usize).unwrap();
    let mut log = WaitLog::new(gpu, 16).unwrap();
    let start = std::time::Instant::now();
    kern.launch(&Launch::new(CTAS, 64), (&din, &mut sums, &mut log, broken)).unwrap();
    gpu.synchronize().unwrap();
    let took = start.elapsed();
    (log.check(gpu, &kern), gpu.download(&sums).unwrap(), took)
}

fn want_sums(input: &[u32]) -> Vec<u32> {
    input.chunks(TILE as usize).map(|t| t.iter().fold(0u32, |s, &v| s.wrapping_add(v))).collect()
}

fn a_short_armed_barrier_is_named_after_the_kernel_ends(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("bulk copies need sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("a_short_armed_barrier_is_named_after_the_kernel_ends");
    let input: Vec<u32> = (0..CTAS * TILES * TILE).map(|_| g.gen()).collect();
    let want = want_sums(&input);
    let who = |i: usize| format!("CTA {}, tile {}", i / TILES as usize, i % TILES as usize);

    // Every tile armed right: no record, every sum right.
    let (check, sums, took) = run(&gpu, u32::MAX, &input);
    check.unwrap_or_else(|e| panic!("a sound pipeline reported: {e}"));
    check_sums("sound pipeline", &who, &sums, &want, TILES);
    println!("sound pipeline: {took:.1?}");

    // Tile 3 armed one byte short: the kernel ends, the tiles before it are right, and the
    // error names the barrier, stage, parity, each CTA's consumer warp and the wait's line.
    let (check, sums, took) = run(&gpu, BROKEN, &input);
    println!("broken pipeline ended in {took:.1?}");
    check_sums("tiles before the broken one", &who, &sums, &want, BROKEN);
    let (_, _, line) = pipeline(Target::SM_90);
    let err = check.expect_err("a pipeline armed one byte short passed the wait-log check");
    let text = err.to_string();
    println!("{text}");
    let RuntimeError::Hang(report) = &err else { panic!("not a hang report: {err:?}") };
    // Per CTA: the consumer warp (all lanes together) on the full barrier of tile 3's
    // stage, and the producer thread on the empty barrier of tile 5's (the same stage, the
    // next round), which the consumers that gave up never released.
    assert_eq!(report.written, 2 * CTAS, "two records per CTA:\n{text}");
    assert!(text.starts_with(&format!("kernel `broken_pipeline`: {} bounded waits gave up\n", 2 * CTAS)), "{text}");
    for c in 0..CTAS {
        let want = format!(
            "CTA ({c},0,0) warp 1 (thread 32, lanes 0xffffffff) waited on `pipe_full[1]` for the phase of parity 1 at {}:{line}:",
            file!()
        );
        assert!(text.contains(&want), "missing `{want}` in:\n{text}");
        let want = format!(
            "CTA ({c},0,0) warp 0 (thread 0, lanes 0x00000001) waited on `pipe_empty[1]` for the phase of parity 1 at {}:",
            file!()
        );
        assert!(text.contains(&want), "missing `{want}` in:\n{text}");
    }
    assert!(took < std::time::Duration::from_secs(10), "the broken pipeline took {took:?} to end");
}

/// The sums of the first `tiles` tiles of each CTA against the CPU's; the rest must still
/// hold the poison or the right sum (a consumer that gave up stores nothing).
fn check_sums(what: &str, who: &dyn Fn(usize) -> String, got: &[u32], want: &[u32], tiles: u32) {
    let idx: Vec<usize> = (0..got.len()).filter(|i| (i % TILES as usize) < tiles as usize).collect();
    let (g, w): (Vec<u32>, Vec<u32>) = idx.iter().map(|&i| (got[i], want[i])).unzip();
    check(what, |j| who(idx[j]), &g, &w);
}

pub const TESTS: &[Test] = &[host!(broken_pipeline_assembles), gpu!(a_short_armed_barrier_is_named_after_the_kernel_ends)];
