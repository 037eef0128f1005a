//! The Hopper GEMM ([`crate::kernels::gemm`]) on device buffers: built and loaded once,
//! then run on any [`GemmShape`] whose B is stored as it was built for ([`GemmRunner`]); a
//! shape or buffer it cannot handle is an `Err`. Inputs are bf16 (`Gemm<O>`) or FP8 e4m3
//! (`Gemm<O, E4m3>`, buffers of `u8` codes, with per-tensor scales through
//! [`run_scaled`](GemmRunner::run_scaled)'s α).
//!
//! Row strides: A and B are read through TMA tensor maps whose row pitch is `lda` and
//! `ldb`, where those (and the matrices' starts) are 16-byte multiples; otherwise through
//! aligned copies ([`gemm_pad`](super::gemm_pad)). C's rows are `ldc` apart: for bf16 C
//! with `ldc` a multiple of 8 (and C on 16 bytes) the staged kernel stores it (through
//! shared memory and TMA, its tensor map's pitch `ldc`) where its staging fits beside the
//! stages; otherwise the direct kernel stores it from registers, rows `ldc` apart (its
//! `ldc` parameter). f32 C always stores directly. A batch is a launch per product, in
//! stream order.
//!
//! A `Gemm` runs every shape with its configuration's tile; [`AutoGemm`](super::AutoGemm)
//! picks a smaller one for products whose tiles would leave SMs idle.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::{hopper, GemmShape};
//! use ptxkit::runtime::{Gemm, GemmRunner, Gpu};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = Gemm::<ptxkit::types::Bf16>::new(&gpu, hopper::Config::default())?;
//! let (m, n, k) = (1000, 3000, 512);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?; // M x K, row-major
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?; // N x K, row-major
//! let mut c = gpu.zeros::<bf16>(m * n)?; // M x N, row-major
//! gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m as u32, n as u32, k as u32))?;
//! assert_eq!(gpu.download(&c)?[0], bf16::from_f32(512.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::gemm_pad::{aligned_copy, copy_rows, tma_addressable};
use super::gemm_runner::address;
use super::{
    CudaSlice, CudaView, CudaViewMut, Elem, GemmRunner, Gpu, HostArg, HostTensorMap, Launch, LoadedModule, RuntimeError, TimelineBuffer,
    TypedKernel,
};
use crate::builder::Module;
use crate::core::target::Target;
use crate::core::Probes;
use crate::descriptors::{L2Promotion, Swizzle, TiledMap};
use crate::kernels::gemm::{gemm, gemm_staged, hopper, timeline_symbol, GemmIn, GemmOut, GemmShape, Layout, MAX_DYNAMIC_SHARED, NN_BOX};
use crate::regs::GlobalPtr;
use crate::trace::Trace;
use crate::types::{Bf16, DataType, F32};
use half::bf16;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// One kernel of the GEMM with its launch shape.
struct Loaded<P> {
    kernel: TypedKernel<P>,
    shared: u32,
    /// Clusters (CTAs when the cluster size is 1) resident at once: the persistent grid.
    clusters: u32,
    /// What the kernel's timeline stamps are named by.
    probes: Arc<Probes>,
}

impl<P> Loaded<P> {
    fn new(module: &LoadedModule, kref: &crate::builder::KernelRef<P>, cfg: &hopper::Config, shared: u32) -> Result<Self, RuntimeError> {
        let mut l = Loaded { kernel: module.kernel(kref)?, shared, clusters: 0, probes: kref.probes().clone() };
        l.clusters = l.kernel.max_active_clusters(&l.launch(cfg, cfg.cluster))?;
        if l.clusters == 0 {
            return Err(RuntimeError::Invalid(format!("no cluster of the GEMM ({cfg:?}) fits on this GPU")));
        }
        Ok(l)
    }
    fn launch(&self, cfg: &hopper::Config, grid: u32) -> Launch {
        let launch = Launch::new(grid, cfg.threads()).shared(self.shared);
        if cfg.cluster > 1 {
            launch.cluster(cfg.cluster)
        } else {
            launch
        }
    }
    /// The persistent launch for an `m × n` product on `gpu`'s stream: one cluster per unit
    /// of work up to the clusters resident at once; with stream-K always those, as a last
    /// partial wave is spread over all of them.
    fn persistent(&self, gpu: &Gpu, cfg: &hopper::Config, m: u32, n: u32) -> Launch {
        let clusters = if cfg.stream_k { self.clusters as u64 } else { cfg.units(m, n).min(self.clusters as u64) };
        let grid = clusters as u32 * cfg.cluster;
        self.launch(cfg, grid).on(gpu.stream())
    }
}

