//! wgmma and tcgen05.mma operands in shared memory: the descriptor register of a tile laid
//! out by a [`TileLayout`], and the descriptor of its k-th K-slice.
//!
//! The layout fixes everything in the descriptor but the start address, which is known
//! only when the kernel runs: [`DescriptorOps::gmma_desc`] (wgmma) and [`DescriptorOps::tcgen05_desc`]
//! (tcgen05.mma, whose descriptor differs in its version, LBO-mode and layout bits) or
//! `(addr & 0x3FFFF) >> 4` into the rest, baked in as an immediate. The tile must start at
//! an address aligned to [`TileLayout::base_alignment`] (1024 bytes for a 128B swizzle): a
//! shared array or the dynamic shared memory declared with that alignment is. Both
//! descriptors keep the start address in bits 0–13, so one K step serves both
//! ([`DescriptorOps::gmma_desc_k`], [`DescriptorOps::tcgen05_desc_k`]).
//!
//! ```
//! use ptxkit::descriptors::{ElemBytes, Major, Swizzle, TileLayout};
//! use ptxkit::prelude::*;
//!
//! let tile = TileLayout::new(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128)?;
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("descs", |k, (out,): (GlobalPtr<B64>,)| {
//!     let a = k.dynamic_shared_aligned::<Bf16>(1024);
//!     let d0 = k.gmma_desc(&tile, a);
//!     let d3 = k.gmma_desc_k(d0, &tile, 3); // the fourth K-slice of 16 elements
//!     ptx!(k, "st.global.b64", out.offset(0), d0);
//!     ptx!(k, "st.global.b64", out.offset(1), d3);
//! })
//! .unwrap();
//! let text = m.to_ptx().unwrap();
//! assert!(text.contains(&format!("{}", tile.desc(0)?.bits())));
//!
//! // The tcgen05 descriptor of a 128-row tile, and its K-slices 32 bytes apart.
//! let tile = TileLayout::new_tcgen05(ElemBytes::B2, 128, 64, Major::K, Swizzle::B128)?;
//! let mut m = Module::new(Target::SM_100A);
//! m.kernel("umma_descs", |k, (out,): (GlobalPtr<B64>,)| {
//!     let a = k.dynamic_shared_aligned::<Bf16>(1024);
//!     let d0 = k.tcgen05_desc(&tile, a);
//!     let d1 = k.tcgen05_desc_k(d0, &tile, 1);
//!     ptx!(k, "st.global.b64", out.offset(0), d1);
//! })
//! .unwrap();
//! let text = m.to_ptx().unwrap();
//! assert!(text.contains(&format!("{}", tile.tcgen05_desc(0)?.bits())));
//! assert!(text.contains("add.s64") && text.contains(", 2;")); // 32 bytes: 2 in the address field
//! # Ok::<(), ptxkit::descriptors::DescError>(())
//! ```

use super::sealed::Sealed;
use crate::builder::Kernel;
use crate::descriptors::TileLayout;
use crate::ops::{m, InWindow, StateSpace};
use crate::ptx;
use crate::regs::Ptr;
use crate::types::{DataType, Gdesc, Reg, U32};

/// Shared-memory matrix descriptors of wgmma and tcgen05.mma operands, as [`Kernel`] methods
/// (in scope with `use ptxkit::prelude::*`).
pub trait DescriptorOps: Sealed {
    /// The descriptor of the tile `layout` describes, starting at `tile`.
    fn gmma_desc<S, T>(&mut self, layout: &TileLayout, tile: Ptr<S, T>) -> Reg<Gdesc>
    where
        S: StateSpace<AddrT = U32> + InWindow<m::SharedCta>,
        T: DataType;

    /// The descriptor of the `k`-th K-slice (what one wgmma consumes) of the tile whose
    /// descriptor is `desc`: its start address moved on by `layout.k_step_offset(k)`.
    fn gmma_desc_k(&mut self, desc: Reg<Gdesc>, layout: &TileLayout, k: u32) -> Reg<Gdesc>;

    /// The tcgen05.mma shared-memory descriptor ([`TileLayout::tcgen05_desc`]) of the tile
    /// `layout` describes, starting at `tile` (base offset 0: the tile must start on its
    /// swizzle pattern's boundary).
    fn tcgen05_desc<S, T>(&mut self, layout: &TileLayout, tile: Ptr<S, T>) -> Reg<Gdesc>
    where
        S: StateSpace<AddrT = U32> + InWindow<m::SharedCta>,
        T: DataType;

    /// The tcgen05 descriptor of the `k`-th K-slice (what one dense `tcgen05.mma` reads: 32
    /// bytes of each row) of the tile whose descriptor is `desc`, as
    /// [`TileLayout::tcgen05_k_desc`] computes it on the host.
    fn tcgen05_desc_k(&mut self, desc: Reg<Gdesc>, layout: &TileLayout, k: u32) -> Reg<Gdesc>;
}

impl DescriptorOps for Kernel {
    #[track_caller]
    fn gmma_desc<S, T>(&mut self, layout: &TileLayout, tile: Ptr<S, T>) -> Reg<Gdesc>
    where
        S: StateSpace<AddrT = U32> + InWindow<m::SharedCta>,
        T: DataType,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let base = match layout.desc(0) {
            Ok(d) => d.bits(),
            Err(e) => {
                self.invalid(format!("wgmma tile: {e}"));
                0
            }
        };
        desc_at(self, base, tile)
    }

    #[track_caller]
    fn gmma_desc_k(&mut self, desc: Reg<Gdesc>, layout: &TileLayout, k: u32) -> Reg<Gdesc> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        desc_step(self, desc, layout, k, "wgmma")
    }

    #[track_caller]
    fn tcgen05_desc<S, T>(&mut self, layout: &TileLayout, tile: Ptr<S, T>) -> Reg<Gdesc>
    where
        S: StateSpace<AddrT = U32> + InWindow<m::SharedCta>,
        T: DataType,
    {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        let base = match layout.tcgen05_desc(0) {
            Ok(d) => d.bits(),
            Err(e) => {
                self.invalid(format!("tcgen05 tile: {e}"));
                0
            }
        };
        desc_at(self, base, tile)
    }

    #[track_caller]
    fn tcgen05_desc_k(&mut self, desc: Reg<Gdesc>, layout: &TileLayout, k: u32) -> Reg<Gdesc> {
        let _at = crate::core::kernel::HelperScope::enter(self.line_info);
        desc_step(self, desc, layout, k, "tcgen05")
    }
}

/// `base | (addr(tile) & 0x3FFFF) >> 4`.
#[track_caller]
fn desc_at<S, T>(k: &mut Kernel, base: u64, tile: Ptr<S, T>) -> Reg<Gdesc>
where
    S: StateSpace<AddrT = U32> + InWindow<m::SharedCta>,
    T: DataType,
{
    let addr = tile.addr(k);
    let window = ptx!(k, "and.b32", addr, 0x3_FFFFu32);
    let field = ptx!(k, "shr.u32", window, 4u32);
    let wide = ptx!(k, "cvt.u64.u32", field);
    ptx!(k, "or.b64", wide, base).bitcast()
}

/// The descriptor `desc` moved on to its `k`-th K-slice.
#[track_caller]
fn desc_step(kb: &mut Kernel, desc: Reg<Gdesc>, layout: &TileLayout, k: u32, what: &str) -> Reg<Gdesc> {
    match layout.k_step_offset(k) {
        Ok(0) => desc,
        Ok(bytes) => ptx!(kb, "add.s64", desc.bitcast::<crate::types::S64>(), (bytes >> 4) as i64).bitcast(),
        Err(e) => {
            kb.invalid(format!("{what} tile: {e}"));
            desc
        }
    }
}
