//! The sm_80 GEMM ([`gemm_tn_mma`](crate::kernels::gemm::gemm_tn_mma): `mma.sync`,
//! `ldmatrix`, multi-stage `cp.async`) on device buffers: built and loaded once, then run on
//! any shape it handles; a shape or buffer it cannot handle is an `Err`.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::ampere;
//! use ptxkit::runtime::{Gpu, MmaGemm};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = MmaGemm::<ptxkit::types::Bf16>::new(&gpu, ampere::Config::default())?;
//! let (m, n, k) = (77, 130, 40);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?; // M x K, row-major
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?; // N x K, row-major
//! let mut c = gpu.zeros::<bf16>(m * n)?; // M x N, row-major
//! gemm.run(&gpu, &a, &b, &mut c, m as u32, n as u32, k as u32)?;
//! assert_eq!(gpu.download(&c)?[m * n - 1], bf16::from_f32(40.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{CudaSlice, Gpu, HostArg, Launch, LoadedModule, RuntimeError, TypedKernel};
use crate::builder::Module;
use crate::core::target::Target;
use crate::kernels::gemm::{ampere, check_mma_shape, gemm_tn_mma, GemmOut};
use crate::regs::GlobalPtr;
use half::bf16;
use std::marker::PhantomData;

/// The `mma.sync` GEMM loaded on one GPU, for C in `O` (`Bf16` or `F32`).
///
/// ```no_run
/// use ptxkit::kernels::gemm::ampere;
/// use ptxkit::runtime::testing::{normal_bf16, poisoned};
/// use ptxkit::runtime::{Gpu, MmaGemm};
///
/// let gpu = Gpu::new()?;
/// let gemm = MmaGemm::<ptxkit::types::F32>::new(&gpu, ampere::Config::default())?;
/// let (m, n, k) = (4000u32, 4000u32, 4000u32);
/// let a = gpu.upload(&normal_bf16(1, (m * k) as usize))?;
/// let b = gpu.upload(&normal_bf16(2, (n * k) as usize))?;
/// let mut c = poisoned::<f32>(&gpu, (m * n) as usize)?;
/// gemm.run(&gpu, &a, &b, &mut c, m, n, k)?;
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

    fn launch(&self, gpu: &Gpu, lens: [usize; 3], (m, n, k): (u32, u32, u32)) -> Result<Launch, RuntimeError> {
        check_mma_shape(&self.cfg, m, n, k).map_err(RuntimeError::Invalid)?;
        super::gemm_check::check_lengths(lens, (m, n, k))?;
        let tiles = self.cfg.tiles(m, n);
        let grid = if self.cfg.persistent { tiles.min(self.resident as u64) } else { tiles } as u32;
        Ok(Launch::new(grid, self.cfg.threads()).shared(self.cfg.shared_bytes()).on(gpu.stream()))
    }
}

impl<O: GemmOut> MmaGemm<O>
where
    for<'c> &'c mut CudaSlice<O::Host>: HostArg<GlobalPtr<O>>,
{
    /// `C = A·Bᵀ`: A is `m × k`, B `n × k`, C `m × n` (bf16 or f32, as `O`), all row-major
    /// and densely packed (the buffers may be longer). Enqueued on the GPU's stream; `Err`
    /// for a shape the kernel cannot handle ([`check_mma_shape`]) or a buffer too short for it.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        gpu: &Gpu,
        a: &CudaSlice<bf16>,
        b: &CudaSlice<bf16>,
        c: &mut CudaSlice<O::Host>,
        m: u32,
        n: u32,
        k: u32,
    ) -> Result<(), RuntimeError> {
        let launch = self.launch(gpu, [a.len(), b.len(), c.len()], (m, n, k))?;
        self.kernel.launch(&launch, (a, b, c, m, n, k))
    }
}