/// The GEMM kernels loaded on one GPU, for C in `O` (`Bf16` or `F32`) and A, B in `I`
/// (`Bf16` or [`E4m3`](crate::kernels::gemm::E4m3)).
pub struct Gemm<O: GemmOut, I: GemmIn = Bf16> {
    cfg: hopper::Config,
    module: LoadedModule,
    direct: Loaded<hopper::Params<O, I>>,
    staged: Option<Loaded<hopper::StagedParams<I>>>,
    /// The larger persistent grid of the two kernels, which the workspace is sized for.
    grid: u32,
    /// The stream-K flags and partial sums, for the largest grid of the two kernels (one
    /// element each without `stream_k`). Launches lock it, and the kernels run in stream
    /// order on the GPU's stream, so no two use it at once.
    workspace: Mutex<(CudaSlice<u32>, CudaSlice<f32>)>,
    /// With [`hopper::Config::timeline`]: the buffer both kernels stamp into (their `.const`
    /// variables hold its address), and the names of the kernel that ran last.
    timeline: Option<Mutex<(TimelineBuffer, Option<Arc<Probes>>)>>,
    _o: PhantomData<(O, I)>,
}

/// The host elements of inputs in `I` (`u8` codes for FP8).
type Host<I> = <<I as GemmIn>::Elem as DataType>::Host;

impl<O: GemmOut, I: GemmIn> std::fmt::Debug for Gemm<O, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gemm")
            .field("in", &I::NAME)
            .field("cfg", &self.cfg)
            .field("jit_time", &self.module.jit_time())
            .finish_non_exhaustive()
    }
}

impl<O: GemmOut, I: GemmIn> Gemm<O, I> {
    /// Builds the kernels for `cfg` and loads them. `Err` when the configuration is invalid
    /// or the GPU is not sm_90 (wgmma and `setmaxnreg` are sm_90a).
    pub fn new(gpu: &Gpu, cfg: hopper::Config) -> Result<Self, RuntimeError> {
        if gpu.compute_capability() != (9, 0) {
            return Err(RuntimeError::Invalid(format!(
                "the wgmma GEMM needs an sm_90 GPU (H100/H200); this one is sm_{}{}",
                gpu.compute_capability().0,
                gpu.compute_capability().1
            )));
        }
        let build = |e: crate::Error| RuntimeError::Invalid(e.to_string());
        let mut m = Module::new(Target::SM_90A);
        let direct = gemm::<O, I>(&mut m, "gemm", &cfg).map_err(build)?;
        let staged = if O::BF16 && cfg.staged_shared_bytes() <= MAX_DYNAMIC_SHARED {
            Some(gemm_staged::<I>(&mut m, "gemm_staged", &cfg).map_err(build)?)
        } else {
            None
        };
        let module = gpu.load(&m.to_ptx().map_err(build)?)?;
        let direct = Loaded::new(&module, &direct, &cfg, cfg.shared_bytes())?;
        let staged = staged.map(|s| Loaded::new(&module, &s, &cfg, cfg.staged_shared_bytes())).transpose()?;
        let grid = direct.clusters.max(staged.as_ref().map_or(0, |s| s.clusters));
        let flags = if cfg.stream_k { (grid * cfg.consumers) as usize } else { 1 };
        let sums = (cfg.workspace_bytes(grid) / 4).max(1) as usize;
        let workspace = Mutex::new((gpu.zeros::<u32>(flags)?, gpu.zeros::<f32>(sums)?));
        let timeline = match cfg.timeline {
            Some(slots) => {
                let tb = TimelineBuffer::new(gpu, slots, grid * cfg.cluster, cfg.threads() / 32)?;
                let at = tb.device_address(gpu);
                module.write_global(&timeline_symbol("gemm"), &[at])?;
                if staged.is_some() {
                    module.write_global(&timeline_symbol("gemm_staged"), &[at])?;
                }
                Some(Mutex::new((tb, None)))
            }
            None => None,
        };
        Ok(Gemm { cfg, module, direct, staged, grid, workspace, timeline, _o: PhantomData })
    }

