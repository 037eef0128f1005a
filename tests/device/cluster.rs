//! Distributed shared memory on the GPU, across the two CTAs of each cluster of a
//! `Launch::cluster(2)` grid: each CTA writes into its peer's shared memory three ways and
//! reads back what its peer wrote.
//!
//! 1. `st.shared::cluster` to an address from `mapa`, published by `barrier.cluster`
//!    arrive/wait;
//! 2. `st.async` (`.v4.b32` and `.b64`) completing `complete_tx` bytes on the peer's mbarrier,
//!    which the peer's thread 0 armed with `arrive.expect_tx` for the bytes it will receive;
//! 3. `red.async.add.u32` into one counter of the peer, on a second barrier armed for 4 bytes
//!    per reduction.
//!
//! The barriers are initialised once per CTA and published to the cluster
//! (`fence.mbarrier_init.release.cluster` and a cluster barrier), every wait is bounded and
//! its timeouts reported per part, and a cluster barrier ends the exchange, so no CTA leaves
//! while its peer may still write to it. Also here: `griddepcontrol` in a kernel launched
//! without a programmatic dependency.

use super::*;
use ptxkit::intrinsics::mbarrier::{Deadline, Publish};
use rand::Rng;

const BLOCK: u32 = 256;
const CTAS: u32 = 16;
const N: usize = (BLOCK * CTAS) as usize;
/// Bytes each CTA receives by `st.async`: 16 and 8 per thread.
const ASYNC_BYTES: u32 = BLOCK * (16 + 8);
const TRIES: u32 = 1 << 20;
const HINT_NS: u32 = 1000;

/// Input words: part 1 (one per thread), part 2 (four per thread, then two per thread for
/// the `.b64`), part 3 (one per thread).
const IN1: i64 = 0;
const IN2: i64 = N as i64;
const IN3: i64 = 5 * N as i64;
const IN4: i64 = 7 * N as i64;
const IN_WORDS: usize = 8 * N;
/// Output words: part 1, the cluster rank, part 2 (4 + 2 per thread), part 3, then the
/// timeouts of the `st.async` and `red.async` waits.
const OUT1: i64 = 0;
const RANK: i64 = N as i64;
const OUT2: i64 = 2 * N as i64;
const OUT3: i64 = 6 * N as i64;
const OUT4: i64 = 8 * N as i64;
const LATE2: i64 = 9 * N as i64;
const LATE3: i64 = 10 * N as i64;
const OUT_WORDS: usize = 11 * N;

type P = (GlobalPtr<U32>, GlobalPtr<U32>);

