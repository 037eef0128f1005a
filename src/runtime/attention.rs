//! Attention forward ([`crate::kernels::attention`]) on device buffers: the six kernels
//! (head dimension 64, 128, 256; causal or not) built and loaded once, then run on any shape
//! they handle; a shape or buffer they cannot handle is an `Err` saying what to change.
//!
//! ```no_run
//! use half::bf16;
//! use ptxkit::runtime::{Attention, AttentionShape, Gpu, QkvLayout};
//!
//! let gpu = Gpu::new()?;
//! let attn = Attention::new(&gpu)?;
//! // Two sequences of 1000 queries and keys, 8 query heads sharing 2 key/value heads.
//! let shape = AttentionShape::new(2, 8, 2, 1000, 1000, 128).causal(true);
//! let q = gpu.upload(&vec![bf16::ONE; shape.q_len()])?;
//! let k = gpu.upload(&vec![bf16::ONE; shape.kv_len()])?;
//! let v = gpu.upload(&vec![bf16::ONE; shape.kv_len()])?;
//! let (mut o, mut lse) = (gpu.zeros::<bf16>(shape.q_len())?, gpu.zeros::<f32>(shape.lse_len())?);
//! attn.run(&shape, &q, &k, &v, &mut o, &mut lse)?;
//! assert_eq!(shape.layout, QkvLayout::Bhsd);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{CudaSlice, Gpu, HostTensorMap, Launch, LoadedModule, RuntimeError, TypedKernel};
use crate::builder::Module;
use crate::core::target::Target;
use crate::descriptors::{L2Promotion, Swizzle, TiledMap};
use crate::kernels::attention::{attention, AttentionConfig, AttentionParams, CHUNK, ROWS};
use crate::types::Bf16;
use half::bf16;

/// Where Q, K, V and O keep their elements (row-major, head dimension innermost).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum QkvLayout {
    /// `[B, H, S, D]`: a head's rows together.
    #[default]
    Bhsd,
    /// `[B, S, H, D]`: a position's heads together.
    Bshd,
}

/// The problem: batch, query heads, key/value heads (dividing the query heads), query and
/// key lengths, head dimension, layout, masking and the softmax scale (`1/sqrt(D)` unless
/// set).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttentionShape {
    pub batch: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub seq_q: u32,
    pub seq_k: u32,
    pub head_dim: u32,
    pub layout: QkvLayout,
    pub causal: bool,
    pub scale: Option<f32>,
}

impl AttentionShape {
    /// `[B, H, S, D]` inputs, not causal, scale `1/sqrt(D)`.
    pub fn new(batch: u32, heads: u32, kv_heads: u32, seq_q: u32, seq_k: u32, head_dim: u32) -> Self {
        AttentionShape { batch, heads, kv_heads, seq_q, seq_k, head_dim, layout: QkvLayout::Bhsd, causal: false, scale: None }
    }
    /// With the layout `layout`.
    pub fn layout(mut self, layout: QkvLayout) -> Self {
        self.layout = layout;
        self
    }
    /// Causal (key `j` seen by query `i` when `j <= i`) or not.
    pub fn causal(mut self, causal: bool) -> Self {
        self.causal = causal;
        self
    }
    /// With the softmax scale `scale`.
    pub fn scale(mut self, scale: f32) -> Self {
        self.scale = Some(scale);
        self
    }
    /// The scale the softmax applies.
    pub fn softmax_scale(&self) -> f32 {
        self.scale.unwrap_or(1.0 / (self.head_dim as f32).sqrt())
    }
    /// Elements of Q and of O.
    pub fn q_len(&self) -> usize {
        self.batch as usize * self.heads as usize * self.seq_q as usize * self.head_dim as usize
    }
    /// Elements of K and of V.
    pub fn kv_len(&self) -> usize {
        self.batch as usize * self.kv_heads as usize * self.seq_k as usize * self.head_dim as usize
    }
    /// Elements of the log-sum-exp, `[B, H, S_q]`.
    pub fn lse_len(&self) -> usize {
        self.batch as usize * self.heads as usize * self.seq_q as usize
    }
    /// Floating-point operations of the two products: `4·B·H·S_q·S_k·D`, half of it when
    /// causal with equal lengths (the convention of attention benchmarks).
    pub fn flops(&self) -> f64 {
        let f = 4.0 * self.batch as f64 * self.heads as f64 * self.seq_q as f64 * self.seq_k as f64 * self.head_dim as f64;
        if self.causal {
            f / 2.0
        } else {
            f
        }
    }