    /// The configuration the kernels were built for.
    pub fn config(&self) -> &hopper::Config {
        &self.cfg
    }
    /// The loaded module (its JIT time and log).
    pub fn module(&self) -> &LoadedModule {
        &self.module
    }
    /// Clusters (CTAs when `cluster` is 1) of the main kernel resident at once: the size of
    /// the persistent grid.
    pub fn resident_clusters(&self) -> u32 {
        self.staged.as_ref().map_or(self.direct.clusters, |s| s.clusters)
    }
    /// With [`hopper::Config::timeline`], the stamps of the last run, decoded (waiting for it):
    /// a span per phase per warp ([`hopper::Config::timeline`] names them). `Err` without a
    /// timeline or before a run.
    pub fn timeline(&self, gpu: &Gpu) -> Result<Trace, RuntimeError> {
        let Some(tl) = &self.timeline else {
            return Err(RuntimeError::Invalid("this GEMM was built without a timeline (hopper::Config::timeline)".into()));
        };
        let tl = tl.lock().map_err(|_| RuntimeError::Invalid("a launch of this GEMM panicked while holding its timeline".into()))?;
        match &tl.1 {
            Some(probes) => tl.0.read(gpu, probes.events()),
            None => Err(RuntimeError::Invalid("no run of this GEMM has stamped its timeline yet".into())),
        }
    }

    /// With a timeline, clears it for the launch of the kernel named by `probes`.
    fn clear_timeline(&self, gpu: &Gpu, probes: &Arc<Probes>) -> Result<(), RuntimeError> {
        let Some(tl) = &self.timeline else { return Ok(()) };
        let mut tl = tl.lock().map_err(|_| RuntimeError::Invalid("a launch of this GEMM panicked while holding its timeline".into()))?;
        tl.0.reset(gpu)?;
        tl.1 = Some(probes.clone());
        Ok(())
    }

    /// Runs `launch` with the stream-K workspace (flags, partial sums), held for the launch.
    fn with_workspace(
        &self,
        launch: impl FnOnce(&mut CudaSlice<u32>, &mut CudaSlice<f32>) -> Result<(), RuntimeError>,
    ) -> Result<(), RuntimeError> {
        let mut ws = self
            .workspace
            .lock()
            .map_err(|_| RuntimeError::Invalid("a launch of this GEMM panicked while holding its workspace".into()))?;
        let (flags, sums) = &mut *ws;
        launch(flags, sums)
    }

    /// Whether a product of `shape` whose C starts on 16 bytes runs the staged kernel: bf16
    /// C whose staging fits beside the stages, rows of C 16-byte multiples apart (ldc a
    /// multiple of 8), as its TMA stores need, and N a multiple of 8. A TMA store clips a box
    /// at the tensor's edge in whole 16-byte units, not elements (measured on an H200: with
    /// N = 130 and ldc = 136 it wrote columns 130 to 135), so a row of C whose last 16 bytes
    /// are partly past N would have its padding overwritten.
    pub fn stages_c(&self, shape: &GemmShape) -> bool {
        self.staged.is_some() && shape.n.is_multiple_of(8) && tma_addressable(0, shape.ldc, 2)
    }

