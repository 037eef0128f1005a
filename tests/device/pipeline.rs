//! An mbarrier ring on the GPU: one producer warp and three consumer warps per CTA pass
//! 4,096 tiles through 4 stages, so every full and every empty barrier completes 1,024
//! phases (the parity wraps 512 times). The producer waits on a stage's empty barrier, writes
//! the tile with ordinary shared stores (a random payload word per lane and a sequence word)
//! and arrives on its full barrier; each consumer thread waits on the full barrier, checks the
//! sequence word, folds one payload word into an order-sensitive hash, and arrives on the
//! empty barrier. A lost, repeated, stale or reordered tile changes the hash or the sequence
//! count, which the CPU computes from the same payload. Every wait is bounded; the timeouts
//! each thread counted are reported.

use super::*;
use ptxkit::intrinsics::mbarrier::{Deadline, Publish, Ring};
use rand::Rng;

const STAGES: u32 = 4;
/// Tiles per CTA (1,024 phases per barrier; 64 under the sanitizer).
fn tiles() -> u32 {
    sized(4096, 256)
}
const CTAS: u32 = 16;
const THREADS: u32 = 128;
/// Words per tile: one per producer lane.
const TILE: u32 = 32;
const HASH_MUL: u32 = 0x9E37_79B1;
const TRIES: u32 = 1 << 20;
const HINT_NS: u32 = 1000;

type P = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

/// `out` holds, per thread of the grid: the hash, then (after `CTAS * THREADS` words) the
/// count of tiles whose sequence word was wrong, then the count of waits that gave up.
fn ring_kernel(target: Target) -> (Module, KernelRef<P>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("mbarrier_ring", |k, (payload, keys, out): P| {
            let ring = Ring::new(k, "ring", STAGES);
            let data = k.shared_array::<U32>("tiles", STAGES * TILE, 16);
            let seqs = k.shared_array::<U32>("seqs", STAGES, 4);
            // full: one arrival per producer lane; empty: one per consumer thread.
            ring.init(k, TILE, THREADS - 32, Publish::Cta);
            let d = Deadline::new(k, TRIES).with_hint_ns(HINT_NS);
            let tid = ptx!(k, "mov.u32", sreg::TID_X);
            let cta = ptx!(k, "mov.u32", sreg::CTAID_X);
            let lane = k.lane_id();
            let warp = ptx!(k, "shr.u32", tid, 5u32);
            let key = k.ld(keys.at(cta));
            let base = ptx!(k, "mul.lo.u32", cta, tiles() * TILE);
            let hash = ptx!(k, "mov.u32", 0u32);
            let bad = ptx!(k, "mov.u32", 0u32);
            let producer = ptx!(k, "setp.eq.u32", warp, 0u32);
            k.if_else(
                producer,
                |k| {
                    let first = ptx!(k, "setp.eq.u32", lane, 0u32);
                    k.for_range(0u32, tiles(), 1, |k, i| {
                        let s = ring.slot(k, i);
                        s.acquire(k, &d);
                        let at = ptx!(k, "mad.lo.u32", i, TILE, lane);
                        let g = ptx!(k, "add.u32", base, at);
                        let v = k.ld(payload.at(g));
                        let slot = ptx!(k, "mad.lo.u32", s.stage, TILE, lane);
                        k.st(data.at(slot), v);
                        let seq = ptx!(k, "xor.b32", i, key);
                        k.guarded(first, |k| k.st(seqs.at(s.stage), seq));
                        s.commit(k);
                    });
                },
                |k| {
                    // Consumer thread (warp w, lane l) reads word (l + w) % 32 of each tile.
                    let lw = ptx!(k, "add.u32", lane, warp);
                    let word = ptx!(k, "and.b32", lw, TILE - 1).bitcast::<U32>();
                    k.for_range(0u32, tiles(), 1, |k, i| {
                        let s = ring.slot(k, i);
                        s.wait(k, &d);
                        let seq = k.ld(seqs.at(s.stage));
                        let want = ptx!(k, "xor.b32", i, key);
                        let wrong = ptx!(k, "setp.ne.b32", seq, want);
                        ptx!(k, @wrong, "add.u32" => bad, bad, 1u32);
                        let slot = ptx!(k, "mad.lo.u32", s.stage, TILE, word);
                        let v = k.ld(data.at(slot));
                        ptx!(k, "mad.lo.u32" => hash, hash, HASH_MUL, v);
                        s.release(k);
                    });
                },
            );
            let gt = k.global_thread_index_x();
            k.st(out.at(gt), hash);
            k.st(out.offset((CTAS * THREADS) as i64).at(gt), bad);
            k.st(out.offset((2 * CTAS * THREADS) as i64).at(gt), d.timeouts());
        })
        .unwrap();
    (m, kr)
}

/// Without a GPU: the kernel prints and assembles with no ptxas warning.
fn mbarrier_ring_assembles() {
    let text = ring_kernel(Target::SM_90).0.to_ptx().unwrap();
    {
        let px = ptxas("mbarrier_ring_assembles");
        ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
    assert!(text.contains("mbarrier.try_wait.parity.shared.b64"), "{text}");
}

fn mbarrier_ring_passes_every_tile_once(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("try_wait needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("mbarrier_ring_passes_every_tile_once");
    let payload: Vec<u32> = (0..(CTAS * tiles() * TILE) as usize).map(|_| g.gen()).collect();
    let keys: Vec<u32> = (0..CTAS).map(|_| g.gen()).collect();
    let (m, kr) = ring_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let (dp, dk) = (gpu.upload(&payload).unwrap(), gpu.upload(&keys).unwrap());
    let threads = (CTAS * THREADS) as usize;
    let mut out = poisoned::<u32>(&gpu, 3 * threads).unwrap();
    let start = std::time::Instant::now();
    kern.launch(&Launch::new(CTAS, THREADS), (&dp, &dk, &mut out)).unwrap();
    let out = gpu.download(&out).unwrap();
    println!("mbarrier_ring_passes_every_tile_once: {CTAS} CTAs x {} tiles through {STAGES} stages in {:.1?}", tiles(), start.elapsed());
    let (hash, bad, timeouts) = (&out[..threads], &out[threads..2 * threads], &out[2 * threads..]);

    let late: Vec<usize> = (0..threads).filter(|&t| timeouts[t] != 0).collect();
    assert!(
        late.is_empty(),
        "{} of {threads} threads gave up a wait (first: CTA {}, thread {}, {} timeouts)",
        late.len(),
        late[0] / THREADS as usize,
        late[0] % THREADS as usize,
        timeouts[late[0]]
    );
    let mut want_hash = vec![0u32; threads];
    for c in 0..CTAS as usize {
        for t in 32..THREADS as usize {
            let (w, l) = (t / 32, t % 32);
            let word = (l + w) % TILE as usize;
            let mut h = 0u32;
            for i in 0..tiles() as usize {
                h = h.wrapping_mul(HASH_MUL).wrapping_add(payload[(c * tiles() as usize + i) * TILE as usize + word]);
            }
            want_hash[c * THREADS as usize + t] = h;
        }
    }
    let who = |i: usize| format!("CTA {}, thread {}", i / THREADS as usize, i % THREADS as usize);
    check("tiles with a wrong sequence word, per thread", who, bad, &vec![0u32; threads]);
    check("hash of the tiles each thread read, in order", who, hash, &want_hash);
}

pub const TESTS: &[Test] = &[host!(mbarrier_ring_assembles), gpu!(mbarrier_ring_passes_every_tile_once)];
