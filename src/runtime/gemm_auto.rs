//! The GEMM a product's shape calls for ([`AutoGemm::pick`]): the skinny kernel
//! ([`SkinnyGemm`]) for TN products of few rows, otherwise the Hopper GEMM with its tile
//! chosen per shape ([`hopper::Config::for_problem`]): a configuration's own tile where its
//! tiles keep most SMs busy, a smaller one for small products, K split over all the SMs
//! for few tiles with long K. Each kernel is built and loaded the first time a shape needs
//! it.
//!
//! ```no_run
//! use ptxkit::kernels::gemm::{hopper, GemmShape};
//! use ptxkit::runtime::{AutoGemm, GemmRunner, Gpu, Pick};
//! use half::bf16;
//!
//! let gpu = Gpu::new()?;
//! let gemm = AutoGemm::<ptxkit::types::Bf16>::new(&gpu, hopper::Config::default())?;
//! let (m, n, k) = (1024, 1024, 1024);
//! let a = gpu.upload(&vec![bf16::ONE; m * k])?;
//! let b = gpu.upload(&vec![bf16::ONE; n * k])?;
//! let mut c = gpu.zeros::<bf16>(m * n)?;
//! // 32 tiles of 128 × 256 would leave 100 SMs idle: this runs 128 tiles of 64 × 128.
//! let shape = GemmShape::new(m as u32, n as u32, k as u32);
//! assert!(matches!(gemm.pick(&shape), Pick::Tiled(cfg) if cfg.bn == 128));
//! gemm.run(&gpu, &a, &b, &mut c, &shape)?;
//! assert_eq!(gpu.download(&c)?[0], bf16::from_f32(1024.0));
//! // A matrix times 4 vectors streams B through the skinny kernel.
//! assert!(matches!(gemm.pick(&GemmShape::new(4, 4096, 4096)), Pick::Skinny(_)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::gemm::Gemm;
use super::gemm_pick::Pick;
use super::gemm_skinny::SkinnyGemm;
use super::gemm_tune::{ShapeClass, Tuner, TUNING_ROUNDS, TUNING_ROUND_MS, TUNING_RUNS};
use super::{CudaSlice, CudaView, CudaViewMut, Elem, GemmRunner, Gpu, HostArg, RuntimeError};
use crate::kernels::gemm::{hopper, skinny, GemmIn, GemmOut, GemmShape, Layout, SHAPE_TILES};
use crate::regs::GlobalPtr;
use crate::types::{Bf16, DataType, F32};
use std::path::Path;
use std::sync::{Arc, Mutex};

type Host<I> = <<I as GemmIn>::Elem as DataType>::Host;

/// A product's A, B and C.
type Operands<'r, 'v, 'c, I, O> = (&'r CudaView<'v, Host<I>>, &'r CudaView<'v, Host<I>>, &'r mut CudaViewMut<'c, <O as DataType>::Host>);

/// The largest M [`AutoGemm`] runs on the skinny kernel by default. Up to 16 rows it is the
/// faster of the two in most of the shapes measured (bf16 and e4m3, N and K from 4096 to
/// 14336, on an H200); from 32 rows the Hopper GEMM mostly is
/// (bench/results/2026-11-28-h200-gemm-skinny.md).
pub const SKINNY_UP_TO: u32 = 16;

/// The GEMM kernels of one base configuration, the smaller tiles it falls back to and the
/// skinny kernels, on one GPU, for C in `O` and A, B in `I` (as [`Gemm`]).
pub struct AutoGemm<O: GemmOut, I: GemmIn = Bf16> {
    base: Arc<Gemm<O, I>>,
    sms: u32,
    /// The other configurations built so far.
    smaller: Mutex<Vec<Arc<Gemm<O, I>>>>,
    /// The skinny kernels, once a product has needed them.
    skinny: Mutex<Option<Arc<SkinnyGemm<O, I>>>>,
    skinny_up_to: u32,
    /// The kernels tuning kept ([`tuned`](Self::tuned)); the heuristic's picks without.
    tuner: Option<Tuner>,
}

impl<O: GemmOut, I: GemmIn> std::fmt::Debug for AutoGemm<O, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AutoGemm")
            .field("in", &I::NAME)
            .field("base", self.base.config())
            .field("sms", &self.sms)
            .field("skinny_up_to", &self.skinny_up_to)
            .field("tuned", &self.tuner.is_some())
            .finish_non_exhaustive()
    }
}

impl<O: GemmOut, I: GemmIn> AutoGemm<O, I> {
    /// Builds and loads the kernels of `base` (as [`Gemm::new`], with the same errors); the
    /// others are built when a shape first needs them.
    pub fn new(gpu: &Gpu, base: hopper::Config) -> Result<Self, RuntimeError> {
        Ok(AutoGemm {
            base: Arc::new(Gemm::new(gpu, base)?),
            sms: gpu.multiprocessors(),
            smaller: Mutex::new(vec![]),
            skinny: Mutex::new(None),
            skinny_up_to: SKINNY_UP_TO,
            tuner: None,
        })
    }

