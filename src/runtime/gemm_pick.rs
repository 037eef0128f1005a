//! [`Pick`]: what [`AutoGemm`](super::AutoGemm) runs a product on, chosen by its heuristic
//! or kept by tuning.

use crate::kernels::gemm::{hopper, skinny};

/// What [`AutoGemm`](super::AutoGemm) runs a product on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The skinny kernel for this many rows ([`SkinnyGemm::plan`](super::SkinnyGemm::plan) says how it is launched).
    Skinny(skinny::Config),
    /// The Hopper GEMM built for this configuration.
    Tiled(hopper::Config),
}

impl std::fmt::Display for Pick {
    /// `skinny m32` (rows of its kernel) or the tile, `128×128+sk8` with stream-K.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Pick::Skinny(c) => write!(f, "skinny m{}", c.max_m()),
            Pick::Tiled(c) if c.stream_k => write!(f, "{}×{}+sk{}", c.bm(), c.bn, c.split),
            Pick::Tiled(c) => write!(f, "{}×{}", c.bm(), c.bn),
        }
    }
}
