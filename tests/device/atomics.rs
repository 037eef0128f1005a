//! Half-precision, vector and cache-hinted atomics and reductions, `atom.cas.b16`, cache
//! policies, `discard` and `applypriority`, each against a CPU model.
//!
//! Many threads hit few locations (64 per slot). The added values are small integers, exact
//! in every format at every partial sum (f16 sums stay below 2048, bf16 sums below 256), so
//! the result does not depend on the order the GPU serialised the adds in: the final value
//! is the start plus every value, and the old values `atom` returned, sorted, are the
//! running sums of one order.

use super::*;
use half::{bf16, f16};
use rand::Rng;

/// Threads per launch and locations they share.
const T: u32 = 8192;
const SLOTS: u32 = 128;

/// Every input record is `rec_in` words, every slot of the accumulators `slot` words, every
/// old-value record `rec_out` words.
#[derive(Clone, Copy)]
struct Layout {
    rec_in: u32,
    slot: u32,
    rec_out: u32,
}

type ContendP = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>);

/// A kernel of `T` threads: thread `t` runs `body` on its input record, the accumulator slot
/// `t % SLOTS` and its old-value record.
fn contend_kernel(
    target: Target,
    l: Layout,
    body: impl FnOnce(&mut Kernel, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>),
) -> (Module, KernelRef<ContendP>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("contend", |k, (inp, acc, out, n): ContendP| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let slot = ptx!(k, "rem.u32", i, SLOTS);
                let rec = |k: &mut Kernel, p: GlobalPtr<U32>, idx: Reg<U32>, words: u32| {
                    let base = p.addr(k);
                    let off = ptx!(k, "mul.wide.u32", idx, words * 4);
                    GlobalPtr::<U32>::from_reg(ptx!(k, "add.u64", base, off))
                };
                let (r_in, r_acc, r_out) = (rec(k, inp, i, l.rec_in), rec(k, acc, slot, l.slot), rec(k, out, i, l.rec_out));
                body(k, r_in, r_acc, r_out);
            });
        })
        .unwrap();
    (m, kr)
}

/// Runs a contend kernel: the accumulators start as `acc0`, the old-value records are
/// poisoned. Returns the accumulators and the old values.
fn contend(gpu: &Gpu, (m, kr): &(Module, KernelRef<ContendP>), l: Layout, input: &[u32], acc0: &[u32]) -> (Vec<u32>, Vec<u32>) {
    assert_eq!((input.len(), acc0.len()), ((T * l.rec_in) as usize, (SLOTS * l.slot) as usize));
    let module = load(gpu, m);
    let kern = module.kernel(kr).unwrap();
    let din = gpu.upload(input).unwrap();
    let mut acc = gpu.upload(acc0).unwrap();
    let mut out = poisoned::<u32>(gpu, (T * l.rec_out).max(1) as usize).unwrap();
    kern.launch(&Launch::cover(T, 256), (&din, &mut acc, &mut out, T)).unwrap();
    (gpu.download(&acc).unwrap(), gpu.download(&out).unwrap())
}

/// The 16-bit half `h` (0: low, 1: high) of word `w`.
fn half_of(w: u32, h: usize) -> u16 {
    (w >> (16 * h)) as u16
}
fn pack(lo: u16, hi: u16) -> u32 {
    lo as u32 | (hi as u32) << 16
}
fn f16v(x: f64) -> u16 {
    f16::from_f64(x).to_bits()
}
fn bf16v(x: f64) -> u16 {
    bf16::from_f64(x).to_bits()
}
fn from_f16(b: u16) -> f64 {
    f16::from_bits(b).to_f64()
}
fn from_bf16(b: u16) -> f64 {
    bf16::from_bits(b).to_f64()
}

/// The old values an atomic add returned to the threads of one location, with what each
/// added (every value positive): sorted, each old value is the start plus the values before
/// it, and the final value is the start plus all of them.
fn add_chain(what: &str, start: f64, mut seen: Vec<(f64, f64)>, end: f64) {
    seen.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mut run = start;
    for (i, (old, v)) in seen.iter().enumerate() {
        assert!(*old == run, "{what}: old value {i} in order is {old}, the running sum is {run} (of {} adds)", seen.len());
        run += v;
    }
    assert!(end == run, "{what}: final value {end}, the start plus every value is {run}");
}

/// The threads of slot `s`.
fn of_slot(s: u32) -> impl Iterator<Item = usize> {
    (s..T).step_by(SLOTS as usize).map(|t| t as usize)
}