fn exchange_kernel() -> (Module, KernelRef<P>) {
    let mut m = Module::new(Target::SM_90);
    let kr = m
        .kernel("dsmem_exchange", |k, (input, out): P| {
            let buf1 = k.shared_array::<U32>("buf1", BLOCK, 4);
            let buf2 = k.shared_array::<U32>("buf2", 4 * BLOCK, 16);
            let buf3 = k.shared_array::<B64>("buf3", BLOCK, 8);
            let count = k.shared_array::<U32>("count", 1, 4);
            let bars = k.mbarriers("bars", 2);
            let (recv, red) = (bars.get(0), bars.get(1));
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let gi = k.global_thread_index_x();
            let rank = ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK);
            let peer = ptx!(k, "xor.b32", rank, 1u32);
            let first = ptx!(k, "setp.eq.u32", t, 0u32);
            // Thread 0: both barriers expect one arrival; the counter starts at 0. Published to
            // the cluster, which also makes sure the peer CTA runs before anyone touches it.
            k.init_barriers(Publish::Cluster, |k| {
                bars.init(k, 1);
                k.st(count.offset(0), 0u32);
                // Orders the store before asynchronous-proxy accesses to the same memory.
                ptx!(k, "fence.proxy.async.shared::cta");
            });

            // 1. A plain store into the peer's shared memory.
            let v1 = k.ld(input.offset(IN1).at(gi));
            let r1 = k.map_shared(buf1, peer);
            ptx!(k, "st.shared::cluster.u32", r1.at(t), v1);

            // 2. st.async into the peer, completing on the peer's `recv` barrier.
            k.guarded(first, |k| {
                recv.arrive_expect_tx(k, ASYNC_BYTES);
            });
            let rrecv = recv.in_cta(k, peer);
            let (r2, r3) = (k.map_shared(buf2, peer), k.map_shared(buf3, peer));
            let g4 = ptx!(k, "shl.b32", gi, 2u32).bitcast::<U32>();
            let v2: [Reg<U32>; 4] = std::array::from_fn(|j| k.ld(input.offset(IN2).at(g4).offset(j as i64)));
            let t4 = ptx!(k, "shl.b32", t, 2u32).bitcast::<U32>();
            ptx!(k, "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32", r2.at(t4), v2, rrecv.ptr());
            let v3 = k.ld(input.offset(IN3).cast::<B64>().at(gi));
            ptx!(k, "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64", r3.at(t), v3, rrecv.ptr());

            // 3. red.async into the peer's counter, completing on the peer's `red` barrier.
            k.guarded(first, |k| {
                red.arrive_expect_tx(k, 4 * BLOCK);
            });
            let rred = red.in_cta(k, peer);
            let rcount = k.map_shared(count, peer);
            let v4 = k.ld(input.offset(IN4).at(gi));
            ptx!(k, "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32", rcount, v4, rred.ptr());

            // This CTA's barriers complete when the peer's writes into it have.
            let d2 = Deadline::new(k, TRIES).with_hint_ns(HINT_NS);
            recv.wait(k, 0u32, &d2);
            let d3 = Deadline::new(k, TRIES).with_hint_ns(HINT_NS);
            red.wait(k, 0u32, &d3);
            // Part 1's stores are visible after the cluster barrier; and no CTA leaves before
            // its peer is done writing to it.
            k.cluster_sync();

            let w1 = k.ld(buf1.at(t));
            k.st(out.offset(OUT1).at(gi), w1);
            k.st(out.offset(RANK).at(gi), rank);
            for j in 0..4 {
                let w = k.ld(buf2.at(t4).offset(j));
                k.st(out.offset(OUT2).at(g4).offset(j), w);
            }
            let w3 = k.ld(buf3.at(t));
            k.st(out.offset(OUT3).cast::<B64>().at(gi), w3);
            let w4 = k.ld(count.offset(0));
            k.st(out.offset(OUT4).at(gi), w4);
            k.st(out.offset(LATE2).at(gi), d2.timeouts());
            k.st(out.offset(LATE3).at(gi), d3.timeouts());
        })
        .unwrap();
    (m, kr)
}

type G = (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>);

/// `y[i] = x[i] + 1`, between `griddepcontrol.wait` (which returns at once without a
/// prerequisite grid) and `griddepcontrol.launch_dependents`.
fn griddep_kernel() -> (Module, KernelRef<G>) {
    let mut m = Module::new(Target::SM_90);
    let kr = m
        .kernel("griddep_add1", |k, (x, y, n): G| {
            ptx!(k, "griddepcontrol.wait");
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let v = k.ld(x.at(i));
                let w = ptx!(k, "add.u32", v, 1u32);
                k.st(y.at(i), w);
            });
            ptx!(k, "griddepcontrol.launch_dependents");
        })
        .unwrap();
    (m, kr)
}

/// Without a GPU: both kernels print and assemble with no ptxas warning.
fn cluster_kernels_assemble() {
    for (name, text) in [("dsmem_exchange", exchange_kernel().0.to_ptx().unwrap()), ("griddep_add1", griddep_kernel().0.to_ptx().unwrap())]
    {
        {
            let px = ptxas(name);
            ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        }
    }
}