    /// What a product of `s` asks of this GEMM beyond [`GemmShape::check`]: B stored as it
    /// was built for, K within stream-K's count of k-tiles, and a finite α.
    fn check_product(&self, s: &GemmShape, alpha: f32) -> Result<(), RuntimeError> {
        if s.layout != self.cfg.layout {
            return Err(RuntimeError::Invalid(format!(
                "this GEMM was built for B stored {:?} (hopper::Config::layout); {s} needs one built with layout: Layout::{:?}",
                self.cfg.layout, s.layout
            )));
        }
        // Stream-K numbers the k-tiles of the grid's last wave in 32 bits.
        let (grid, k) = (self.grid, s.k);
        if self.cfg.stream_k && grid as u64 * k.div_ceil(I::BK) as u64 > u32::MAX as u64 {
            return Err(RuntimeError::Invalid(format!(
                "K = {k} is too long for stream-K over {grid} CTAs: {grid} · ⌈K / {}⌉ k-tiles exceed 2^32 - 1; build without stream_k",
                I::BK
            )));
        }
        if !alpha.is_finite() {
            return Err(RuntimeError::Invalid(format!("the scale {alpha} is not finite")));
        }
        Ok(())
    }

    /// The tensor maps of one product's A and B, over `a` and `b` where TMA can address
    /// them and over aligned copies where it cannot ([`gemm_pad`](super::gemm_pad)), handed
    /// to `launch`.
    fn with_inputs(
        &self,
        gpu: &Gpu,
        (a, b): (&CudaView<'_, Host<I>>, &CudaView<'_, Host<I>>),
        alpha: f32,
        s: &GemmShape,
        launch: impl FnOnce(&HostTensorMap<'_, I::Elem, 2>, &HostTensorMap<'_, I::Elem, 2>) -> Result<(), RuntimeError>,
    ) -> Result<(), RuntimeError>
    where
        Host<I>: Elem,
    {
        self.check_product(s, alpha)?;
        let [a_dims, b_dims, _] = s.matrices();
        let copy = |v: &CudaView<'_, Host<I>>, (rows, cols, ld): (u32, u32, u32)| {
            (!tma_addressable(address(gpu, v), ld, I::BYTES)).then(|| aligned_copy(gpu, v, (rows, cols, ld), I::BYTES)).transpose()
        };
        let (copy_a, copy_b) = (copy(a, a_dims)?, copy(b, b_dims)?);
        let (a, lda) = copy_a.as_ref().map_or((a.slice(..), s.lda), |(buf, pitch)| (buf.as_view(), *pitch));
        let (b, ldb) = copy_b.as_ref().map_or((b.slice(..), s.ldb), |(buf, pitch)| (buf.as_view(), *pitch));
        let cfg = &self.cfg;
        // With a cluster, each CTA loads its share of the B tile. NN's B (K×N) is loaded in
        // boxes of 64 columns by the stage's K.
        let b_map = match cfg.layout {
            Layout::TN => k_major_map(s.k, s.n, ldb, I::BK, cfg.bn / cfg.cluster),
            Layout::NN => TiledMap::new([s.n as u64, s.k as u64], [NN_BOX, I::BK])
                .strides([1, ldb as u64])
                .swizzle(Swizzle::B128)
                .l2_promotion(L2Promotion::B256),
        };
        let a_map = HostTensorMap::tiled(&a, &k_major_map(s.k, s.m, lda, I::BK, cfg.bm()))?;
        launch(&a_map, &HostTensorMap::tiled(&b, &b_map)?)
    }

    /// Launches the direct kernel (C stored from registers) on one product into `c`, rows
    /// `s.ldc` apart. The kernel stores pairs of elements where `ldc` is even; a C that
    /// starts between two pairs is computed into a dense buffer and copied out.
    fn direct(
        &self,
        gpu: &Gpu,
        (a_map, b_map): (&HostTensorMap<'_, I::Elem, 2>, &HostTensorMap<'_, I::Elem, 2>),
        c: &mut CudaViewMut<'_, O::Host>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError>
    where
        O::Host: Elem,
        for<'c, 'd> &'c mut CudaViewMut<'d, O::Host>: HostArg<GlobalPtr<O>>,
    {
        let (m, n) = (s.m as usize, s.n as usize);
        if !address(gpu, c).is_multiple_of(2 * std::mem::size_of::<O::Host>() as u64) {
            let mut dense = gpu.zeros::<O::Host>(m * n)?;
            self.direct(gpu, (a_map, b_map), &mut dense.as_view_mut(), alpha, &s.ldc(s.n))?;
            return copy_rows(gpu, (&dense, n), (c, s.ldc as usize), (m, n));
        }
        let launch = self.direct.persistent(gpu, &self.cfg, s.m, s.n);
        self.clear_timeline(gpu, &self.direct.probes)?;
        self.with_workspace(|flags, sums| self.direct.kernel.launch(&launch, (a_map, b_map, c, alpha, s.m, s.n, s.k, s.ldc, flags, sums)))
    }
}