/// The generic address of a global pointer (`cvta.global.u64`).
fn generic<T: DataType>(k: &mut Kernel, p: GlobalPtr<T>) -> GenericPtr<T> {
    let a = p.addr(k);
    GenericPtr::from_reg(ptx!(k, "cvta.global.u64", a))
}

fn needs_sm90(gpu: &Gpu, what: &str) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("{what} needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
}

// ---------------------------------------------------------------------------------------
// Scalar 16-bit adds: atom f16, red bf16, atom f16x2, red bf16x2.

const SCALAR: Layout = Layout { rec_in: 4, slot: 4, rec_out: 2 };

/// Input record: [f16 | -, bf16 | -, f16x2, bf16x2]. Slot: [f16 acc | spare, spare | bf16
/// acc, f16x2 acc, bf16x2 acc]. Old values: [f16 | -, f16x2].
fn scalar_half_kernel(target: Target) -> (Module, KernelRef<ContendP>) {
    contend_kernel(target, SCALAR, |k, inp, acc, out| {
        let v = k.ld(inp.cast::<F16>());
        let old = ptx!(k, "atom.global.add.noftz.f16", acc.cast::<F16>(), v);
        k.st(out.cast::<F16>(), old);
        let b = k.ld(inp.cast::<Bf16>().offset(2));
        ptx!(k, "red.global.add.noftz.bf16", acc.cast::<Bf16>().offset(3), b);
        let p = k.ld(inp.cast::<F16x2>().offset(2));
        let old2 = ptx!(k, "atom.global.add.noftz.f16x2", acc.cast::<F16x2>().offset(2), p);
        k.st(out.cast::<F16x2>().offset(1), old2);
        let q = k.ld(inp.cast::<Bf16x2>().offset(3));
        ptx!(k, "red.add.noftz.bf16x2", generic(k, acc.cast::<Bf16x2>().offset(3)), q);
    })
}

