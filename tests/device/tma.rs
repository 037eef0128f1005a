//! TMA and bulk copies on the GPU against CPU models, on fresh random data with poisoned
//! outputs:
//!
//! - tensor tile loads (`cp.async.bulk.tensor`, rank 2 and 3) for every swizzle mode and
//!   element width, boxes inside the tensor and overhanging either edge: the whole
//!   shared-memory image the load leaves is read back and compared byte for byte with the
//!   image the CPU lays out (the box row-major, out-of-bound elements zero, each byte at
//!   `Swizzle::apply` of its offset);
//! - tensor tile stores of the same boxes from a shared-memory image written by ordinary
//!   stores: the whole output buffer, padding included, must equal the CPU's (the box's
//!   in-bound elements written, every other byte still poison);
//! - bulk copies global -> shared -> global at several sizes and offsets, and bulk
//!   reductions into global memory (`cp.reduce.async.bulk`, add of every type, min, max,
//!   xor);
//! - a multicast load to the two CTAs of a cluster, each CTA loading half the tile for both.
//!
//! Every load completes on an mbarrier armed by one thread with `arrive.expect_tx` of the
//! box's bytes; every thread waits with at most `TRIES` hinted `try_wait`s and records a
//! timeout in a status word instead of hanging, so a copy that never completes fails with a
//! message. Stores complete with `commit_group` and `wait_group 0` before the kernel ends.
//! Failures are collected over the whole table of configurations and reported together.

use super::*;
use ptxkit::builder::{TensorElem, TensorMap, TileRank};
use ptxkit::descriptors::{Field, Swizzle, TiledMap};
use ptxkit::ops::num::Dim;
use ptxkit::runtime::testing::POISON;
use ptxkit::runtime::{HostTensorMap, RuntimeError};
use rand::Rng;

/// Waits give up after this many `try_wait`s of at most `HINT_NS` each (about a second).
const TRIES: u32 = 1 << 20;
const HINT_NS: u32 = 1000;
const THREADS: u32 = 128;
/// The status words: `[0]` = 1 when the copy completed, `[1]` still poison unless a thread
/// timed out.
const DONE: u32 = 1;

/// Whether phase `parity` of the mbarrier at `bar` completed within `TRIES` tries.
fn wait_bounded(k: &mut Kernel, bar: SharedPtr<B64>, parity: u32, cluster: bool) -> Reg<Pred> {
    let done = ptx!(k, "mov.pred", false);
    let exit = k.label();
    k.for_range(0u32, TRIES, 1, |k, _| {
        let ok = if cluster {
            ptx!(k, "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64" as hinted, bar, parity, HINT_NS)
        } else {
            ptx!(k, "mbarrier.try_wait.parity.shared::cta.b64" as hinted, bar, parity, HINT_NS)
        };
        ptx!(k, "mov.pred" => done, ok);
        k.bra_if(ok, exit);
    });
    k.place(exit);
    done
}

/// The prelude of a one-CTA bulk load: thread 0 sets up an mbarrier in shared memory,
/// arms it for `size` bytes and issues the copy into the dynamic shared memory
/// (`issue(k, smem, bar)`); every thread then waits for it, bounded. Returns the shared
/// memory, whether this is thread 0, and whether the copy completed.
pub(super) fn bulk_load<T: DataType>(
    k: &mut Kernel,
    size: Reg<U32>,
    issue: impl FnOnce(&mut Kernel, SharedPtr<T>, SharedPtr<B64>),
) -> (SharedPtr<T>, Reg<Pred>, Reg<Pred>) {
    let tid = ptx!(k, "mov.u32", sreg::TID_X);
    let first = ptx!(k, "setp.eq.u32", tid, 0u32);
    let smem = k.dynamic_shared_aligned::<T>(128);
    let bar = k.shared_array::<B64>("bar", 1, 8);
    k.if_(first, |k| ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32));
    ptx!(k, "bar.sync", 0u32);
    k.if_(first, |k| {
        let _ = ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", bar, size);
        issue(k, smem, bar);
    });
    (smem, first, wait_bounded(k, bar, 0, false))
}

/// A status word that says the dynamic shared memory is not at a multiple of 1024 bytes,
/// which the swizzle model of these tests assumes.
const MISALIGNED: u32 = 0x4000_0000;

/// Records `MISALIGNED | (base % 1024)` in `status[1]` when the dynamic shared memory at
/// `smem` does not start on a 1024-byte boundary.
fn check_alignment(k: &mut Kernel, smem: SharedPtr<U32>, first: Reg<Pred>, status: GlobalPtr<U32>) {
    let base = smem.addr(k);
    let low = ptx!(k, "and.b32", base.bitcast::<B32>(), 1023u32);
    let bad = ptx!(k, "setp.ne.b32", low, 0u32);
    let both = ptx!(k, "and.pred", bad, first);
    k.if_(both, |k| {
        let v = ptx!(k, "or.b32", low, MISALIGNED);
        ptx!(k, "st.global.b32", status.cast::<B32>().offset(1), v);
    });
}

/// `status[0] = DONE` from thread 0 when `done`; `status[1] = 1` from any thread when not.
pub(super) fn report(k: &mut Kernel, done: Reg<Pred>, first: Reg<Pred>, status: GlobalPtr<U32>) {
    k.if_else(
        done,
        |k| k.if_(first, |k| ptx!(k, "st.global.u32", status.offset(0), DONE)),
        |k| ptx!(k, "st.global.u32", status.offset(1), 1u32),
    );
}

