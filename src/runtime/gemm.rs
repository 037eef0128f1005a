//! The Hopper GEMM ([`crate::kernels::gemm`]) on device buffers: built and loaded once,
//! then run on any shape it handles; a shape or buffer it cannot handle is an `Err`.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::GemmConfig;
//! use ptxkit::runtime::{Gemm, Gpu};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = Gemm::<ptxkit::types::Bf16>::new(&gpu, GemmConfig::default())?;
//! let (m, n, k) = (1000, 3000, 512);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?; // M x K, row-major
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?; // N x K, row-major
//! let mut c = gpu.zeros::<bf16>(m * n)?; // M x N, row-major
//! gemm.run(&gpu, &a, &b, &mut c, m as u32, n as u32, k as u32)?;
//! assert_eq!(gpu.download(&c)?[0], bf16::from_f32(512.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{CudaSlice, Gpu, HostArg, HostTensorMap, Launch, LoadedModule, RuntimeError, TypedKernel};
use crate::builder::Module;
use crate::core::target::Target;
use crate::descriptors::{L2Promotion, Swizzle, TiledMap};
use crate::kernels::gemm::{check_shape, gemm_tn, GemmConfig, GemmOut, GemmParams, BK};
use crate::regs::GlobalPtr;
use crate::types::{Bf16, DataType};
use half::bf16;

/// The GEMM kernel loaded on one GPU, for C in `O` (`Bf16` or `F32`).
pub struct Gemm<O: GemmOut> {
    cfg: GemmConfig,
    module: LoadedModule,
    kernel: TypedKernel<GemmParams<O>>,
    sms: u32,
}

impl<O: GemmOut> std::fmt::Debug for Gemm<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gemm").field("cfg", &self.cfg).field("jit_time", &self.module.jit_time()).finish_non_exhaustive()
    }
}

impl<O: GemmOut> Gemm<O> {
    /// Builds the kernel for `cfg` and loads it. `Err` when the configuration is invalid or
    /// the GPU is not sm_90 (wgmma and `setmaxnreg` are sm_90a).
    pub fn new(gpu: &Gpu, cfg: GemmConfig) -> Result<Self, RuntimeError> {
        if gpu.compute_capability() != (9, 0) {
            return Err(RuntimeError::Invalid(format!(
                "the wgmma GEMM needs an sm_90 GPU (H100/H200); this one is sm_{}{}",
                gpu.compute_capability().0,
                gpu.compute_capability().1
            )));
        }
        let mut m = Module::new(Target::SM_90A);
        let kref = gemm_tn::<O>(&mut m, "gemm_tn", &cfg).map_err(|e| RuntimeError::Invalid(e.to_string()))?;
        let text = m.to_ptx().map_err(|e| RuntimeError::Invalid(e.to_string()))?;
        let module = gpu.load(&text)?;
        let kernel = module.kernel(&kref)?;
        Ok(Gemm { cfg, module, kernel, sms: gpu.multiprocessors() })
    }

    /// The configuration the kernel was built for.
    pub fn config(&self) -> &GemmConfig {
        &self.cfg
    }
    /// The loaded module (its JIT time and log).
    pub fn module(&self) -> &LoadedModule {
        &self.module
    }

    /// `C = A·Bᵀ`: A is `m × k`, B `n × k`, C `m × n`, all row-major and densely packed (the
    /// buffers may be longer). Enqueued on the GPU's stream; `Err` for a shape the kernel
    /// cannot handle ([`check_shape`]) or a buffer too short for it.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        gpu: &Gpu,
        a: &CudaSlice<bf16>,
        b: &CudaSlice<bf16>,
        c: &mut CudaSlice<<O as DataType>::Host>,
        m: u32,
        n: u32,
        k: u32,
    ) -> Result<(), RuntimeError>
    where
        for<'s> &'s mut CudaSlice<<O as DataType>::Host>: HostArg<GlobalPtr<O>>,
    {
        check_shape(m, n, k).map_err(RuntimeError::Invalid)?;
        for (name, len, want) in [("A", a.len(), m as u64 * k as u64), ("B", b.len(), n as u64 * k as u64), ("C", c.len(), m as u64 * n as u64)] {
            if (len as u64) < want {
                return Err(RuntimeError::Invalid(format!("{name} holds {len} elements; a {m}x{n}x{k} product needs {want}")));
            }
        }
        let cfg = &self.cfg;
        let map = |rows: u32, box_rows: u32| {
            TiledMap::new([k as u64, rows as u64], [BK, box_rows]).swizzle(Swizzle::B128).l2_promotion(L2Promotion::B256)
        };
        let a_map = HostTensorMap::<Bf16, 2>::tiled(a, &map(m, cfg.bm()))?;
        let b_map = HostTensorMap::<Bf16, 2>::tiled(b, &map(n, cfg.bn))?;
        let grid = cfg.tiles(m, n).min(self.sms as u64) as u32;
        let launch = Launch::new(grid, cfg.threads()).shared(cfg.shared_bytes()).on(gpu.stream());
        self.kernel.launch(&launch, (&a_map, &b_map, c, m, n, k))
    }
}