    /// Whether the kernels take this shape, and what to change if not.
    pub fn check(&self) -> Result<(), String> {
        let AttentionShape { batch, heads, kv_heads, seq_q, seq_k, head_dim, .. } = *self;
        if ![64, 128, 256].contains(&head_dim) {
            return Err(format!("the head dimension is 64, 128 or 256, not {head_dim}"));
        }
        if batch == 0 || heads == 0 || kv_heads == 0 || seq_q == 0 || seq_k == 0 {
            return Err(format!("every extent is at least 1: {self:?}"));
        }
        if heads % kv_heads != 0 {
            return Err(format!("{kv_heads} key/value heads do not divide {heads} query heads"));
        }
        // The most tiles a kernel makes (two consumers' rows each).
        let tiles = seq_q.div_ceil(2 * ROWS) as u64 * heads as u64 * batch as u64;
        if tiles > u32::MAX as u64 / 2 {
            return Err(format!("{tiles} tiles of 128 queries: at most {} (split the batch)", u32::MAX / 2));
        }
        let sb = heads as u64 * seq_q as u64 * head_dim as u64;
        if sb > u32::MAX as u64 {
            return Err(format!("a sequence of O has {sb} elements: at most {} (split the batch)", u32::MAX));
        }
        if !(self.softmax_scale() > 0.0 && self.softmax_scale().is_finite()) {
            return Err(format!("the softmax scale must be positive and finite, not {}", self.softmax_scale()));
        }
        Ok(())
    }

    /// The 4-D map of a tensor of `heads` heads and `seq` rows, `[D, S, H, B]`, in boxes of 64
    /// columns × `rows`.
    fn map(&self, heads: u32, seq: u32, rows: u32) -> TiledMap<4> {
        let (d, s, h) = (self.head_dim as u64, seq as u64, heads as u64);
        let strides = match self.layout {
            QkvLayout::Bhsd => [1, d, s * d, h * s * d],
            QkvLayout::Bshd => [1, h * d, d, s * h * d],
        };
        TiledMap::new([d, s, h, self.batch as u64], [CHUNK, rows, 1, 1])
            .strides(strides)
            .swizzle(Swizzle::B128)
            .l2_promotion(L2Promotion::B256)
    }
}

/// How many CTAs a launch has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AttentionGrid {
    /// One CTA per multiprocessor, each looping over tiles, when not causal (the next tile's
    /// loads overlap the last one's output); one CTA per tile, the longest first, when causal
    /// (the hardware then balances the unequal tiles).
    #[default]
    Auto,
    /// One CTA per multiprocessor.
    Persistent,
    /// One CTA per tile.
    PerTile,
    /// This many CTAs (at least 1), each looping over tiles.
    Ctas(u32),
}

/// The attention kernels, loaded.
pub struct Attention {
    module: LoadedModule,
    kernels: Vec<((u32, bool), AttentionConfig, TypedKernel<AttentionParams>)>,
    multiprocessors: u32,
    grid: AttentionGrid,
}

impl Attention {
    /// Builds and loads the kernels (needs an sm_90 GPU).
    pub fn new(gpu: &Gpu) -> Result<Attention, RuntimeError> {
        Self::with_configs(gpu, AttentionConfig::new)
    }

    /// Builds and loads the kernels with the configuration `config(head_dim, causal)` gives
    /// for each (to tune one).
    pub fn with_configs(gpu: &Gpu, config: impl Fn(u32, bool) -> AttentionConfig) -> Result<Attention, RuntimeError> {
        if gpu.compute_capability() != (9, 0) {
            return Err(RuntimeError::Invalid(format!(
                "the attention kernel needs an sm_90 GPU (H100/H200); this one is sm_{}{}",
                gpu.compute_capability().0,
                gpu.compute_capability().1
            )));
        }
        let build = |e: crate::Error| RuntimeError::Invalid(e.to_string());
        let mut m = Module::new(Target::SM_90A);
        let mut refs = vec![];
        for d in [64, 128, 256] {
            for causal in [false, true] {
                let cfg = config(d, causal);
                if (cfg.head_dim, cfg.causal) != (d, causal) {
                    return Err(RuntimeError::Invalid(format!(
                        "the configuration for D = {d}, causal = {causal} is for another kernel: {cfg:?}"
                    )));
                }
                let name = format!("attention_d{d}{}", if causal { "_causal" } else { "" });
                refs.push(((d, causal), cfg, attention(&mut m, &name, &cfg).map_err(build)?));
            }
        }
        let module = gpu.load(&m.to_ptx().map_err(build)?)?;
        let kernels = refs.into_iter().map(|(key, cfg, r)| Ok((key, cfg, module.kernel(&r)?))).collect::<Result<_, RuntimeError>>()?;
        Ok(Attention { module, kernels, multiprocessors: gpu.multiprocessors(), grid: AttentionGrid::Auto })
    }