/// The status words as the kernel left them, as an error when the copy did not complete.
pub(super) fn status_ok(gpu: &Gpu, status: &CudaSlice<u32>, what: &str) -> Result<(), String> {
    let s = gpu.download(status).map_err(|e| e.to_string())?;
    if s[1] & 0xF000_0000 == MISALIGNED {
        return Err(format!("{what}: dynamic shared memory starts {} bytes past a 1024-byte boundary", s[1] & 1023));
    }
    if s[1] != u32::MAX {
        return Err(format!("{what}: the mbarrier wait timed out after {TRIES} tries"));
    }
    if s[0] != DONE {
        return Err(format!("{what}: status {:#x}, the kernel did not report completion", s[0]));
    }
    Ok(())
}

/// Host element types by width, as bytes.
trait Bytes: Elem + Copy + Default + Debug {
    const N: usize;
    fn from_le(b: &[u8]) -> Self;
    fn to_le(self) -> Vec<u8>;
}
macro_rules! bytes { ($($t:ty)*) => {$(impl Bytes for $t {
    const N: usize = std::mem::size_of::<$t>();
    fn from_le(b: &[u8]) -> Self { <$t>::from_le_bytes(b.try_into().expect("element width")) }
    fn to_le(self) -> Vec<u8> { self.to_le_bytes().to_vec() }
})*}; }
bytes!(u8 u16 u32 u64);

fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// A tensor of rank `R` (at most 3) in a padded buffer: `dims` elements, rows padded by at
/// least 16 bytes, one padding row between planes, two after the tensor; `box_dims` for the
/// copies.
#[derive(Clone, Debug)]
struct Shape<const R: usize> {
    elem: usize,
    dims: [u64; R],
    strides: [u64; R],
    box_dims: [u32; R],
    swizzle: Swizzle,
    len: usize,
}

impl<const R: usize> Shape<R> {
    fn new(elem: usize, swizzle: Swizzle) -> Self {
        // A swizzled box row is exactly one swizzle row; an unswizzled one 80 bytes.
        let inner_bytes = if swizzle == Swizzle::None { 80 } else { swizzle.bytes() as usize };
        let b0 = (inner_bytes / elem) as u32;
        let box_dims: [u32; R] = std::array::from_fn(|i| [b0, if R == 2 { 20 } else { 6 }, 3][i]);
        let dims: [u64; R] = std::array::from_fn(|i| [2 * b0 as u64 + 3, box_dims[1.min(R - 1)] as u64 + 7, 5][i]);
        let pitch = ((dims[0] as usize * elem).div_ceil(16) * 16 + 16) / elem;
        let mut strides = [1u64; R];
        if R > 1 {
            strides[1] = pitch as u64;
        }
        if R > 2 {
            strides[2] = pitch as u64 * (dims[1] + 1);
        }
        let len = strides[R - 1] as usize * (dims[R - 1] as usize + 2);
        Shape { elem, dims, strides, box_dims, swizzle, len }
    }
    fn map(&self) -> TiledMap<R> {
        TiledMap::new(self.dims, self.box_dims).strides(self.strides).swizzle(self.swizzle)
    }
    fn box_elems(&self) -> usize {
        self.box_dims.iter().map(|b| *b as usize).product()
    }
    fn box_bytes(&self) -> usize {
        self.box_elems() * self.elem
    }
    /// Box element `e` (row-major, dimension 0 fastest) as box coordinates.
    fn box_coords(&self, e: usize) -> [usize; R] {
        let mut rest = e;
        std::array::from_fn(|i| {
            let c = rest % self.box_dims[i] as usize;
            rest /= self.box_dims[i] as usize;
            c
        })
    }
    /// The buffer index of box element `e` for a box at `at`, or `None` outside the tensor.
    fn element(&self, at: [i32; R], e: usize) -> Option<usize> {
        self.element_within(at, e, self.dims[0])
    }
    /// As `element`, for a store: rows end at the 16-byte boundary at or after the tensor's
    /// innermost extent (the store writes whole 16-byte units into the row's padding).
    fn stored_element(&self, at: [i32; R], e: usize) -> Option<usize> {
        let q = 16 / self.elem as u64;
        self.element_within(at, e, self.dims[0].div_ceil(q) * q)
    }
    fn element_within(&self, at: [i32; R], e: usize, extent0: u64) -> Option<usize> {
        let c = self.box_coords(e);
        let mut idx = 0usize;
        for i in 0..R {
            let g = at[i] as i64 + c[i] as i64;
            let end = if i == 0 { extent0 } else { self.dims[i] };
            if g < 0 || g >= end as i64 {
                return None;
            }
            idx += g as usize * self.strides[i] as usize;
        }
        Some(idx)
    }
    /// Byte `o` of the box's logical (row-major) image lies at this byte of the swizzled one.
    fn smem(&self, o: usize) -> usize {
        self.swizzle.apply(o as u32) as usize
    }
    /// Three coordinate cases: inside, overhanging the far edges, starting before the near
    /// edges. The innermost coordinate is a multiple of 16 bytes, as tile-mode copies need.
    fn cases(&self, g: &mut StdRng) -> Vec<(&'static str, [i32; R])> {
        let q = |i: usize| if i == 0 { (16 / self.elem) as i32 } else { 1 };
        let inside: [i32; R] = std::array::from_fn(|i| q(i) * g.gen_range(0..=(self.dims[i] - self.box_dims[i] as u64) as i32 / q(i)));
        let far: [i32; R] = std::array::from_fn(|i| (self.dims[i] as i32 - (self.box_dims[i] as i32 / 2).max(1)) / q(i) * q(i));
        let near: [i32; R] = std::array::from_fn(|i| -((self.box_dims[i] as i32 / 3).max(1) + q(i) - 1) / q(i) * q(i));
        for i in 0..R {
            let (d, b) = (self.dims[i] as i32, self.box_dims[i] as i32);
            assert!(far[i] < d && far[i] + b > d && near[i] < 0 && near[i] + b > 0, "dimension {i}: far {far:?} near {near:?}");
        }
        vec![("inside", inside), ("over the far edge", far), ("before the near edge", near)]
    }
}

