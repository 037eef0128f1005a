//! Launch configuration: [`Dim3`] dimensions and [`Launch`], which adds dynamic shared
//! memory, clusters and the stream, and validates them before the driver sees them.

use super::{CudaStream, RuntimeError};
use std::sync::Arc;

/// Three launch dimensions; `8`, `(8, 4)` and `(8, 4, 2)` convert into one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    /// `x * y * z`.
    pub fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}
impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3 { x, y, z: 1 }
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3 { x, y, z }
    }
}

/// A launch configuration: grid and block dimensions, dynamic shared memory, optional
/// cluster dimensions, and the stream (by default the [`Gpu`](super::Gpu)'s).
///
/// ```
/// use ptxkit::runtime::Launch;
/// let cfg = Launch::new((64, 2), 256).shared(96 * 1024).cluster((2, 1, 1));
/// assert_eq!(cfg.grid.volume(), 128);
/// assert_eq!(Launch::cover(1000, 256).grid.x, 4);
/// ```
#[derive(Clone, Debug)]
pub struct Launch {
    pub grid: Dim3,
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Blocks per cluster (compute capability 9.0 and newer); each grid dimension must be
    /// a multiple of the cluster's.
    pub cluster: Option<Dim3>,
    /// `None`: the stream of the [`Gpu`](super::Gpu) that loaded the module.
    pub stream: Option<Arc<CudaStream>>,
}

impl Launch {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Launch {
        Launch { grid: grid.into(), block: block.into(), shared_bytes: 0, cluster: None, stream: None }
    }
    /// A 1-D launch of `block`-thread blocks covering `n` threads.
    pub fn cover(n: u32, block: u32) -> Launch {
        Launch::new(n.div_ceil(block.max(1)), block)
    }
    /// Sets the dynamic shared memory per block, in bytes.
    pub fn shared(mut self, bytes: u32) -> Launch {
        self.shared_bytes = bytes;
        self
    }
    /// Sets the cluster dimensions.
    pub fn cluster(mut self, dims: impl Into<Dim3>) -> Launch {
        self.cluster = Some(dims.into());
        self
    }
    /// Launches on `stream` instead of the [`Gpu`](super::Gpu)'s.
    pub fn on(mut self, stream: &Arc<CudaStream>) -> Launch {
        self.stream = Some(stream.clone());
        self
    }

    /// Refuses zero dimensions, blocks of more than 1024 threads, and grids that clusters
    /// do not tile.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let bad = |what: String| Err(RuntimeError::Invalid(what));
        if self.grid.volume() == 0 || self.block.volume() == 0 {
            return bad(format!("launch dimensions must be positive: grid {:?}, block {:?}", self.grid, self.block));
        }
        if self.block.volume() > 1024 {
            return bad(format!("a block of {} threads exceeds 1024", self.block.volume()));
        }
        if let Some(c) = self.cluster {
            if c.volume() == 0 {
                return bad(format!("cluster dimensions must be positive: {c:?}"));
            }
            if self.grid.x % c.x != 0 || self.grid.y % c.y != 0 || self.grid.z % c.z != 0 {
                return bad(format!("grid {:?} is not a whole number of clusters {c:?}", self.grid));
            }
        }
        Ok(())
    }
}
