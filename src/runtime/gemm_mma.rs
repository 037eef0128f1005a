//! The sm_80 GEMM ([`gemm_tn_mma`](crate::kernels::gemm::gemm_tn_mma): `mma.sync`,
//! `ldmatrix`, multi-stage `cp.async`) on device buffers: built and loaded once, then run on
//! any shape it handles; a shape or buffer it cannot handle is an `Err`.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::ampere;
//! use ptxkit::kernels::gemm::GemmShape;
//! use ptxkit::runtime::{GemmRunner, Gpu, MmaGemm};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = MmaGemm::<ptxkit::types::Bf16>::new(&gpu, ampere::Config::default())?;
//! let (m, n, k) = (77, 130, 40);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?; // M x K, row-major
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?; // N x K, row-major
//! let mut c = gpu.zeros::<bf16>(m * n)?; // M x N, row-major
//! gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m as u32, n as u32, k as u32))?;
//! assert_eq!(gpu.download(&c)?[m * n - 1], bf16::from_f32(40.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::gemm_runner::dense_tn_only;
use super::{CudaView, CudaViewMut, Elem, GemmRunner, Gpu, HostArg, Launch, LoadedModule, RuntimeError, TypedKernel};
use crate::builder::Module;
use crate::core::target::Target;
use crate::kernels::gemm::{ampere, check_mma_shape, gemm_tn_mma, GemmOut, GemmShape};
use crate::regs::GlobalPtr;
use half::bf16;
use std::marker::PhantomData;

/// The `mma.sync` GEMM loaded on one GPU, for C in `O` (`Bf16` or `F32`).
///
/// ```no_run
/// use ptxkit::kernels::gemm::ampere;
/// use ptxkit::runtime::testing::{normal_bf16, poisoned};
/// use ptxkit::runtime::{GemmRunner, GemmShape, Gpu, MmaGemm};
///
/// let gpu = Gpu::new()?;
/// let gemm = MmaGemm::<ptxkit::types::F32>::new(&gpu, ampere::Config::default())?;
/// let (m, n, k) = (4000u32, 4000u32, 4000u32);
/// let a = gpu.upload(&normal_bf16(1, (m * k) as usize))?;
/// let b = gpu.upload(&normal_bf16(2, (n * k) as usize))?;
/// let mut c = poisoned::<f32>(&gpu, (m * n) as usize)?;
/// gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m, n, k))?;
/// assert!(gpu.download(&c)?.iter().all(|x| x.is_finite()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MmaGemm<O: GemmOut> {
    cfg: ampere::Config,
    module: LoadedModule,
    kernel: TypedKernel<ampere::Params<O>>,
    /// CTAs resident at once: the persistent grid.
    resident: u32,
    _o: PhantomData<O>,
}

impl<O: GemmOut> std::fmt::Debug for MmaGemm<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmaGemm").field("cfg", &self.cfg).field("jit_time", &self.module.jit_time()).finish_non_exhaustive()
    }
}

impl<O: GemmOut> MmaGemm<O> {
    /// Builds the kernel for `cfg` (PTX for sm_80, compiled by the driver for the GPU) and
    /// loads it. `Err` when the configuration is invalid or the GPU is older than sm_80.
    pub fn new(gpu: &Gpu, cfg: ampere::Config) -> Result<Self, RuntimeError> {
        let (major, minor) = gpu.compute_capability();
        if major < 8 {
            return Err(RuntimeError::Invalid(format!("the mma.sync GEMM needs sm_80 or newer; this GPU is sm_{major}{minor}")));
        }
        let build = |e: crate::Error| RuntimeError::Invalid(e.to_string());
        let mut m = Module::new(Target::SM_80);
        let kref = gemm_tn_mma::<O>(&mut m, "gemm_tn_mma", &cfg).map_err(build)?;
        let module = gpu.load(&m.to_ptx().map_err(build)?)?;
        let kernel = module.kernel(&kref)?;
        let resident = kernel.max_active_clusters(&Launch::new(1, cfg.threads()).shared(cfg.shared_bytes()))?;
        if resident == 0 {
            return Err(RuntimeError::Invalid(format!("no CTA of the mma GEMM ({cfg:?}) fits on this GPU")));
        }
        Ok(MmaGemm { cfg, module, kernel, resident, _o: PhantomData })
    }

    /// The configuration the kernel was built for.
    pub fn config(&self) -> &ampere::Config {
        &self.cfg
    }
    /// CTAs resident at once: the grid of a persistent launch.
    pub fn resident_ctas(&self) -> u32 {
        self.resident
    }
    /// The loaded module (its JIT time and log).
    pub fn module(&self) -> &LoadedModule {
        &self.module
    }

    /// The launch of an `m × n` product: a CTA per tile, at most those resident at once
    /// when persistent.
    fn launch(&self, gpu: &Gpu, (m, n): (u32, u32)) -> Launch {
        let tiles = self.cfg.tiles(m, n);
        let grid = if self.cfg.persistent { tiles.min(self.resident as u64) } else { tiles } as u32;
        Launch::new(grid, self.cfg.threads()).shared(self.cfg.shared_bytes()).on(gpu.stream())
    }
}

/// Dense TN products ([`GemmShape::is_dense`], matrices on 16 bytes) with α = 1; K a
/// multiple of 8 ([`check_mma_shape`]). A batch is a launch per product.
impl<O: GemmOut> GemmRunner for MmaGemm<O>
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
        dense_tn_only("mma.sync GEMM", gpu, (a, b, &*c), alpha, s)?;
        check_mma_shape(&self.cfg, s.m, s.n, s.k).map_err(RuntimeError::Invalid)?;
        let launch = self.launch(gpu, (s.m, s.n));
        self.kernel.launch(&launch, (a, b, c, s.m, s.n, s.k))
    }
}