    /// Launches of `grid`'s size from now on (the kernels compute the same either way).
    pub fn set_grid(&mut self, grid: AttentionGrid) {
        self.grid = grid;
    }

    /// The loaded module.
    pub fn module(&self) -> &LoadedModule {
        &self.module
    }

    /// `O = softmax(scale · Q·Kᵀ) · V` (masked when causal) and `lse` = the natural log of
    /// each row's sum of `exp(scale · q·k)`, for the shape's layout and lengths. Buffers of
    /// the wrong length, or a shape [`AttentionShape::check`] refuses, are an `Err`.
    pub fn run(
        &self,
        shape: &AttentionShape,
        q: &CudaSlice<bf16>,
        k: &CudaSlice<bf16>,
        v: &CudaSlice<bf16>,
        o: &mut CudaSlice<bf16>,
        lse: &mut CudaSlice<f32>,
    ) -> Result<(), RuntimeError> {
        shape.check().map_err(RuntimeError::Invalid)?;
        for (name, len, want) in
            [("Q", q.len(), shape.q_len()), ("K", k.len(), shape.kv_len()), ("V", v.len(), shape.kv_len()), ("O", o.len(), shape.q_len())]
        {
            if len != want {
                return Err(RuntimeError::Invalid(format!("{name} holds {len} elements; the shape {shape:?} needs {want}")));
            }
        }
        if lse.len() != shape.lse_len() {
            return Err(RuntimeError::Invalid(format!(
                "lse holds {} elements; the shape needs {} ([B, H, S_q])",
                lse.len(),
                shape.lse_len()
            )));
        }
        let (_, cfg, kernel) = self
            .kernels
            .iter()
            .find(|(key, _, _)| *key == (shape.head_dim, shape.causal))
            .expect("a kernel for every head dimension the check admits");
        let q_map = HostTensorMap::<Bf16, 4>::tiled(q, &shape.map(shape.heads, shape.seq_q, 64))?;
        let k_map = HostTensorMap::<Bf16, 4>::tiled(k, &shape.map(shape.kv_heads, shape.seq_k, cfg.bn()))?;
        let v_map = HostTensorMap::<Bf16, 4>::tiled(v, &shape.map(shape.kv_heads, shape.seq_k, cfg.bn()))?;
        let (h, s, d) = (shape.heads, shape.seq_q, shape.head_dim);
        let (ss, sh, sb) = match shape.layout {
            QkvLayout::Bhsd => (d, s * d, h * s * d),
            QkvLayout::Bshd => (h * d, d, s * h * d),
        };
        let tiles = cfg.tiles(shape.seq_q, shape.heads, shape.batch) as u32;
        let grid = match self.grid {
            AttentionGrid::Auto if !shape.causal => tiles.min(self.multiprocessors),
            AttentionGrid::Auto | AttentionGrid::PerTile => tiles,
            AttentionGrid::Persistent => tiles.min(self.multiprocessors),
            AttentionGrid::Ctas(n) => tiles.min(n.max(1)),
        };
        let launch = Launch::new((grid, 1, 1), cfg.threads()).shared(cfg.shared_bytes());
        let scale_log2 = shape.softmax_scale() * std::f32::consts::LOG2_E;
        let group = shape.heads / shape.kv_heads;
        kernel.launch(
            &launch,
            (&q_map, &k_map, &v_map, o, lse, shape.seq_q, shape.seq_k, shape.heads, shape.batch, group, scale_log2, ss, sh, sb),
        )
    }
}