    pub(super) fn with_tuner(self, tuner: Tuner) -> Self {
        AutoGemm { tuner: Some(tuner), ..self }
    }

    pub(super) fn tuner(&self) -> Option<&Tuner> {
        self.tuner.as_ref()
    }

    /// The multiprocessors of the GPU the kernels are for.
    pub fn multiprocessors(&self) -> u32 {
        self.sms
    }

    /// The same, running TN products of at most `m` rows on the skinny kernel
    /// ([`SKINNY_UP_TO`] by default; 0 never, at most [`SKINNY_MAX_M`](super::SKINNY_MAX_M)).
    pub fn skinny_up_to(self, m: u32) -> Self {
        AutoGemm { skinny_up_to: m.min(super::SKINNY_MAX_M), ..self }
    }

    /// The kernels of the base configuration (built by [`new`](Self::new)).
    pub fn base(&self) -> Arc<Gemm<O, I>> {
        self.base.clone()
    }

    /// What a product of `s` runs on: the skinny kernel for a TN product of at most
    /// [`skinny_up_to`](Self::skinny_up_to) rows whose rows of A and B are 16-byte multiples,
    /// otherwise the Hopper GEMM with [`config_for`](Self::config_for)'s configuration.
    pub fn pick(&self, s: &GemmShape) -> Pick {
        if s.m <= self.skinny_up_to && self.skinny_can_run(s) {
            Pick::Skinny(skinny::Config::for_rows(s.m))
        } else {
            Pick::Tiled(self.config_for(s.m, s.n, s.k))
        }
    }

    /// Whether the skinny kernel can run `s`: a TN product of at most
    /// [`SKINNY_MAX_M`](super::SKINNY_MAX_M) rows whose rows of A and B are 16-byte multiples.
    pub fn skinny_can_run(&self, s: &GemmShape) -> bool {
        let rows16 = [s.k, s.lda, s.ldb].iter().all(|v| (v * I::BYTES).is_multiple_of(16));
        s.layout == Layout::TN && s.m <= super::SKINNY_MAX_M && rows16
    }

    /// The configuration an `m × n × k` product runs with on this GPU's Hopper GEMM.
    pub fn config_for(&self, m: u32, n: u32, k: u32) -> hopper::Config {
        self.base.config().for_problem(m, n, k as u64 * I::BYTES as u64, self.sms)
    }

    /// The Hopper GEMM for an `m × n × k` product; a configuration other than the base's is
    /// built and loaded on first use.
    pub fn gemm_for(&self, gpu: &Gpu, m: u32, n: u32, k: u32) -> Result<Arc<Gemm<O, I>>, RuntimeError> {
        self.gemm_with(gpu, self.config_for(m, n, k))
    }

    /// The Hopper GEMM of `cfg`, built and loaded on first use.
    pub fn gemm_with(&self, gpu: &Gpu, cfg: hopper::Config) -> Result<Arc<Gemm<O, I>>, RuntimeError> {
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

impl<O: GemmOut, I: GemmIn> AutoGemm<O, I> {
    /// The skinny kernels, built and loaded on first use.
    pub fn skinny(&self, gpu: &Gpu) -> Result<Arc<SkinnyGemm<O, I>>, RuntimeError> {
        let mut s = self.skinny.lock().map_err(|_| RuntimeError::Invalid("a build of this GEMM panicked".into()))?;
        if let Some(g) = &*s {
            return Ok(g.clone());
        }
        let g = Arc::new(SkinnyGemm::new(gpu)?);
        *s = Some(g.clone());
        Ok(g)
    }
}

/// Each product runs on what [`pick`](AutoGemm::pick) names; a skinny product whose A or B
/// does not start on 16 bytes runs on the Hopper GEMM.
impl<O: GemmOut, I: GemmIn> GemmRunner for AutoGemm<O, I>
where
    Gemm<O, I>: GemmRunner<In = Host<I>, Out = O::Host>,
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
        a: &CudaView<'_, Self::In>,
        b: &CudaView<'_, Self::In>,
        c: &mut CudaViewMut<'_, Self::Out>,
        alpha: f32,
        shape: &GemmShape,
    ) -> Result<(), RuntimeError> {
        let Some(tuner) = &self.tuner else { return self.run_pick(gpu, self.pick(shape), (a, b, c), alpha, shape) };
        let class = ShapeClass::of(shape);
        if let Some(kept) = tuner.get(&class)? {
            return self.run_pick(gpu, kept, (a, b, c), alpha, shape);
        }
        // The first product of its class: each candidate that can run it (the others are
        // passed over) timed on these operands, in rounds that alternate the candidates,
        // each candidate's runs filling about `TUNING_ROUND_MS`; the lowest median is kept.
        let candidates = self.candidates(shape);
        let mut runs = vec![0; candidates.len()];
        for (pick, n) in candidates.iter().zip(&mut runs) {
            let once = gpu.bench(1, 1, || self.run_pick(gpu, *pick, (a, b, &mut *c), alpha, shape));
            if let Some(ms) = once.ok().and_then(|t| t.first().copied()) {
                *n = ((TUNING_ROUND_MS / ms.max(1e-3)).ceil() as usize).clamp(TUNING_RUNS.0, TUNING_RUNS.1);
            }
        }
        let mut medians = vec![f32::INFINITY; candidates.len()];
        for _ in 0..TUNING_ROUNDS {
            for ((pick, &n), best) in candidates.iter().zip(&runs).zip(&mut medians) {
                if n == 0 {
                    continue;
                }
                let timed = gpu.bench(0, n, || self.run_pick(gpu, *pick, (a, b, &mut *c), alpha, shape))?;
                *best = best.min(super::median(&timed).unwrap_or(f32::INFINITY));
            }
        }
        let Some((pick, _)) = candidates.iter().zip(&medians).filter(|(_, m)| m.is_finite()).min_by(|x, y| x.1.total_cmp(y.1)) else {
            return Err(RuntimeError::Invalid(format!("no GEMM kernel ran the {}×{}×{} product", shape.m, shape.n, shape.k)));
        };
        let pick = *pick;
        tuner.keep(class, pick)?;
        self.run_pick(gpu, pick, (a, b, c), alpha, shape)
    }
}

