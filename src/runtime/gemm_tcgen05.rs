//! The Blackwell GEMM ([`gemm_tcgen05`]: TMA, `tcgen05.mma` into tensor memory) on device
//! buffers: built for the GPU's architecture-specific target and loaded once, then run on
//! any shape it handles; a GPU without `tcgen05`, a shape or a buffer it cannot handle is
//! an `Err`.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::blackwell;
//! use ptxkit::kernels::gemm::GemmShape;
//! use ptxkit::runtime::{GemmRunner, Gpu, Tcgen05Gemm};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! // Err on a GPU without tcgen05 (older than sm_100, or sm_120).
//! let gemm = Tcgen05Gemm::<ptxkit::types::Bf16>::new(&gpu, blackwell::Config::default())?;
//! let (m, n, k) = (200, 136, 96);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?; // M x K, row-major
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?; // N x K, row-major
//! let mut c = gpu.zeros::<bf16>(m * n)?; // M x N, row-major
//! gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m as u32, n as u32, k as u32))?;
//! assert_eq!(gpu.download(&c)?[m * n - 1], bf16::from_f32(96.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::gemm::k_major_map;
use super::gemm_runner::dense_tn_only;
use super::{CudaView, CudaViewMut, Elem, GemmRunner, Gpu, HostArg, HostTensorMap, Launch, LoadedModule, RuntimeError, TypedKernel};
use crate::builder::Module;
use crate::core::target::Target;
use crate::kernels::gemm::{blackwell, check_shape, gemm_tcgen05, GemmConfig, GemmIn, GemmOut, GemmShape, Layout, TCGEN05_BM};
use crate::regs::GlobalPtr;
use crate::types::Bf16;
use half::bf16;
use std::marker::PhantomData;

/// Tensor-memory columns of one SM.
const TMEM_COLUMNS: u32 = 512;

/// The tcgen05 GEMM loaded on one GPU, for C in `O` (`Bf16` or `F32`).
pub struct Tcgen05Gemm<O: GemmOut> {
    cfg: blackwell::Config,
    module: LoadedModule,
    kernel: TypedKernel<blackwell::Params<O>>,
    /// CTAs resident at once (as shared memory and tensor memory allow): the persistent grid.
    resident: u32,
    _o: PhantomData<O>,
}

impl<O: GemmOut> std::fmt::Debug for Tcgen05Gemm<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tcgen05Gemm").field("cfg", &self.cfg).field("jit_time", &self.module.jit_time()).finish_non_exhaustive()
    }
}

/// The architecture-specific target of a GPU with `tcgen05`, or why there is none: the
/// instructions are sm_100a, sm_103a and sm_110a (not sm_120's consumer Blackwell, nor
/// anything older), and an `a` target runs only on its own architecture.
pub fn tcgen05_target(cc: (u32, u32)) -> Result<Target, RuntimeError> {
    match cc {
        (10, 0) => Ok(Target::SM_100A),
        (10, 3) => Ok(Target::SM_103A),
        (11, 0) => Ok(Target::SM_110A),
        (major, minor) => Err(RuntimeError::Invalid(format!(
            "the tcgen05 GEMM needs sm_100 or newer with tensor memory (sm_100, sm_103, sm_110); this GPU is sm_{major}{minor}"
        ))),
    }
}

impl<O: GemmOut> Tcgen05Gemm<O> {
    /// Builds the kernel for `cfg` and loads it. `Err` when the configuration is invalid or
    /// the GPU has no `tcgen05` ([`tcgen05_target`]), before anything is built or loaded.
    pub fn new(gpu: &Gpu, cfg: blackwell::Config) -> Result<Self, RuntimeError> {
        let target = tcgen05_target(gpu.compute_capability())?;
        cfg.check().map_err(|e| RuntimeError::Invalid(format!("tcgen05 GEMM configuration: {e}")))?;
        let build = |e: crate::Error| RuntimeError::Invalid(e.to_string());
        let mut m = Module::new(target);
        let kref = gemm_tcgen05::<O>(&mut m, "gemm_tcgen05", &cfg).map_err(build)?;
        let module = gpu.load(&m.to_ptx().map_err(build)?)?;
        let kernel = module.kernel(&kref)?;
        let by_shared = kernel.max_active_clusters(&Launch::new(1, cfg.threads()).shared(cfg.shared_bytes()))?;
        // A CTA beyond what tensor memory holds would wait in `tcgen05.alloc` until another
        // one ends: keep the persistent grid to what fits at once.
        let by_tmem = gpu.multiprocessors() * (TMEM_COLUMNS / cfg.tmem_columns());
        let resident = by_shared.min(by_tmem);
        if resident == 0 {
            return Err(RuntimeError::Invalid(format!("no CTA of the tcgen05 GEMM ({cfg:?}) fits on this GPU")));
        }
        Ok(Tcgen05Gemm { cfg, module, kernel, resident, _o: PhantomData })
    }

    /// The configuration the kernel was built for.
    pub fn config(&self) -> &blackwell::Config {
        &self.cfg
    }
    /// CTAs resident at once: the grid of a large product.
    pub fn resident_ctas(&self) -> u32 {
        self.resident
    }
    /// The loaded module (its JIT time and log).
    pub fn module(&self) -> &LoadedModule {
        &self.module
    }
}

/// Dense TN products ([`GemmShape::is_dense`], matrices on 16 bytes) with α = 1; K a
/// multiple of 8 ([`check_shape`]). A batch is a launch per product.
impl<O: GemmOut> GemmRunner for Tcgen05Gemm<O>
where
    O::Host: Elem,
    for<'c, 'v> &'c mut CudaViewMut<'v, O::Host>: HostArg<GlobalPtr<O>>,
{
    type In = bf16;
    type Out = O::Host;

    fn run_one(
        &self,
        gpu: &Gpu,
        a: &CudaView<'_, bf16>,
        b: &CudaView<'_, bf16>,
        c: &mut CudaViewMut<'_, O::Host>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        dense_tn_only("tcgen05 GEMM", gpu, (a, b, &*c), alpha, s)?;
        let (m, n, k) = (s.m, s.n, s.k);
        check_shape::<Bf16>(Layout::TN, m, n, k).map_err(RuntimeError::Invalid)?;
        let bk = <Bf16 as GemmIn>::BK;
        let a_map = HostTensorMap::tiled(a, &k_major_map(k, m, k, bk, TCGEN05_BM))?;
        let b_map = HostTensorMap::tiled(b, &k_major_map(k, n, k, bk, self.cfg.bn))?;
        let grid = self.cfg.units(m, n).min(self.resident as u64) as u32;
        let launch = Launch::new(grid, self.cfg.threads()).shared(self.cfg.shared_bytes()).on(gpu.stream());
        self.kernel.launch(&launch, (&a_map, &b_map, c, m, n, k))
    }
}