/// The tensor map of a K-contiguous `rows × k` operand whose rows are `ld` elements apart,
/// loaded in boxes of `box_k` elements of K (one 128-byte swizzle row) by `box_rows` rows,
/// written to shared memory with the 128-byte swizzle: A and TN's B of the Hopper and the
/// tcgen05 GEMM.
pub(super) fn k_major_map(k: u32, rows: u32, ld: u32, box_k: u32, box_rows: u32) -> TiledMap<2> {
    TiledMap::new([k as u64, rows as u64], [box_k, box_rows]).strides([1, ld as u64]).swizzle(Swizzle::B128).l2_promotion(L2Promotion::B256)
}

/// A product into bf16 C: the staged kernel (C through shared memory and TMA stores) where
/// [`Gemm::stages_c`] and C starts on 16 bytes, the direct one otherwise.
impl<I: GemmIn> GemmRunner for Gemm<Bf16, I>
where
    Host<I>: Elem,
{
    type In = Host<I>;
    type Out = bf16;

    fn run_one(
        &self,
        gpu: &Gpu,
        a: &CudaView<'_, Host<I>>,
        b: &CudaView<'_, Host<I>>,
        c: &mut CudaViewMut<'_, bf16>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        self.with_inputs(gpu, (a, b), alpha, s, |a_map, b_map| match &self.staged {
            Some(staged) if self.stages_c(s) && address(gpu, c).is_multiple_of(16) => {
                let shape = TiledMap::new([s.n as u64, s.m as u64], [64, 64]).strides([1, s.ldc as u64]).swizzle(Swizzle::B128);
                let mut c_map = HostTensorMap::<Bf16, 2>::tiled_mut(c, &shape)?;
                let launch = staged.persistent(gpu, &self.cfg, s.m, s.n);
                self.clear_timeline(gpu, &staged.probes)?;
                self.with_workspace(|flags, sums| {
                    staged.kernel.launch(&launch, (a_map, b_map, &mut c_map, alpha, s.m, s.n, s.k, flags, sums))
                })
            }
            _ => self.direct(gpu, (a_map, b_map), c, alpha, s),
        })
    }
}

/// A product into f32 C: the direct kernel.
impl<I: GemmIn> GemmRunner for Gemm<F32, I>
where
    Host<I>: Elem,
{
    type In = Host<I>;
    type Out = f32;

    fn run_one(
        &self,
        gpu: &Gpu,
        a: &CudaView<'_, Host<I>>,
        b: &CudaView<'_, Host<I>>,
        c: &mut CudaViewMut<'_, f32>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        self.with_inputs(gpu, (a, b), alpha, s, |a_map, b_map| self.direct(gpu, (a_map, b_map), c, alpha, s))
    }
}
