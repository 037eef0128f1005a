//! The skinny GEMM ([`skinny`](crate::kernels::gemm::skinny): products of at most 64 rows
//! streamed through `mma.sync`) on device buffers. One module holds a kernel for 16, 32,
//! 48 and 64 rows; each product runs the smallest that covers its M, with K split over
//! as many CTAs as the GPU holds at once. [`AutoGemm`](super::AutoGemm) runs it for the shapes
//! where it is faster than the tiled kernel.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::GemmShape;
//! use ptxkit::runtime::{GemmRunner, Gpu, SkinnyGemm};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = SkinnyGemm::<ptxkit::types::Bf16>::new(&gpu)?;
//! let (m, n, k) = (4, 4096, 4096);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?; // M x K, row-major
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?; // N x K, row-major
//! let mut c = gpu.zeros::<bf16>(m * n)?;
//! gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m as u32, n as u32, k as u32))?;
//! assert_eq!(gpu.download(&c)?[0], bf16::from_f32(4096.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::gemm_runner::address;
use super::{CudaSlice, CudaView, CudaViewMut, Elem, GemmRunner, Gpu, HostArg, Launch, LoadedModule, RuntimeError, TypedKernel};
use crate::builder::Module;
use crate::core::target::Target;
use crate::kernels::gemm::skinny::{self, Config};
use crate::kernels::gemm::{gemm_skinny, GemmIn, GemmOut, GemmShape, Layout};
use crate::regs::GlobalPtr;
use crate::types::{Bf16, DataType, F32};
use std::marker::PhantomData;
use std::sync::Mutex;

type Host<I> = <<I as GemmIn>::Elem as DataType>::Host;

/// The largest M the skinny kernels take.
pub const SKINNY_MAX_M: u32 = 64;

/// The least K a split takes, in bytes: shorter ones cost more in partial sums than they
/// add in parallelism.
const MIN_SPLIT_BYTES: u32 = 1024;

/// The skinny GEMM's kernels loaded on one GPU, for C in `O` and A, B in `I`.
pub struct SkinnyGemm<O: GemmOut, I: GemmIn = Bf16> {
    module: LoadedModule,
    /// Each kernel, and how many of its CTAs the GPU holds at once.
    kernels: Vec<(Config, TypedKernel<skinny::Params<O, I>>, u32)>,
    /// The split-K workspace: f32 partial sums and the u32 counters (0 between launches),
    /// grown to the largest launch so far and held for each launch.
    workspace: Mutex<(CudaSlice<f32>, CudaSlice<u32>)>,
    _o: PhantomData<O>,
}

impl<O: GemmOut, I: GemmIn> std::fmt::Debug for SkinnyGemm<O, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkinnyGemm").field("in", &I::NAME).field("jit_time", &self.module.jit_time()).finish_non_exhaustive()
    }
}

/// How one product is launched: the kernel's configuration, the splits of K and the bytes
/// of K each takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkinnyPlan {
    pub cfg: Config,
    pub splits: u32,
    pub chunk_bytes: u32,
}

impl SkinnyPlan {
    /// The plan for an `m × n × k` product of `bytes`-byte inputs with `cfg`'s kernel, of
    /// which the GPU holds `resident` CTAs at once: K split so that the launch is about one
    /// full wave of CTAs (a second, partial wave would run on few SMs), each split at least
    /// 1 KB of K and a whole number of the kernel's iterations.
    pub fn new(cfg: Config, n: u32, k: u32, bytes: u32, resident: u32) -> SkinnyPlan {
        let k_bytes = k * bytes;
        let ctas_n = cfg.ctas_n(n).max(1);
        let want = (resident / ctas_n).max(1);
        let most = k_bytes.div_ceil(MIN_SPLIT_BYTES).max(1);
        let splits = want.min(most);
        let chunk_bytes = k_bytes.div_ceil(splits).div_ceil(cfg.iter_bytes()).max(1) * cfg.iter_bytes();
        SkinnyPlan { cfg, splits: k_bytes.div_ceil(chunk_bytes).max(1), chunk_bytes }
    }
    /// CTAs launched.
    pub fn grid(&self, n: u32) -> u32 {
        self.cfg.ctas_n(n) * self.splits
    }
    /// f32 partial sums and counters the launch needs for `n` columns.
    pub fn workspace(&self, n: u32) -> (usize, usize) {
        let warps = self.cfg.warps_n(n) as usize;
        if self.splits == 1 {
            return (0, 0);
        }
        (warps * self.splits as usize * self.cfg.slot_floats() as usize, warps)
    }
}

impl<O: GemmOut, I: GemmIn> SkinnyGemm<O, I> {
    /// Builds the kernels for 16 to 64 rows ([`Config::for_rows`]; PTX for sm_90a) and
    /// loads them. `Err` on a GPU other than sm_90.
    pub fn new(gpu: &Gpu) -> Result<Self, RuntimeError> {
        let cfgs: Vec<Config> = (16..=SKINNY_MAX_M).step_by(16).map(Config::for_rows).collect();
        Self::with_configs(gpu, &cfgs)
    }

