//! The Hopper GEMM with its tile chosen per shape ([`hopper::Config::for_shape`]): a
//! configuration's own tile where its tiles keep most SMs busy, a smaller one for small
//! products. Each configuration is built and loaded the first time a shape needs it.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::{hopper, GemmShape};
//! use ptxkit::runtime::{AutoGemm, GemmRunner, Gpu};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = AutoGemm::<ptxkit::types::Bf16>::new(&gpu, hopper::Config::default())?;
//! let (m, n, k) = (1024, 1024, 1024);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?;
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?;
//! let mut c = gpu.zeros::<bf16>(m * n)?;
//! // 32 tiles of 128 × 256 would leave 100 SMs idle: this runs 128 tiles of 64 × 128.
//! assert_eq!(gemm.config_for(m as u32, n as u32).bn, 128);
//! gemm.run(&gpu, &a, &b, &mut c, &GemmShape::new(m as u32, n as u32, k as u32))?;
//! assert_eq!(gpu.download(&c)?[0], bf16::from_f32(1024.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{CudaView, CudaViewMut, Gemm, GemmRunner, Gpu, RuntimeError};
use crate::kernels::gemm::{hopper, GemmIn, GemmOut, GemmShape};
use crate::types::Bf16;
use std::sync::{Arc, Mutex};

/// The GEMM kernels of one base configuration and the smaller tiles it falls back to, on
/// one GPU, for C in `O` and A, B in `I` (as [`Gemm`]).
pub struct AutoGemm<O: GemmOut, I: GemmIn = Bf16> {
    base: Arc<Gemm<O, I>>,
    sms: u32,
    /// The smaller configurations built so far.
    smaller: Mutex<Vec<Arc<Gemm<O, I>>>>,
}

impl<O: GemmOut, I: GemmIn> std::fmt::Debug for AutoGemm<O, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AutoGemm").field("in", &I::NAME).field("base", self.base.config()).field("sms", &self.sms).finish_non_exhaustive()
    }
}

impl<O: GemmOut, I: GemmIn> AutoGemm<O, I> {
    /// Builds and loads the kernels of `base` (as [`Gemm::new`], with the same errors); the
    /// smaller tiles are built when a shape first needs them.
    pub fn new(gpu: &Gpu, base: hopper::Config) -> Result<Self, RuntimeError> {
        Ok(AutoGemm { base: Arc::new(Gemm::new(gpu, base)?), sms: gpu.multiprocessors(), smaller: Mutex::new(vec![]) })
    }

    /// The kernels of the base configuration (built by [`new`](Self::new)).
    pub fn base(&self) -> Arc<Gemm<O, I>> {
        self.base.clone()
    }

    /// The configuration an `m × n` product runs with on this GPU.
    pub fn config_for(&self, m: u32, n: u32) -> hopper::Config {
        self.base.config().for_shape(m, n, self.sms)
    }

    /// The kernels for an `m × n` product; a smaller tile's are built and loaded on first use.
    pub fn gemm_for(&self, gpu: &Gpu, m: u32, n: u32) -> Result<Arc<Gemm<O, I>>, RuntimeError> {
        let cfg = self.config_for(m, n);
        if cfg == *self.base.config() {
            return Ok(self.base.clone());
        }
        let lock = || self.smaller.lock().map_err(|_| RuntimeError::Invalid("a build of this GEMM panicked".into()));
        if let Some(g) = lock()?.iter().find(|g| *g.config() == cfg) {
            return Ok(g.clone());
        }
        // Built outside the lock; a second thread building the same one meanwhile only
        // costs a duplicate build.
        let g = Arc::new(Gemm::new(gpu, cfg)?);
        lock()?.push(g.clone());
        Ok(g)
    }
}

/// Each product runs on [`gemm_for`](AutoGemm::gemm_for)'s kernels, as [`Gemm`] runs it.
impl<O: GemmOut, I: GemmIn> GemmRunner for AutoGemm<O, I>
where
    Gemm<O, I>: GemmRunner,
{
    type In = <Gemm<O, I> as GemmRunner>::In;
    type Out = <Gemm<O, I> as GemmRunner>::Out;

    fn run_one(
        &self,
        gpu: &Gpu,
        a: &CudaView<'_, Self::In>,
        b: &CudaView<'_, Self::In>,
        c: &mut CudaViewMut<'_, Self::Out>,
        alpha: f32,
        shape: &GemmShape,
    ) -> Result<(), RuntimeError> {
        self.gemm_for(gpu, shape.m, shape.n)?.run_one(gpu, a, b, c, alpha, shape)
    }
}