impl<O: GemmOut, I: GemmIn> AutoGemm<O, I>
where
    Gemm<O, I>: GemmRunner<In = Host<I>, Out = O::Host>,
    SkinnyGemm<O, I>: GemmRunner<In = Host<I>, Out = O::Host>,
    Host<I>: Elem,
    O::Host: Elem,
{
    /// The product on what `pick` names: the skinny kernel for `s`'s rows where it can run
    /// it (and these operands' alignment), else the Hopper GEMM of the pick's configuration
    /// (of the heuristic's for a skinny pick it cannot run).
    fn run_pick(
        &self,
        gpu: &Gpu,
        pick: Pick,
        (a, b, c): Operands<'_, '_, '_, I, O>,
        alpha: f32,
        s: &GemmShape,
    ) -> Result<(), RuntimeError> {
        let cfg = match pick {
            Pick::Skinny(_) => {
                if self.skinny_can_run(s) {
                    let skinny = self.skinny(gpu)?;
                    if skinny.check(gpu, (a, b), s).is_ok() {
                        return skinny.run_one(gpu, a, b, c, alpha, s);
                    }
                }
                self.config_for(s.m, s.n, s.k)
            }
            Pick::Tiled(cfg) => cfg,
        };
        self.gemm_with(gpu, cfg)?.run_one(gpu, a, b, c, alpha, s)
    }
}

impl<O: GemmOut, I: GemmIn> AutoGemm<O, I> {
    /// This GEMM measuring its candidates for each new class of shapes (the module's docs
    /// say how); `file`: also reading the picks kept for this GPU and these types from it,
    /// and appending each new one. `Err` if the file cannot be read or holds a line that
    /// does not parse (its path, line and what is wrong).
    pub fn tuned(self, gpu: &super::Gpu, file: Option<&Path>) -> Result<Self, RuntimeError> {
        let tuner = Tuner::new(gpu.name(), (I::NAME, O::NAME), file, self.base().config())?;
        Ok(self.with_tuner(tuner))
    }

    /// The kernel tuning kept for `s`'s class, if it has measured it (or read it).
    pub fn tuned_pick(&self, s: &GemmShape) -> Option<Pick> {
        self.tuner()?.get(&ShapeClass::of(s)).ok().flatten()
    }

    /// What tuning measures for `s`: the heuristic's pick, the skinny kernel where it can run
    /// `s`, and each tile of [`SHAPE_TILES`] with the most stages that fit, whole and, where
    /// its tiles do not fill the GPU, with K split 4 and 8 ways (stream-K).
    pub fn candidates(&self, s: &GemmShape) -> Vec<Pick> {
        let mut out = vec![self.pick(s)];
        if self.skinny_can_run(s) {
            out.push(Pick::Skinny(crate::kernels::gemm::skinny::Config::for_rows(s.m)));
        }
        let base = *self.base().config();
        for (consumers, bn) in SHAPE_TILES {
            let c = hopper::Config { consumers, bn, stream_k: false, ..base }.with_most_stages();
            if c.check_for::<I>().is_err() {
                continue;
            }
            out.push(Pick::Tiled(c));
            if c.units(s.m, s.n) * (c.cluster as u64) < self.multiprocessors() as u64 {
                for split in [4, 8] {
                    out.push(Pick::Tiled(hopper::Config { stream_k: true, split, cluster: 1, ..c }));
                }
            }
        }
        let mut seen = vec![];
        out.retain(|p| {
            let new = !seen.contains(p);
            seen.push(*p);
            new
        });
        out
    }
}