type LoadP<T, const R: usize> = (TensorMap<T, R>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<S32>, Reg<S32>, Reg<S32>, Reg<U32>);
type StoreP<T, const R: usize> = (TensorMap<T, R>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<S32>, Reg<S32>, Reg<S32>, Reg<U32>);

/// The load and store kernels for maps of `T` and rank `R`.
fn tile_module<T: TensorElem, const R: usize>(target: Target) -> (Module, KernelRef<LoadP<T, R>>, KernelRef<StoreP<T, R>>)
where
    Dim<R>: TileRank<R>,
{
    let mut m = Module::new(target);
    // One thread arms the barrier and issues the load; all wait, then copy the shared
    // memory image out word by word.
    let load_ref = m
        .kernel("tma_load", |k, (map, out, status, c0, c1, c2, bytes): LoadP<T, R>| {
            let tid = ptx!(k, "mov.u32", sreg::TID_X);
            let first = ptx!(k, "setp.eq.u32", tid, 0u32);
            let smem = k.dynamic_shared_aligned::<U32>(1024);
            check_alignment(k, smem, first, status);
            let bar = k.shared_array::<B64>("bar", 1, 8);
            k.if_(first, |k| ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32));
            ptx!(k, "bar.sync", 0u32);
            let all = [c0, c1, c2];
            let coords: [Reg<S32>; R] = std::array::from_fn(|i| all[i]);
            k.if_(first, |k| {
                let _ = ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", bar, bytes);
                map.load(k, smem, coords, bar);
            });
            let done = wait_bounded(k, bar, 0, false);
            k.if_(done, |k| {
                let words = ptx!(k, "shr.u32", bytes, 2u32);
                k.for_range(tid, words, THREADS, |k, w| {
                    let v = k.ld(smem.at(w));
                    k.st(out.at(w), v);
                });
            });
            report(k, done, first, status);
        })
        .unwrap();
    // Every thread writes its words of the image with ordinary stores and fences them to
    // the async proxy; one thread stores the box and waits for the bulk group.
    let store_ref = m
        .kernel("tma_store", |k, (map, img, status, c0, c1, c2, words): StoreP<T, R>| {
            let tid = ptx!(k, "mov.u32", sreg::TID_X);
            let first = ptx!(k, "setp.eq.u32", tid, 0u32);
            let smem = k.dynamic_shared_aligned::<U32>(1024);
            check_alignment(k, smem, first, status);
            k.for_range(tid, words, THREADS, |k, w| {
                let v = k.ld(img.at(w));
                k.st(smem.at(w), v);
            });
            ptx!(k, "fence.proxy.async.shared::cta");
            ptx!(k, "bar.sync", 0u32);
            let all = [c0, c1, c2];
            let coords: [Reg<S32>; R] = std::array::from_fn(|i| all[i]);
            k.if_(first, |k| {
                map.store(k, coords, smem);
                ptx!(k, "cp.async.bulk.commit_group");
                ptx!(k, "cp.async.bulk.wait_group", 0);
                ptx!(k, "st.global.u32", status.offset(0), DONE);
            });
        })
        .unwrap();
    (m, load_ref, store_ref)
}

/// The first differing byte of `got` and `want`, and how many differ.
fn first_diff(got: &[u8], want: &[u8]) -> Option<(usize, usize)> {
    let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
    bad.first().map(|&i| (i, bad.len()))
}

/// One swizzle mode for maps of `T` and rank `R`: every coordinate case loaded, and those at
/// nonnegative coordinates stored. Returns the number of runs.
fn tile_cases<T: TensorElem, const R: usize>(gpu: &Gpu, g: &mut StdRng, swizzle: Swizzle, failures: &mut Vec<String>) -> usize
where
    T::Host: Bytes,
    Dim<R>: TileRank<R>,
{
    let (m, load_ref, store_ref) = tile_module::<T, R>(target(gpu));
    let module = load(gpu, &m);
    let (load, store) = (module.kernel(&load_ref).unwrap(), module.kernel(&store_ref).unwrap());
    let elem = <T::Host as Bytes>::N;
    let shape = Shape::<R>::new(elem, swizzle);
    let mut runs = 0;
    for (case, at) in shape.cases(g) {
        let what =
            format!("{}-byte elements, rank {R}, {swizzle}, box {:?} at {at:?} ({case}) of dims {:?}", elem, shape.box_dims, shape.dims);
        runs += 1;
        if let Err(e) = tile_load(gpu, g, &load, &shape, at) {
            failures.push(format!("load, {what}: {e}"));
        }
        // A store at a negative coordinate stops the kernel (see `TensorMap::store`).
        if at.iter().any(|&c| c < 0) {
            continue;
        }
        runs += 1;
        if let Err(e) = tile_store(gpu, g, &store, &shape, at) {
            failures.push(format!("store, {what}: {e}"));
        }
        // A fault ends the context: what follows would only repeat it.
        assert!(!failures.iter().any(|f| f.contains("CUDA_ERROR")), "the GPU faulted:\n{}", failures.join("\n"));
    }
    runs
}

