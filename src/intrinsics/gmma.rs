//! wgmma operands in shared memory: the descriptor register of a tile laid out by a
//! [`TileLayout`], and the descriptor of its k-th K-slice.
//!
//! The layout fixes everything in the descriptor but the start address, which is known
//! only when the kernel runs: [`Kernel::gmma_desc`] ors `(addr & 0x3FFFF) >> 4` into the
//! rest, baked in as an immediate. The tile must start at an address aligned to
//! [`TileLayout::base_alignment`] (1024 bytes for a 128B swizzle): a shared array or the
//! dynamic shared memory declared with that alignment is.
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
//! # Ok::<(), ptxkit::descriptors::DescError>(())
//! ```

use crate::builder::Kernel;
use crate::descriptors::{SmemDesc, TileLayout};
use crate::ops::{m, InWindow, StateSpace};
use crate::ptx;
use crate::regs::Ptr;
use crate::types::{DataType, Gdesc, Reg, U32};

impl Kernel {
    /// The descriptor of the tile `layout` describes, starting at `tile`.
    pub fn gmma_desc<S, T>(&mut self, layout: &TileLayout, tile: Ptr<S, T>) -> Reg<Gdesc>
    where
        S: StateSpace<AddrT = U32> + InWindow<m::SharedCta>,
        T: DataType,
    {
        let base = match layout.desc(0) {
            Ok(d) => d,
            Err(e) => {
                self.invalid(format!("wgmma tile: {e}"));
                SmemDesc::from_bits(0)
            }
        };
        let addr = tile.addr(self);
        let window = ptx!(self, "and.b32", addr, 0x3_FFFFu32);
        let field = ptx!(self, "shr.u32", window, 4u32);
        let wide = ptx!(self, "cvt.u64.u32", field);
        ptx!(self, "or.b64", wide, base.bits()).bitcast()
    }

    /// The descriptor of the `k`-th K-slice (what one wgmma consumes) of the tile whose
    /// descriptor is `desc`: its start address moved on by `layout.k_step_offset(k)`.
    pub fn gmma_desc_k(&mut self, desc: Reg<Gdesc>, layout: &TileLayout, k: u32) -> Reg<Gdesc> {
        match layout.k_step_offset(k) {
            Ok(0) => desc,
            Ok(bytes) => ptx!(self, "add.s64", desc.bitcast::<crate::types::S64>(), (bytes >> 4) as i64).bitcast(),
            Err(e) => {
                self.invalid(format!("wgmma tile: {e}"));
                desc
            }
        }
    }
}