    /// Builds and loads a kernel for each of `cfgs`; a product runs on the first of those
    /// with the fewest rows that hold its M. `Err` for an invalid configuration, or on a GPU
    /// other than sm_90.
    pub fn with_configs(gpu: &Gpu, cfgs: &[Config]) -> Result<Self, RuntimeError> {
        let (major, minor) = gpu.compute_capability();
        if (major, minor) != (9, 0) {
            return Err(RuntimeError::Invalid(format!("the skinny GEMM is built for sm_90a; this GPU is sm_{major}{minor}")));
        }
        let build = |e: crate::Error| RuntimeError::Invalid(e.to_string());
        let mut m = Module::new(Target::SM_90A);
        let mut refs = vec![];
        for (i, cfg) in cfgs.iter().enumerate() {
            refs.push((*cfg, gemm_skinny::<O, I>(&mut m, &format!("skinny_{i}_m{}", cfg.max_m()), cfg).map_err(build)?));
        }
        let module = gpu.load(&m.to_ptx().map_err(build)?)?;
        let mut kernels = vec![];
        for (cfg, r) in &refs {
            let kernel = module.kernel(r)?;
            let resident = kernel.max_active_clusters(&Launch::new(1, cfg.threads()))?;
            if resident == 0 {
                return Err(RuntimeError::Invalid(format!("no CTA of the skinny GEMM ({cfg:?}) fits on this GPU")));
            }
            kernels.push((*cfg, kernel, resident));
        }
        let workspace = Mutex::new((gpu.zeros::<f32>(1)?, gpu.zeros::<u32>(1)?));
        Ok(SkinnyGemm { module, kernels, workspace, _o: PhantomData })
    }

    /// The loaded module (its JIT time and log).
    pub fn module(&self) -> &LoadedModule {
        &self.module
    }

    /// How an `m × n × k` product runs on this GPU (`m` at most [`SKINNY_MAX_M`]).
    pub fn plan(&self, m: u32, n: u32, k: u32) -> SkinnyPlan {
        let fits = self.kernels.iter().filter(|(c, ..)| c.max_m() >= m);
        let (cfg, _, resident) = fits.min_by_key(|(c, ..)| c.max_m()).unwrap_or(&self.kernels[self.kernels.len() - 1]);
        SkinnyPlan::new(*cfg, n, k, I::BYTES, *resident)
    }

    /// The largest M of the kernels built.
    pub fn max_m(&self) -> u32 {
        self.kernels.iter().map(|(c, ..)| c.max_m()).max().unwrap_or(0)
    }

    /// `Ok` where this GEMM computes `s`, or what to change: TN, M at most 64, rows of A and
    /// B (K and the row strides) and the matrices' starts on 16 bytes.
    pub fn check(&self, gpu: &Gpu, (a, b): (&CudaView<'_, Host<I>>, &CudaView<'_, Host<I>>), s: &GemmShape) -> Result<(), RuntimeError> {
        let refuse = |what: String| Err(RuntimeError::Invalid(format!("the skinny GEMM {what}")));
        if s.layout != Layout::TN {
            return refuse(format!("computes TN products only (B stored N×K); {s} is not: use the Hopper Gemm"));
        }
        if s.m > self.max_m() {
            return refuse(format!("takes at most {} rows; {s} has M = {}: use the Hopper Gemm", self.max_m(), s.m));
        }
        for (name, v) in [("K", s.k), ("lda", s.lda), ("ldb", s.ldb)] {
            if !(v * I::BYTES).is_multiple_of(16) {
                return refuse(format!("reads rows of 16-byte multiples; {name} = {v} of {} is not: use the Hopper Gemm", I::NAME));
            }
        }
        for (name, addr) in [("A", address(gpu, a)), ("B", address(gpu, b))] {
            if !addr.is_multiple_of(16) {
                return refuse(format!("needs A and B to start on 16 bytes; {name} starts at {addr:#x}: use the Hopper Gemm"));
            }
        }
        Ok(())
    }
}

/// Any TN product of at most 64 rows whose rows of A and B are 16-byte multiples
/// ([`SkinnyGemm::check`]), any `ldc`, any α.
impl<O: GemmOut, I: GemmIn> GemmRunner for SkinnyGemm<O, I>
where
    Host<I>: Elem,
    O::Host: Elem,
    for<'s, 'v> &'s CudaView<'v, Host<I>>: HostArg<GlobalPtr<I::Elem>>,
    for<'s, 'v> &'s mut CudaViewMut<'v, O::Host>: HostArg<GlobalPtr<O>>,
    for<'s> &'s mut CudaSlice<f32>: HostArg<GlobalPtr<F32>>,
{
    type In = Host<I>;
    type Out = O::Host;

    fn run_one(
        &self,
        gpu: &Gpu,
        a: &CudaView<'_, Host<I>>,
        b: &CudaView<'_, Host<I>>,
        c: &mut CudaViewMut<'_, O::Host>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        self.check(gpu, (a, b), s)?;
        if !alpha.is_finite() {
            return Err(RuntimeError::Invalid(format!("the scale {alpha} is not finite")));
        }
        let plan = self.plan(s.m, s.n, s.k);
        let kernel = &self.kernels.iter().find(|(c, ..)| *c == plan.cfg).expect("a kernel per row count").1;
        let mut ws = self
            .workspace
            .lock()
            .map_err(|_| RuntimeError::Invalid("a launch of this GEMM panicked while holding its workspace".into()))?;
        let (floats, counters) = plan.workspace(s.n);
        if ws.0.len() < floats {
            ws.0 = gpu.zeros::<f32>(floats)?;
        }
        if ws.1.len() < counters {
            ws.1 = gpu.zeros::<u32>(counters)?;
        }
        let (sums, flags) = &mut *ws;
        let launch = Launch::new(plan.grid(s.n), plan.cfg.threads()).on(gpu.stream());
        let bytes = I::BYTES;
        kernel.launch(
            &launch,
            (a, b, c, sums, flags, alpha, s.m, s.n, s.k * bytes, s.lda * bytes, s.ldb * bytes, s.ldc, plan.splits, plan.chunk_bytes),
        )
    }
}