fn coords3<const R: usize>(at: [i32; R]) -> (i32, i32, i32) {
    (at[0], if R > 1 { at[1] } else { 0 }, if R > 2 { at[2] } else { 0 })
}

fn tile_load<T: TensorElem, const R: usize>(
    gpu: &Gpu,
    g: &mut StdRng,
    kern: &ptxkit::runtime::TypedKernel<LoadP<T, R>>,
    shape: &Shape<R>,
    at: [i32; R],
) -> Result<(), String>
where
    T::Host: Bytes,
{
    let elem = shape.elem;
    let mut bytes = vec![0u8; shape.len * elem];
    g.fill(&mut bytes[..]);
    let data: Vec<T::Host> = bytes.chunks_exact(elem).map(<T::Host as Bytes>::from_le).collect();
    let src = gpu.upload(&data).map_err(|e| e.to_string())?;
    let map = HostTensorMap::<T, R>::tiled(&src, &shape.map()).map_err(|e| e.to_string())?;
    if map.box_bytes() != shape.box_bytes() as u64 {
        return Err(format!("the map counts {} box bytes, the test {}", map.box_bytes(), shape.box_bytes()));
    }
    // The CPU image: each element's bytes (zero outside the tensor) at the swizzled offset.
    let mut want = vec![0u8; shape.box_bytes()];
    for e in 0..shape.box_elems() {
        if let Some(idx) = shape.element(at, e) {
            for j in 0..elem {
                want[shape.smem(e * elem + j)] = bytes[idx * elem + j];
            }
        }
    }
    let mut out = poisoned::<u32>(gpu, shape.box_bytes() / 4).map_err(|e| e.to_string())?;
    let mut status = poisoned::<u32>(gpu, 2).map_err(|e| e.to_string())?;
    let (c0, c1, c2) = coords3(at);
    let cfg = Launch::new(1, THREADS).shared(shape.box_bytes() as u32);
    kern.launch(&cfg, (&map, &mut out, &mut status, c0, c1, c2, shape.box_bytes() as u32)).map_err(|e| e.to_string())?;
    status_ok(gpu, &status, "load")?;
    let got: Vec<u8> = gpu.download(&out).map_err(|e| e.to_string())?.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Some((i, n)) = first_diff(&got, &want) {
        let o = shape.smem(i); // the swizzle is its own inverse
        let e = o / elem;
        return Err(format!(
            "{n} of {} shared-memory bytes differ; first at byte {i} (box element {:?}, byte {}): GPU {:#04x}, CPU {:#04x}",
            want.len(),
            shape.box_coords(e),
            o % elem,
            got[i],
            want[i]
        ));
    }
    Ok(())
}

fn tile_store<T: TensorElem, const R: usize>(
    gpu: &Gpu,
    g: &mut StdRng,
    kern: &ptxkit::runtime::TypedKernel<StoreP<T, R>>,
    shape: &Shape<R>,
    at: [i32; R],
) -> Result<(), String>
where
    T::Host: Bytes,
{
    let elem = shape.elem;
    // The box's values, and the swizzled image of them that the kernel puts in shared memory.
    let mut boxed = vec![0u8; shape.box_bytes()];
    g.fill(&mut boxed[..]);
    let mut img = vec![0u8; shape.box_bytes()];
    for (o, b) in boxed.iter().enumerate() {
        img[shape.smem(o)] = *b;
    }
    let mut want = vec![POISON; shape.len * elem];
    for e in 0..shape.box_elems() {
        if let Some(idx) = shape.stored_element(at, e) {
            want[idx * elem..(idx + 1) * elem].copy_from_slice(&boxed[e * elem..(e + 1) * elem]);
        }
    }
    let dimg = gpu.upload(&to_words(&img)).map_err(|e| e.to_string())?;
    let mut dst = poisoned::<T::Host>(gpu, shape.len).map_err(|e| e.to_string())?;
    let mut status = poisoned::<u32>(gpu, 2).map_err(|e| e.to_string())?;
    {
        let mut map = HostTensorMap::<T, R>::tiled_mut(&mut dst, &shape.map()).map_err(|e| e.to_string())?;
        let (c0, c1, c2) = coords3(at);
        let cfg = Launch::new(1, THREADS).shared(shape.box_bytes() as u32);
        kern.launch(&cfg, (&mut map, &dimg, &mut status, c0, c1, c2, (shape.box_bytes() / 4) as u32)).map_err(|e| e.to_string())?;
    }
    status_ok(gpu, &status, "store")?;
    let got: Vec<u8> = gpu.download(&dst).map_err(|e| e.to_string())?.iter().flat_map(|v| v.to_le()).collect();
    if let Some((i, n)) = first_diff(&got, &want) {
        let idx = i / elem;
        let inside = (0..shape.box_elems()).any(|e| shape.stored_element(at, e) == Some(idx));
        return Err(format!(
            "{n} of {} output bytes differ; first at element {idx} ({} the stored box), byte {}: GPU {:#04x}, CPU {:#04x}",
            want.len(),
            if inside { "inside" } else { "outside" },
            i % elem,
            got[i],
            want[i]
        ));
    }
    Ok(())
}