fn half_precision_atomic_adds(gpu: Gpu) {
    needs_sm90(&gpu, "atom/red .bf16 and .bf16x2");
    let mut g = rng("half_precision_atomic_adds");
    let small = |g: &mut StdRng, hi: u32| g.gen_range(1..=hi) as f64;
    let mut input = Vec::with_capacity((T * SCALAR.rec_in) as usize);
    for _ in 0..T {
        input.push(pack(f16v(small(&mut g, 7)), g.gen()));
        input.push(pack(bf16v(small(&mut g, 3)), g.gen()));
        input.push(pack(f16v(small(&mut g, 7)), f16v(small(&mut g, 7))));
        input.push(pack(bf16v(small(&mut g, 3)), bf16v(small(&mut g, 3))));
    }
    let mut acc0 = Vec::with_capacity((SLOTS * SCALAR.slot) as usize);
    for _ in 0..SLOTS {
        // The spare halves are random and must stay as they are.
        acc0.push(pack(f16v(g.gen_range(0..64) as f64), g.gen()));
        acc0.push(pack(g.gen(), bf16v(g.gen_range(0..32) as f64)));
        acc0.push(pack(f16v(g.gen_range(0..64) as f64), f16v(g.gen_range(0..64) as f64)));
        acc0.push(pack(bf16v(g.gen_range(0..32) as f64), bf16v(g.gen_range(0..32) as f64)));
    }
    let (acc, olds) = contend(&gpu, &scalar_half_kernel(target(&gpu)), SCALAR, &input, &acc0);
    for s in 0..SLOTS {
        let a = |w: u32| acc[(s * 4 + w) as usize];
        let a0 = |w: u32| acc0[(s * 4 + w) as usize];
        let rec = |t: usize, w: usize| input[t * 4 + w];
        assert_eq!(
            (half_of(a(0), 1), half_of(a(1), 0)),
            (half_of(a0(0), 1), half_of(a0(1), 0)),
            "slot {s}: a 16-bit atomic wrote its neighbour"
        );
        let seen: Vec<(f64, f64)> = of_slot(s).map(|t| (from_f16(half_of(olds[t * 2], 0)), from_f16(half_of(rec(t, 0), 0)))).collect();
        add_chain(&format!("slot {s}: atom.global.add.noftz.f16"), from_f16(half_of(a0(0), 0)), seen, from_f16(half_of(a(0), 0)));
        let sum: f64 = of_slot(s).map(|t| from_bf16(half_of(rec(t, 1), 0))).sum();
        assert_eq!(from_bf16(half_of(a(1), 1)), from_bf16(half_of(a0(1), 1)) + sum, "slot {s}: red.global.add.noftz.bf16");
        for h in 0..2 {
            let seen = of_slot(s).map(|t| (from_f16(half_of(olds[t * 2 + 1], h)), from_f16(half_of(rec(t, 2), h)))).collect();
            add_chain(
                &format!("slot {s}: atom.global.add.noftz.f16x2, half {h}"),
                from_f16(half_of(a0(2), h)),
                seen,
                from_f16(half_of(a(2), h)),
            );
            let sum: f64 = of_slot(s).map(|t| from_bf16(half_of(rec(t, 3), h))).sum();
            assert_eq!(from_bf16(half_of(a(3), h)), from_bf16(half_of(a0(3), h)) + sum, "slot {s}: red.add.noftz.bf16x2, half {h}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Vectors (global memory, sm_90): atom add v4.f32 and v8.bf16, red add v2.f32 and v8.f16,
// atom max v4.f16x2, red min v2.bf16x2.

const VECTOR: Layout = Layout { rec_in: 20, slot: 24, rec_out: 12 };

/// Input record: [v4 f32 | v8 bf16 (4 words) | v2 f32 | v8 f16 (4) | v4 f16x2 | v2 bf16x2].
/// Slot (96 bytes): [0..4 v4.f32 | 4..8 v8.bf16 | 8..10 v2.f32 | 10..12 spare | 12..16
/// v8.f16 | 16..20 v4.f16x2 max | 20..22 v2.bf16x2 min | 22..24 spare]. Old values: [v4
/// f32 | v8 bf16 | v4 f16x2].
fn vector_kernel(target: Target) -> (Module, KernelRef<ContendP>) {
    contend_kernel(target, VECTOR, |k, inp, acc, out| {
        let f: [Reg<F32>; 4] = core::array::from_fn(|j| k.ld(inp.cast::<F32>().offset(j as i64)));
        let old = ptx!(k, "atom.global.add.v4.f32", acc.cast::<F32>(), f);
        (0..4).for_each(|j| k.st(out.cast::<F32>().offset(j as i64), old[j]));
        let b: [Reg<Bf16>; 8] = core::array::from_fn(|j| k.ld(inp.cast::<Bf16>().offset(8 + j as i64)));
        let oldb = ptx!(k, "atom.acq_rel.gpu.global.add.noftz.v8.bf16", acc.cast::<Bf16>().offset(8), b);
        (0..8).for_each(|j| k.st(out.cast::<Bf16>().offset(8 + j as i64), oldb[j]));
        let f2: [Reg<F32>; 2] = core::array::from_fn(|j| k.ld(inp.cast::<F32>().offset(8 + j as i64)));
        ptx!(k, "red.global.add.v2.f32", acc.cast::<F32>().offset(8), f2);
        let h: [Reg<F16>; 8] = core::array::from_fn(|j| k.ld(inp.cast::<F16>().offset(20 + j as i64)));
        ptx!(k, "red.release.gpu.global.add.noftz.v8.f16", acc.cast::<F16>().offset(24), h);
        let p: [Reg<F16x2>; 4] = core::array::from_fn(|j| k.ld(inp.cast::<F16x2>().offset(14 + j as i64)));
        let oldp = ptx!(k, "atom.global.max.noftz.v4.f16x2", acc.cast::<F16x2>().offset(16), p);
        (0..4).for_each(|j| k.st(out.cast::<F16x2>().offset(8 + j as i64), oldp[j]));
        let q: [Reg<Bf16x2>; 2] = core::array::from_fn(|j| k.ld(inp.cast::<Bf16x2>().offset(18 + j as i64)));
        ptx!(k, "red.global.min.noftz.v2.bf16x2", acc.cast::<Bf16x2>().offset(20), q);
    })
}

/// A random finite, nonzero value of magnitude 2^-6 to 2^6.
fn spread(g: &mut StdRng) -> f64 {
    let m: f64 = g.gen_range(1.0..2.0);
    let s = if g.gen() { 1.0 } else { -1.0 };
    s * m * 2f64.powi(g.gen_range(-6..=6))
}

fn vector_atomics(gpu: Gpu) {
    needs_sm90(&gpu, "atom/red with vector types");
    let mut g = rng("vector_atomics");
    let mut input = Vec::with_capacity((T * VECTOR.rec_in) as usize);
    for _ in 0..T {
        (0..4).for_each(|_| input.push((g.gen_range(1..=1000) as f32).to_bits()));
        (0..4).for_each(|_| input.push(pack(bf16v(g.gen_range(1..=3) as f64), bf16v(g.gen_range(1..=3) as f64))));
        (0..2).for_each(|_| input.push((g.gen_range(1..=1000) as f32).to_bits()));
        (0..4).for_each(|_| input.push(pack(f16v(g.gen_range(1..=7) as f64), f16v(g.gen_range(1..=7) as f64))));
        (0..4).for_each(|_| input.push(pack(f16v(spread(&mut g)), f16v(spread(&mut g)))));
        (0..2).for_each(|_| input.push(pack(bf16v(spread(&mut g)), bf16v(spread(&mut g)))));
    }
    let mut acc0 = Vec::with_capacity((SLOTS * VECTOR.slot) as usize);
    for _ in 0..SLOTS {
        (0..4).for_each(|_| acc0.push((g.gen_range(0..1000) as f32).to_bits()));
        (0..4).for_each(|_| acc0.push(pack(bf16v(g.gen_range(0..32) as f64), bf16v(g.gen_range(0..32) as f64))));
        (0..2).for_each(|_| acc0.push((g.gen_range(0..1000) as f32).to_bits()));
        (0..2).for_each(|_| acc0.push(g.gen()));
        (0..4).for_each(|_| acc0.push(pack(f16v(g.gen_range(0..64) as f64), f16v(g.gen_range(0..64) as f64))));
        (0..4).for_each(|_| acc0.push(pack(f16v(spread(&mut g)), f16v(spread(&mut g)))));
        (0..2).for_each(|_| acc0.push(pack(bf16v(spread(&mut g)), bf16v(spread(&mut g)))));
        (0..2).for_each(|_| acc0.push(g.gen()));
    }
    let (acc, olds) = contend(&gpu, &vector_kernel(target(&gpu)), VECTOR, &input, &acc0);
    let f32w = |w: u32| f32::from_bits(w) as f64;
    for s in 0..SLOTS {
        let a = |w: usize| acc[s as usize * 24 + w];
        let a0 = |w: usize| acc0[s as usize * 24 + w];
        let rec = |t: usize, w: usize| input[t * 20 + w];
        let old = |t: usize, w: usize| olds[t * 12 + w];
        for w in [10, 11, 22, 23] {
            assert_eq!(a(w), a0(w), "slot {s}: spare word {w} changed");
        }
        for j in 0..4 {
            let seen = of_slot(s).map(|t| (f32w(old(t, j)), f32w(rec(t, j)))).collect();
            add_chain(&format!("slot {s}: atom.global.add.v4.f32, element {j}"), f32w(a0(j)), seen, f32w(a(j)));
        }
        for j in 0..8 {
            let (w, h) = (j / 2, j % 2);
            let seen = of_slot(s).map(|t| (from_bf16(half_of(old(t, 4 + w), h)), from_bf16(half_of(rec(t, 4 + w), h)))).collect();
            add_chain(
                &format!("slot {s}: atom.global.add.noftz.v8.bf16, element {j}"),
                from_bf16(half_of(a0(4 + w), h)),
                seen,
                from_bf16(half_of(a(4 + w), h)),
            );
            let sum: f64 = of_slot(s).map(|t| from_f16(half_of(rec(t, 10 + w), h))).sum();
            assert_eq!(
                from_f16(half_of(a(12 + w), h)),
                from_f16(half_of(a0(12 + w), h)) + sum,
                "slot {s}: red.add.noftz.v8.f16, element {j}"
            );
            // Max over the f16x2 vector (4 words, 8 halves), min over the bf16x2 one (2 words).
            let vals: Vec<f64> = of_slot(s).map(|t| from_f16(half_of(rec(t, 14 + w), h))).collect();
            let max = vals.iter().fold(from_f16(half_of(a0(16 + w), h)), |m, v| m.max(*v));
            assert_eq!(from_f16(half_of(a(16 + w), h)), max, "slot {s}: atom.max.noftz.v4.f16x2, half {j}");
            for t in of_slot(s) {
                let o = from_f16(half_of(old(t, 8 + w), h));
                let known = o == from_f16(half_of(a0(16 + w), h)) || vals.contains(&o);
                assert!(known && o <= max, "slot {s}, thread {t}: atom.max.v4.f16x2 half {j} returned {o}, neither the start nor a value of the slot, or above the maximum {max}");
            }
            if j < 4 {
                let min = of_slot(s).map(|t| from_bf16(half_of(rec(t, 18 + w), h))).fold(from_bf16(half_of(a0(20 + w), h)), f64::min);
                assert_eq!(from_bf16(half_of(a(20 + w), h)), min, "slot {s}: red.min.noftz.v2.bf16x2, half {j}");
            }
        }
        for j in 0..2 {
            let sum: f64 = of_slot(s).map(|t| f32w(rec(t, 8 + j))).sum();
            assert_eq!(f32w(a(8 + j)), f32w(a0(8 + j)) + sum, "slot {s}: red.global.add.v2.f32, element {j}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cache policies and the cache-hinted forms: the results are those of the plain forms.

const HINTED: Layout = Layout { rec_in: 8, slot: 8, rec_out: 6 };

/// Input record: [u32, f32, f16x2, bf16 | -, v4 f16 (2 words), u64 (2 words)]. Slot: [u32
/// add, f32 red, f16x2 red, bf16 atom | spare, v4 f16 atom (2), u64 max (2)]. Old values:
/// [u32, bf16 | -, v4 f16 (2), u64 (2)]. Each operation takes another policy.
fn hinted_kernel(target: Target) -> (Module, KernelRef<ContendP>) {
    contend_kernel(target, HINTED, |k, inp, acc, out| {
        let half = ptx!(k, "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64" as fraction, 0.5f32);
        let whole = ptx!(k, "createpolicy.fractional.L2::evict_first.b64");
        let frac = ptx!(k, "mov.f32", 0.75f32);
        let some = ptx!(k, "createpolicy.fractional.L2::evict_normal.L2::evict_first.b64" as fraction, frac);
        let (total, primary) = (ptx!(k, "mov.u32", 1u32 << 20), ptx!(k, "mov.u32", 1u32 << 16));
        let range = ptx!(k, "createpolicy.range.global.L2::evict_last.L2::evict_first.b64", acc, primary, total);
        let near = ptx!(k, "createpolicy.range.L2::evict_unchanged.b64", generic(k, inp), 4096u32, 8192u32);

        let x = k.ld(inp);
        let old = ptx!(k, "atom.global.add.L2::cache_hint.u32", acc, x, half);
        k.st(out, old);
        let f = k.ld(inp.cast::<F32>().offset(1));
        ptx!(k, "red.relaxed.gpu.global.add.L2::cache_hint.f32", acc.cast::<F32>().offset(1), f, whole);
        let p = k.ld(inp.cast::<F16x2>().offset(2));
        ptx!(k, "red.global.add.noftz.L2::cache_hint.f16x2", acc.cast::<F16x2>().offset(2), p, some);
        let b = k.ld(inp.cast::<Bf16>().offset(6));
        let oldb = ptx!(k, "atom.add.noftz.L2::cache_hint.bf16", generic(k, acc.cast::<Bf16>().offset(6)), b, range);
        k.st(out.cast::<Bf16>().offset(2), oldb);
        let h: [Reg<F16>; 4] = core::array::from_fn(|j| k.ld(inp.cast::<F16>().offset(8 + j as i64)));
        let oldh = ptx!(k, "atom.global.add.noftz.L2::cache_hint.v4.f16", acc.cast::<F16>().offset(8), h, near);
        (0..4).for_each(|j| k.st(out.cast::<F16>().offset(4 + j as i64), oldh[j]));
        let w = k.ld(inp.cast::<U64>().offset(3));
        let oldw = ptx!(k, "atom.global.max.L2::cache_hint.u64", acc.cast::<U64>().offset(3), w, range);
        k.st(out.cast::<U64>().offset(2), oldw);
    })
}

fn cache_hinted_atomics(gpu: Gpu) {
    needs_sm90(&gpu, "atom .bf16 and vector atom");
    let mut g = rng("cache_hinted_atomics");
    let mut input = Vec::with_capacity((T * HINTED.rec_in) as usize);
    for _ in 0..T {
        input.push(g.gen_range(1..=1 << 20));
        input.push((g.gen_range(1..=1000) as f32).to_bits());
        input.push(pack(f16v(g.gen_range(1..=7) as f64), f16v(g.gen_range(1..=7) as f64)));
        input.push(pack(bf16v(g.gen_range(1..=3) as f64), g.gen()));
        (0..2).for_each(|_| input.push(pack(f16v(g.gen_range(1..=7) as f64), f16v(g.gen_range(1..=7) as f64))));
        let w: u64 = g.gen();
        input.extend([w as u32, (w >> 32) as u32]);
    }
    let mut acc0 = Vec::with_capacity((SLOTS * HINTED.slot) as usize);
    for _ in 0..SLOTS {
        acc0.push(g.gen_range(0..1 << 20));
        acc0.push((g.gen_range(0..1000) as f32).to_bits());
        acc0.push(pack(f16v(g.gen_range(0..64) as f64), f16v(g.gen_range(0..64) as f64)));
        acc0.push(pack(bf16v(g.gen_range(0..32) as f64), g.gen()));
        (0..2).for_each(|_| acc0.push(pack(f16v(g.gen_range(0..64) as f64), f16v(g.gen_range(0..64) as f64))));
        let w: u64 = g.gen::<u64>() >> 1;
        acc0.extend([w as u32, (w >> 32) as u32]);
    }
    let (acc, olds) = contend(&gpu, &hinted_kernel(target(&gpu)), HINTED, &input, &acc0);
    let u64w = |lo: u32, hi: u32| lo as u64 | (hi as u64) << 32;
    for s in 0..SLOTS {
        let a = |w: usize| acc[s as usize * 8 + w];
        let a0 = |w: usize| acc0[s as usize * 8 + w];
        let rec = |t: usize, w: usize| input[t * 8 + w];
        let old = |t: usize, w: usize| olds[t * 6 + w];
        let seen = of_slot(s).map(|t| (old(t, 0) as f64, rec(t, 0) as f64)).collect();
        add_chain(&format!("slot {s}: atom.add.L2::cache_hint.u32"), a0(0) as f64, seen, a(0) as f64);
        let sum: f64 = of_slot(s).map(|t| f32::from_bits(rec(t, 1)) as f64).sum();
        assert_eq!(f32::from_bits(a(1)) as f64, f32::from_bits(a0(1)) as f64 + sum, "slot {s}: red.add.L2::cache_hint.f32");
        for h in 0..2 {
            let sum: f64 = of_slot(s).map(|t| from_f16(half_of(rec(t, 2), h))).sum();
            assert_eq!(
                from_f16(half_of(a(2), h)),
                from_f16(half_of(a0(2), h)) + sum,
                "slot {s}: red.add.noftz.L2::cache_hint.f16x2, half {h}"
            );
        }
        assert_eq!(half_of(a(3), 1), half_of(a0(3), 1), "slot {s}: atom.add.bf16 wrote its neighbour");
        let seen = of_slot(s).map(|t| (from_bf16(half_of(old(t, 1), 0)), from_bf16(half_of(rec(t, 3), 0)))).collect();
        add_chain(
            &format!("slot {s}: atom.add.noftz.L2::cache_hint.bf16"),
            from_bf16(half_of(a0(3), 0)),
            seen,
            from_bf16(half_of(a(3), 0)),
        );
        for j in 0..4 {
            let (w, h) = (j / 2, j % 2);
            let seen = of_slot(s).map(|t| (from_f16(half_of(old(t, 2 + w), h)), from_f16(half_of(rec(t, 4 + w), h)))).collect();
            add_chain(
                &format!("slot {s}: atom.add.noftz.L2::cache_hint.v4.f16, element {j}"),
                from_f16(half_of(a0(4 + w), h)),
                seen,
                from_f16(half_of(a(4 + w), h)),
            );
        }
        let vals: Vec<u64> = of_slot(s).map(|t| u64w(rec(t, 6), rec(t, 7))).collect();
        let max = vals.iter().copied().fold(u64w(a0(6), a0(7)), u64::max);
        assert_eq!(u64w(a(6), a(7)), max, "slot {s}: atom.max.L2::cache_hint.u64");
        for t in of_slot(s) {
            let o = u64w(old(t, 4), old(t, 5));
            assert!((o == u64w(a0(6), a0(7)) || vals.contains(&o)) && o <= max, "slot {s}, thread {t}: atom.max.u64 returned {o:#x}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// atom.cas.b16: 16-bit counters packed next to each other, incremented through
// compare-and-swap loops, in global memory and in shared memory.

/// Tries a compare-and-swap loop makes before it gives up (and reports it).
const CAS_TRIES: u32 = 1 << 20;
const COUNTERS: u32 = 8;

type CasP = (GlobalPtr<U16>, GlobalPtr<U16>, GlobalPtr<U16>, GlobalPtr<U32>);

/// Thread t adds `inc[t]` to global counter `t % 8` (elements 1 to 8 of `ctrs`, between two
/// guard halves) and to its block's shared counter
/// `t % 8` with `atom.cas.b16` loops; `ok[t]` is 1 where both loops finished, and the
/// block's shared counters land in `block_out[8 * block ..]`.
fn cas_kernel(target: Target) -> (Module, KernelRef<CasP>) {
    /// Adds `inc` to a counter whose value was `cur`, through `cas` (an `atom.cas.b16` on it).
    fn cas_add(k: &mut Kernel, cur: Reg<B16>, inc: Reg<U16>, ok: Reg<U32>, cas: impl Fn(&mut Kernel, Reg<B16>, Reg<U16>) -> Reg<B16>) {
        let tries = ptx!(k, "mov.u32", 0u32);
        k.loop_(|k, l| {
            let next = ptx!(k, "add.u16", cur.bitcast::<U16>(), inc);
            let seen = cas(k, cur, next);
            let done = ptx!(k, "setp.eq.b16", seen, cur);
            k.if_(done, |k| k.assign(ok, 1u32));
            k.bra_if(done, l.brk);
            k.assign(cur, seen);
            let more = ptx!(k, "add.u32", tries, 1u32);
            k.assign(tries, more);
            let over = ptx!(k, "setp.ge.u32", tries, CAS_TRIES);
            k.bra_if(over, l.brk);
        });
    }
    let mut m = Module::new(target);
    let kr = m
        .kernel("cas16", |k, (ctrs, incs, block_out, ok): CasP| {
            let sh = k.shared_array::<B16>("ctr", COUNTERS, 16);
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let first = ptx!(k, "setp.lt.u32", t, COUNTERS);
            k.if_(first, |k| k.st(sh.at(t), 0u16));
            ptx!(k, "bar.sync", 0u32);
            let i = k.global_thread_index_x();
            let c = ptx!(k, "rem.u32", i, COUNTERS);
            let inc = k.ld(incs.at(i));
            let (okg, oks) = (ptx!(k, "mov.u32", 0u32), ptx!(k, "mov.u32", 0u32));
            let (gc, sc) = (ctrs.cast::<B16>().offset(1).at(c), sh.at(c));
            let cur = k.ld(gc);
            cas_add(k, cur, inc, okg, |k, cur, next| ptx!(k, "atom.global.cas.b16", gc, cur, next));
            let cur = k.ld(sc);
            cas_add(k, cur, inc, oks, |k, cur, next| ptx!(k, "atom.shared.cas.b16", sc, cur, next));
            let both = ptx!(k, "and.b32", okg, oks);
            k.st(ok.at(i), both.bitcast::<U32>());
            ptx!(k, "bar.sync", 0u32);
            k.if_(first, |k| {
                let v = k.ld(sh.at(t));
                let b = ptx!(k, "mov.u32", sreg::CTAID_X);
                let at = ptx!(k, "mad.lo.u32", b, COUNTERS, t);
                k.st(block_out.cast::<B16>().at(at), v);
            });
        })
        .unwrap();
    (m, kr)
}

fn atom_cas_b16(gpu: Gpu) {
    let mut g = rng("atom_cas_b16");
    let (blocks, per) = (32u32, 256u32);
    let n = (blocks * per) as usize;
    let incs: Vec<u16> = (0..n).map(|_| g.gen_range(1..=300)).collect();
    // The eight counters sit between two guard halves that must not change.
    let start: Vec<u16> = (0..COUNTERS + 2).map(|_| g.gen()).collect();
    let (m, kr) = cas_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let mut ctrs = gpu.upload(&start).unwrap();
    let dinc = gpu.upload(&incs).unwrap();
    let mut block_out = poisoned::<u16>(&gpu, (blocks * COUNTERS) as usize).unwrap();
    let mut ok = poisoned::<u32>(&gpu, n).unwrap();
    kern.launch(&Launch::new(blocks, per), (&mut ctrs, &dinc, &mut block_out, &mut ok)).unwrap();
    let (ctrs, block_out, ok) = (gpu.download(&ctrs).unwrap(), gpu.download(&block_out).unwrap(), gpu.download(&ok).unwrap());
    let stuck = ok.iter().filter(|v| **v != 1).count();
    assert_eq!(stuck, 0, "{stuck} threads did not finish their compare-and-swap loops in {CAS_TRIES} tries");
    assert_eq!((ctrs[0], ctrs[COUNTERS as usize + 1]), (start[0], start[COUNTERS as usize + 1]), "a guard half changed");
    for c in 0..COUNTERS as usize {
        let sum = (0..n).filter(|i| i % COUNTERS as usize == c).fold(start[c + 1], |a, i| a.wrapping_add(incs[i]));
        assert_eq!(ctrs[c + 1], sum, "global counter {c}: atom.global.cas.b16");
        for b in 0..blocks as usize {
            let sum = (b * per as usize..(b + 1) * per as usize)
                .filter(|i| i % COUNTERS as usize == c)
                .fold(0u16, |a, i| a.wrapping_add(incs[i]));
            assert_eq!(block_out[b * COUNTERS as usize + c], sum, "block {b}, shared counter {c}: atom.shared.cas.b16");
        }
    }
}

// ---------------------------------------------------------------------------------------
// discard and applypriority on 128-byte lines.

const LINE_WORDS: u32 = 32;

/// Thread t owns line t: an even line is discarded, then written with `t ^ j`; an odd line
/// gets `applypriority.L2::evict_normal` and is read back into `seen`.
fn lines_kernel(target: Target) -> (Module, KernelRef<(GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("lines", |k, (buf, seen, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
            let t = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", t, n);
            k.if_(inb, |k| {
                let base = buf.addr(k);
                let off = ptx!(k, "mul.wide.u32", t, LINE_WORDS * 4);
                let line = GlobalPtr::<U32>::from_reg(ptx!(k, "add.u64", base, off));
                let odd = ptx!(k, "and.b32", t, 1u32);
                let is_odd = ptx!(k, "setp.ne.b32", odd, 0u32);
                k.if_else(
                    is_odd,
                    |k| {
                        ptx!(k, "applypriority.global.L2::evict_normal", line, Const::<128>);
                        k.for_range(0u32, LINE_WORDS, 1, |k, j| {
                            let v = k.ld(line.at(j));
                            let at = ptx!(k, "mad.lo.u32", t, LINE_WORDS, j);
                            k.st(seen.at(at), v);
                        });
                    },
                    |k| {
                        ptx!(k, "discard.L2", generic(k, line), Const::<128>);
                        k.for_range(0u32, LINE_WORDS, 1, |k, j| {
                            let v = ptx!(k, "xor.b32", t, j);
                            k.st(line.at(j), v.bitcast::<U32>());
                        });
                    },
                );
            });
        })
        .unwrap();
    (m, kr)
}

fn discard_and_applypriority(gpu: Gpu) {
    let mut g = rng("discard_and_applypriority");
    let lines = 4096u32;
    let data: Vec<u32> = (0..lines * LINE_WORDS).map(|_| g.gen()).collect();
    let (m, kr) = lines_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let mut buf = gpu.upload(&data).unwrap();
    let mut seen = poisoned::<u32>(&gpu, (lines * LINE_WORDS) as usize).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(lines, 128), (&mut buf, &mut seen, lines)).unwrap();
    let (buf, seen) = (gpu.download(&buf).unwrap(), gpu.download(&seen).unwrap());
    let line_of = |i: usize| format!("line {}, word {}", i / LINE_WORDS as usize, i % LINE_WORDS as usize);
    let want: Vec<u32> = (0..data.len())
        .map(|i| if (i / LINE_WORDS as usize) % 2 == 1 { data[i] } else { (i / LINE_WORDS as usize ^ i % LINE_WORDS as usize) as u32 })
        .collect();
    check("memory after discard-then-write (even lines) and applypriority (odd lines)", line_of, &buf, &want);
    for i in (0..data.len()).filter(|i| (i / LINE_WORDS as usize) % 2 == 1) {
        assert_eq!(seen[i], data[i], "{}: read after applypriority", line_of(i));
    }
}

/// Without a GPU: every kernel of this file assembles for sm_90.
fn atomic_kernels_assemble() {
    let t = Target::SM_90;
    let texts = [
        ("scalar 16-bit", scalar_half_kernel(t).0.to_ptx()),
        ("vector", vector_kernel(t).0.to_ptx()),
        ("cache-hinted", hinted_kernel(t).0.to_ptx()),
        ("cas.b16", cas_kernel(t).0.to_ptx()),
        ("discard", lines_kernel(t).0.to_ptx()),
    ];
    for (name, text) in texts {
        let text = text.unwrap_or_else(|e| panic!("{name}: {e}"));
        let px = ptxas(name);
        ptxkit::ptxas::check_clean(&px, &text, t, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    }
}

pub const TESTS: &[Test] = &[
    host!(atomic_kernels_assemble),
    gpu!(half_precision_atomic_adds),
    gpu!(vector_atomics),
    gpu!(cache_hinted_atomics),
    gpu!(atom_cas_b16),
    gpu!(discard_and_applypriority),
];