fn dsmem_exchange_across_a_cluster_of_two(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("clusters need sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("dsmem_exchange_across_a_cluster_of_two");
    let input: Vec<u32> = (0..IN_WORDS).map(|_| g.gen()).collect();
    let (m, kr) = exchange_kernel();
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let din = gpu.upload(&input).unwrap();
    let mut out = poisoned::<u32>(&gpu, OUT_WORDS).unwrap();
    kern.launch(&Launch::new(CTAS, BLOCK).cluster(2), (&din, &mut out)).unwrap();
    let got = gpu.download(&out).unwrap();

    let at = |base: i64, i: usize| base as usize + i;
    for (what, base) in [("st.async (v4.b32 and b64)", LATE2), ("red.async.add", LATE3)] {
        let late = (0..N).filter(|&i| got[at(base, i)] != 0).count();
        assert_eq!(late, 0, "{what}: {late} of {N} threads gave up waiting for the barrier the peer's writes complete on");
    }
    // Thread t of CTA c reads what thread t of CTA c ^ 1 wrote.
    let peer = |i: usize| (i / BLOCK as usize ^ 1) * BLOCK as usize + i % BLOCK as usize;
    let mut want = vec![0u32; 9 * N];
    let mut sums = [0u32; CTAS as usize];
    for i in 0..N {
        sums[i / BLOCK as usize] = sums[i / BLOCK as usize].wrapping_add(input[at(IN4, i)]);
    }
    for i in 0..N {
        let p = peer(i);
        want[at(OUT1, i)] = input[at(IN1, p)];
        want[at(RANK, i)] = (i / BLOCK as usize % 2) as u32;
        for j in 0..4 {
            want[at(OUT2, 4 * i + j)] = input[at(IN2, 4 * p + j)];
        }
        for j in 0..2 {
            want[at(OUT3, 2 * i + j)] = input[at(IN3, 2 * p + j)];
        }
        want[at(OUT4, i)] = sums[p / BLOCK as usize];
    }
    let part = |i: usize| {
        let (what, k) = match i as i64 {
            x if x < RANK => ("st.shared::cluster via mapa", x as usize),
            x if x < OUT2 => ("%cluster_ctarank", (x - RANK) as usize),
            x if x < OUT3 => ("st.async.v4.b32", (x - OUT2) as usize / 4),
            x if x < OUT4 => ("st.async.b64", (x - OUT3) as usize / 2),
            x => ("red.async.add.u32 of the peer's 256 values", (x - OUT4) as usize),
        };
        format!("{what}: CTA {}, thread {}", k / BLOCK as usize, k % BLOCK as usize)
    };
    check("what each CTA's peer wrote into its shared memory", part, &got[..9 * N], &want);
}

fn griddepcontrol_without_a_dependency_is_a_no_op(gpu: Gpu) {
    // A dependent launch (programmatic stream serialisation) needs a launch attribute that
    // `Launch` does not set; this checks that both instructions are harmless without one.
    if gpu.compute_capability().0 < 9 {
        skip(format!("griddepcontrol needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("griddepcontrol_without_a_dependency_is_a_no_op");
    let n = 1 << 16;
    let x: Vec<u32> = (0..n).map(|_| g.gen()).collect();
    let (m, kr) = griddep_kernel();
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let dx = gpu.upload(&x).unwrap();
    let mut y = poisoned::<u32>(&gpu, n).unwrap();
    let mut z = poisoned::<u32>(&gpu, n).unwrap();
    let cfg = Launch::cover(n as u32, 256);
    kern.launch(&cfg, (&dx, &mut y, n as u32)).unwrap();
    kern.launch(&cfg, (&y, &mut z, n as u32)).unwrap();
    let want: Vec<u32> = x.iter().map(|v| v.wrapping_add(2)).collect();
    check("two launches of y = x + 1 with griddepcontrol", |i| x[i], &gpu.download(&z).unwrap(), &want);
}

pub const TESTS: &[Test] =
    &[host!(cluster_kernels_assemble), gpu!(dsmem_exchange_across_a_cluster_of_two), gpu!(griddepcontrol_without_a_dependency_is_a_no_op)];