fn tma_tile_loads_and_stores_every_swizzle_and_width(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("TMA needs sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("tma_tile_loads_and_stores_every_swizzle_and_width");
    let mut failures = vec![];
    let mut runs = 0;
    for swizzle in Swizzle::ALL {
        runs += tile_cases::<U8, 2>(&gpu, &mut g, swizzle, &mut failures);
        runs += tile_cases::<U16, 2>(&gpu, &mut g, swizzle, &mut failures);
        runs += tile_cases::<U32, 2>(&gpu, &mut g, swizzle, &mut failures);
        runs += tile_cases::<U64, 2>(&gpu, &mut g, swizzle, &mut failures);
        runs += tile_cases::<U8, 3>(&gpu, &mut g, swizzle, &mut failures);
        runs += tile_cases::<U16, 3>(&gpu, &mut g, swizzle, &mut failures);
        runs += tile_cases::<U32, 3>(&gpu, &mut g, swizzle, &mut failures);
        runs += tile_cases::<U64, 3>(&gpu, &mut g, swizzle, &mut failures);
    }
    println!("{runs} TMA tile loads and stores, {} wrong", failures.len());
    assert!(failures.is_empty(), "{} of {runs} TMA tile runs wrong:\n{}", failures.len(), failures.join("\n"));
}

type BulkP = (GlobalPtr<U8>, GlobalPtr<U8>, GlobalPtr<U32>, Reg<U32>, Reg<U32>, Reg<U32>);

fn bulk_copy_global_shared_global(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("bulk copies need sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("bulk_copy_global_shared_global");
    let (m, kr) = bulk_copy_module(target(&gpu));
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let sizes = [16u32, 48, 1008, 4096, 40976];
    let offsets = [(0u32, 0u32), (16, 32), (272, 4112)];
    let span = 40976 + 8192;
    let mut failures = vec![];
    let mut runs = 0;
    for &size in &sizes {
        for &(soff, doff) in &offsets {
            runs += 1;
            let mut src = vec![0u8; span];
            g.fill(&mut src[..]);
            let dsrc = gpu.upload(&src).unwrap();
            let mut dst = poisoned::<u8>(&gpu, span).unwrap();
            let mut status = poisoned::<u32>(&gpu, 2).unwrap();
            kern.launch(&Launch::new(1, THREADS).shared(size), (&dsrc, &mut dst, &mut status, soff, doff, size)).unwrap();
            let what = format!("{size} bytes from offset {soff} to offset {doff}");
            if let Err(e) = status_ok(&gpu, &status, &what) {
                failures.push(e);
                continue;
            }
            let mut want = vec![POISON; span];
            want[doff as usize..(doff + size) as usize].copy_from_slice(&src[soff as usize..(soff + size) as usize]);
            let got = gpu.download(&dst).unwrap();
            if let Some((i, n)) = first_diff(&got, &want) {
                failures.push(format!("{what}: {n} bytes differ, first at {i}: GPU {:#04x}, CPU {:#04x}", got[i], want[i]));
            }
        }
    }
    println!("{runs} bulk copies, {} failures", failures.len());
    assert!(failures.is_empty(), "{} of {runs} bulk copies wrong:\n{}", failures.len(), failures.join("\n"));
}

/// `size` bytes from `src + soff` into shared memory (mbarrier), then to `dst + doff` (bulk
/// group).
fn bulk_copy_module(target: Target) -> (Module, KernelRef<BulkP>) {
    let mut m = Module::new(target);
    // `size` bytes from src + soff into shared memory (mbarrier), then to dst + doff (bulk group).
    let kr = m
        .kernel("bulk_copy", |k, (src, dst, status, soff, doff, size): BulkP| {
            let (smem, first, done) = bulk_load::<U8>(k, size, |k, smem, bar| {
                ptx!(k, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", smem, src.at(soff), size, bar);
            });
            k.if_(done, |k| {
                k.if_(first, |k| {
                    ptx!(k, "cp.async.bulk.global.shared::cta.bulk_group", dst.at(doff), smem, size);
                    ptx!(k, "cp.async.bulk.commit_group");
                    ptx!(k, "cp.async.bulk.wait_group", 0);
                });
            });
            report(k, done, first, status);
        })
        .unwrap();
    (m, kr)
}

type ReduceP<T> = (GlobalPtr<T>, GlobalPtr<T>, GlobalPtr<U32>, Reg<U32>);
/// Elements of the destination before and after the reduced range, left alone.
const PAD: usize = 16;

/// Random values for a reduction: any bits for integers; for floats, values of magnitude
/// in [0.5, 2) whose sums are exact in f32, so the CPU's rounding is the GPU's.
trait Value: Elem + Copy + Exact {
    fn random(g: &mut StdRng) -> Self;
}
macro_rules! int_values { ($($t:ty)*) => {$(impl Value for $t { fn random(g: &mut StdRng) -> Self { g.gen() } })*}; }
int_values!(u32 i32 u64);
fn magnitude(g: &mut StdRng) -> f32 {
    let m: f32 = g.gen_range(0.5..2.0);
    if g.gen() {
        m
    } else {
        -m
    }
}
impl Value for f32 {
    fn random(g: &mut StdRng) -> Self {
        // Multiples of 2^-20 in [1, 2): sums and differences are never subnormal (the
        // reduction flushes f32 subnormals).
        let m = 1.0 + (g.gen_range(0..1u32 << 20) as f32) / (1u32 << 20) as f32;
        if g.gen() {
            m
        } else {
            -m
        }
    }
}
impl Value for f64 {
    fn random(g: &mut StdRng) -> Self {
        magnitude(g) as f64 + g.gen_range(0.0..1e-9)
    }
}
impl Value for half::f16 {
    fn random(g: &mut StdRng) -> Self {
        half::f16::from_f32(magnitude(g))
    }
}
impl Value for half::bf16 {
    fn random(g: &mut StdRng) -> Self {
        half::bf16::from_f32(magnitude(g))
    }
}

/// Where a case goes: to ptxas only (no GPU needed), or to the GPU.
enum Mode<'a> {
    Assemble(&'a std::path::Path),
    Run(&'a Gpu, &'a mut StdRng),
}

/// Assembles a module with ptxas, no warning allowed.
fn assemble_clean(px: &std::path::Path, m: &Module) -> Result<(), String> {
    let text = m.to_ptx().map_err(|e| e.to_string())?;
    ptxkit::ptxas::check_clean(px, &text, m.target(), ptxkit::ptxas::Mode::Assemble).map_err(|e| format!("{e}\n{text}"))
}

/// One reduction: `emit(k, dst, smem, bytes)` is the `cp.reduce.async.bulk` form, `cpu` the
/// element-wise operation it applies to (destination, source).
fn reduce_case<T>(
    mode: &mut Mode,
    name: &str,
    emit: impl Fn(&mut Kernel, GlobalPtr<T>, SharedPtr<T>, Reg<U32>),
    cpu: impl Fn(T::Host, T::Host) -> T::Host,
) -> Result<(), String>
where
    T: DataType + ptxkit::ops::access::Load<(), ptxkit::ops::m::Global>,
    T::Host: Value,
    for<'x> (&'x CudaSlice<T::Host>, &'x mut CudaSlice<T::Host>, &'x mut CudaSlice<u32>, u32): LaunchArgs<ReduceP<T>>,
{
    let esize = std::mem::size_of::<T::Host>();
    let n = (4096 + 48) / esize;
    let bytes = (n * esize) as u32;
    let mut m = Module::new(match mode {
        Mode::Assemble(_) => Target::SM_90,
        Mode::Run(gpu, _) => target(gpu),
    });
    let kr = m
        .kernel("bulk_reduce", |k, (src, dst, status, size): ReduceP<T>| {
            let (smem, first, done) = bulk_load::<T>(k, size, |k, smem, bar| {
                ptx!(k, "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes", smem, src, size, bar);
            });
            k.if_(done, |k| {
                k.if_(first, |k| {
                    emit(k, dst.offset(PAD as i64), smem, size);
                    ptx!(k, "cp.async.bulk.commit_group");
                    ptx!(k, "cp.async.bulk.wait_group", 0);
                });
            });
            report(k, done, first, status);
        })
        .map_err(|e| e.to_string())?;
    let (gpu, g) = match mode {
        Mode::Assemble(px) => return assemble_clean(px, &m).map_err(|e| format!("{name}: {e}")),
        Mode::Run(gpu, g) => (&**gpu, &mut **g),
    };
    let module = load(gpu, &m);
    let kern = module.kernel(&kr).map_err(|e| e.to_string())?;
    let src: Vec<T::Host> = (0..n).map(|_| Value::random(g)).collect();
    let before: Vec<T::Host> = (0..n + 2 * PAD).map(|_| Value::random(g)).collect();
    let dsrc = gpu.upload(&src).map_err(|e| e.to_string())?;
    let mut dst = gpu.upload(&before).map_err(|e| e.to_string())?;
    let mut status = poisoned::<u32>(gpu, 2).map_err(|e| e.to_string())?;
    kern.launch(&Launch::new(1, THREADS).shared(bytes), (&dsrc, &mut dst, &mut status, bytes)).map_err(|e| e.to_string())?;
    status_ok(gpu, &status, name)?;
    let got = gpu.download(&dst).map_err(|e| e.to_string())?;
    let want: Vec<T::Host> =
        (0..n + 2 * PAD).map(|i| if (PAD..PAD + n).contains(&i) { cpu(before[i], src[i - PAD]) } else { before[i] }).collect();
    let bad: Vec<usize> = (0..want.len()).filter(|&i| !got[i].same(&want[i])).collect();
    if let Some(&i) = bad.first() {
        let s = if (PAD..PAD + n).contains(&i) { format!("{:?}", src[i - PAD]) } else { "(outside the range)".into() };
        return Err(format!(
            "{name}: {} of {} elements differ; first at {i}: destination {:?}, source {s}: GPU {:?}, CPU {:?}",
            bad.len(),
            want.len(),
            before[i],
            got[i],
            want[i]
        ));
    }
    Ok(())
}

fn bulk_reductions_into_global_memory(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("bulk reductions need sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("bulk_reductions_into_global_memory");
    let results = reductions(&mut Mode::Run(&gpu, &mut g));
    let failures: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    println!("10 bulk reductions, {} failures", failures.len());
    assert!(failures.is_empty(), "{} of 10 bulk reductions wrong:\n{}", failures.len(), failures.join("\n"));
}

/// Every reduction of the test: add of each type (f16 and bf16 as `.add.noftz`), min, max,
/// and an add with an L2 cache policy.
fn reductions(mode: &mut Mode) -> Vec<Result<(), String>> {
    let mut results = vec![];
    let f16 = |a: half::f16, b: half::f16| half::f16::from_f32(a.to_f32() + b.to_f32());
    let bf16 = |a: half::bf16, b: half::bf16| half::bf16::from_f32(a.to_f32() + b.to_f32());
    results.push(reduce_case::<U32>(
        mode,
        "add.u32",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32", d, s, n),
        u32::wrapping_add,
    ));
    results.push(reduce_case::<S32>(
        mode,
        "add.s32",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.s32", d, s, n),
        i32::wrapping_add,
    ));
    results.push(reduce_case::<U64>(
        mode,
        "add.u64",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64", d, s, n),
        u64::wrapping_add,
    ));
    results.push(reduce_case::<F32>(
        mode,
        "add.f32",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32", d, s, n),
        |a, b| a + b,
    ));
    results.push(reduce_case::<F64>(
        mode,
        "add.f64",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64", d, s, n),
        |a, b| a + b,
    ));
    results.push(reduce_case::<F16>(
        mode,
        "add.noftz.f16",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16", d, s, n),
        f16,
    ));
    results.push(reduce_case::<Bf16>(
        mode,
        "add.noftz.bf16",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16", d, s, n),
        bf16,
    ));
    results.push(reduce_case::<S32>(
        mode,
        "min.s32",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32", d, s, n),
        i32::min,
    ));
    results.push(reduce_case::<U32>(
        mode,
        "max.u32",
        |k, d, s, n| ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u32", d, s, n),
        u32::max,
    ));
    results.push(reduce_case::<U64>(
        mode,
        "L2::cache_hint.add.u64",
        |k, d, s, n| {
            // CUTLASS's encoded evict-first policy (`CacheHintSm90::EVICT_FIRST`).
            let policy = ptx!(k, "mov.b64", 0x12F0_0000_0000_0000u64);
            ptx!(k, "cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.u64", d, s, n, policy)
        },
        u64::wrapping_add,
    ));
    results
}

type CastP = (TensorMap<U32, 2>, GlobalPtr<U32>, GlobalPtr<U32>, Reg<S32>, Reg<S32>);

/// Each CTA of a 2-CTA cluster loads half of a `w` x `h` tile (rows `h/2 * rank` on) to both
/// CTAs' shared memory at the same offset, signalling both CTAs' barriers.
fn multicast_module(w: u32, h: u32) -> (Module, KernelRef<CastP>) {
    let half = w * (h / 2) * 4;
    let mut m = Module::new(Target::SM_90A);
    let kr = m
        .kernel("tma_multicast", |k, (map, out, status, c0, c1): CastP| {
            let tid = ptx!(k, "mov.u32", sreg::TID_X);
            let rank = ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK);
            let first = ptx!(k, "setp.eq.u32", tid, 0u32);
            let smem = k.dynamic_shared_aligned::<U32>(1024);
            let bar = k.shared_array::<B64>("bar", 1, 8);
            // This CTA's two status words.
            let words = ptx!(k, "mul.lo.u32", rank, 2u32);
            let base = status.addr(k);
            let mine = GlobalPtr::<U32>::from_reg(ptx!(k, "mad.wide.u32", words, 4u32, base));
            check_alignment(k, smem, first, mine);
            k.if_(first, |k| ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32));
            // Both CTAs' barriers exist before either CTA signals the other's.
            ptx!(k, "barrier.cluster.arrive.release");
            ptx!(k, "barrier.cluster.wait.acquire");
            k.if_(first, |k| {
                let _ = ptx!(k, "mbarrier.arrive.expect_tx.shared::cta.b64", bar, 2 * half);
                let row = ptx!(k, "mul.lo.u32", rank, h / 2);
                let y = ptx!(k, "add.s32", c1, row.bitcast::<S32>());
                let base = smem.addr(k);
                let dst = ptx!(k, "mad.lo.u32", rank, half, base);
                let mask = ptx!(k, "mov.u16", 0b11u16);
                ptx!(
                    k,
                    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
                    SharedPtr::<U32>::from_reg32(dst),
                    map.at([c0, y]),
                    bar,
                    mask
                );
            });
            let done = wait_bounded(k, bar, 0, true);
            k.if_(done, |k| {
                let at = ptx!(k, "mul.lo.u32", rank, 2 * half / 4);
                k.for_range(tid, 2 * half / 4, THREADS, |k, wd| {
                    let v = k.ld(smem.at(wd));
                    let o = ptx!(k, "add.u32", at, wd);
                    k.st(out.at(o), v);
                });
            });
            report(k, done, first, mine);
            // Neither CTA leaves while the other may still write to it.
            ptx!(k, "barrier.cluster.arrive.release");
            ptx!(k, "barrier.cluster.wait.acquire");
        })
        .unwrap();
    (m, kr)
}

fn tma_multicast_to_a_two_cta_cluster(gpu: Gpu) {
    if gpu.compute_capability().0 < 9 {
        skip(format!("clusters need sm_90, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("tma_multicast_to_a_two_cta_cluster");
    // A 32 x 16 tile of u32 with the 128-byte swizzle; CTA r loads rows 8r..8r+8 (a box of
    // 32 x 8) to both CTAs, so each CTA's barrier counts the whole tile, 2048 bytes.
    let (w, h) = (32u32, 16u32);
    let half = w * (h / 2) * 4;
    let (m, kr) = multicast_module(w, h);
    let module = load(&gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let dims = [72u64, 40u64];
    let data: Vec<u32> = (0..dims[0] * dims[1]).map(|_| g.gen()).collect();
    let src = gpu.upload(&data).unwrap();
    let map = HostTensorMap::<U32, 2>::tiled(&src, &TiledMap::new(dims, [w, h / 2]).swizzle(Swizzle::B128)).unwrap();
    assert_eq!(map.box_bytes(), half as u64);
    let mut failures = vec![];
    for (case, (c0, c1)) in
        [("inside", (4 * g.gen_range(0..=10i32), g.gen_range(0..=24i32))), ("over the right and bottom edges", (60, 30))]
    {
        let mut out = poisoned::<u32>(&gpu, (2 * 2 * half / 4) as usize).unwrap();
        let mut status = poisoned::<u32>(&gpu, 4).unwrap();
        kern.launch(&Launch::new(2, THREADS).cluster(2).shared(2 * half), (&map, &mut out, &mut status, c0, c1)).unwrap();
        let st = gpu.download(&status).unwrap();
        if st[1] != u32::MAX || st[3] != u32::MAX || st[0] != DONE || st[2] != DONE {
            let why = if (st[1] | st[3]) & 0xF000_0000 == MISALIGNED {
                "dynamic shared memory not 1024-byte aligned"
            } else {
                "a wait timed out or a CTA did not finish"
            };
            failures.push(format!("{case}: status {st:x?}: {why}"));
            continue;
        }
        // The whole tile's image, as one 32 x 16 box with the 128-byte swizzle.
        let mut want = vec![0u8; (2 * half) as usize];
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let (gx, gy) = (c0 as i64 + x, c1 as i64 + y);
                let v = if gx < dims[0] as i64 && gy < dims[1] as i64 { data[(gy * dims[0] as i64 + gx) as usize] } else { 0 };
                let o = ((y * w as i64 + x) * 4) as u32;
                let at = Swizzle::B128.apply(o) as usize;
                want[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        let got = gpu.download(&out).unwrap();
        for r in 0..2usize {
            let mine: Vec<u8> =
                got[r * (2 * half / 4) as usize..(r + 1) * (2 * half / 4) as usize].iter().flat_map(|v| v.to_le_bytes()).collect();
            if let Some((i, n)) = first_diff(&mine, &want) {
                failures.push(format!(
                    "{case}, tile at ({c0}, {c1}), CTA {r}: {n} bytes differ, first at {i}: GPU {:#04x}, CPU {:#04x}",
                    mine[i], want[i]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "multicast wrong:\n{}", failures.join("\n"));
}

/// Without a GPU: every kernel of these tests assembles with ptxas, no warning.
fn tma_test_kernels_assemble() {
    let px = ptxas("tma_test_kernels_assemble");
    let mut failures = vec![];
    let mut check = |what: &str, m: &Module| {
        if let Err(e) = assemble_clean(&px, m) {
            failures.push(format!("{what}: {e}"));
        }
    };
    check("tile u8 rank 2", &tile_module::<U8, 2>(Target::SM_90).0);
    check("tile u16 rank 2", &tile_module::<U16, 2>(Target::SM_90).0);
    check("tile u32 rank 2", &tile_module::<U32, 2>(Target::SM_90).0);
    check("tile u64 rank 2", &tile_module::<U64, 2>(Target::SM_90).0);
    check("tile u8 rank 3", &tile_module::<U8, 3>(Target::SM_90).0);
    check("tile u64 rank 3", &tile_module::<U64, 3>(Target::SM_90).0);
    check("bulk copy", &bulk_copy_module(Target::SM_90).0);
    check("multicast", &multicast_module(32, 16).0);
    failures.extend(reductions(&mut Mode::Assemble(&px)).into_iter().filter_map(Result::err));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The checks run before the driver, on real buffers: each refusal names its field.
fn tensor_map_validation_through_the_runtime(gpu: Gpu) {
    let buf = gpu.zeros::<f32>(64 * 64).unwrap();
    let field = |r: Result<HostTensorMap<'_, F32, 2>, RuntimeError>| match r {
        Err(RuntimeError::TensorMap(e)) => e.field,
        other => panic!("expected a tensor map error, got {other:?}"),
    };
    // 64 f32 are 256 bytes, wider than the 128-byte swizzle.
    assert_eq!(field(HostTensorMap::tiled(&buf, &TiledMap::new([64, 64], [64, 8]).swizzle(Swizzle::B128))), Field::BoxDims);
    // A view 4 bytes into the buffer is not 16-byte aligned.
    let view = buf.slice(1..);
    assert_eq!(field(HostTensorMap::tiled(&view, &TiledMap::new([63, 63], [16, 8]))), Field::GlobalAddress);
    // The tensor must lie inside the buffer.
    assert_eq!(field(HostTensorMap::tiled(&buf, &TiledMap::new([64, 65], [16, 8]))), Field::Extent);
    assert_eq!(field(HostTensorMap::tiled(&buf, &TiledMap::new([64, 64], [16, 8]).strides([1, 66]))), Field::Strides);
    // And a valid map encodes, with its box's byte count.
    let ok = HostTensorMap::<F32, 2>::tiled(&buf, &TiledMap::new([64, 64], [32, 8]).swizzle(Swizzle::B128)).unwrap();
    assert_eq!(ok.box_bytes(), 32 * 8 * 4);
    assert!(ok.raw().opaque.iter().any(|w| *w != 0));
}

pub const TESTS: &[Test] = &[
    gpu!(tma_tile_loads_and_stores_every_swizzle_and_width),
    gpu!(bulk_copy_global_shared_global),
    gpu!(bulk_reductions_into_global_memory),
    gpu!(tma_multicast_to_a_two_cta_cluster),
    host!(tma_test_kernels_assemble),
    gpu!(tensor_map_validation_through_the_runtime),
];
