//! The 64-bit tcgen05 (Blackwell UMMA) shared-memory matrix descriptor.
//!
//! Field table (PTX ISA 9.0, section 9.7.16.4.1 "Shared memory descriptor", table 40,
//! <https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-shared-memory-descriptor>):
//!
//! | bits  | field                                                                  |
//! |-------|------------------------------------------------------------------------|
//! | 0–13  | `encode(matrix start address)`                                         |
//! | 16–29 | `encode(leading-dimension byte offset)`, or `encode(LBO address)` in absolute mode |
//! | 32–45 | `encode(stride-dimension byte offset)`                                 |
//! | 46–48 | fixed `0b001` (the descriptor version)                                 |
//! | 49–51 | matrix base offset                                                     |
//! | 52    | leading-dimension stride mode: 0 relative offset, 1 absolute address   |
//! | 53–60 | fixed 0                                                                |
//! | 61–63 | layout: 0 none, 1 128B with 32-byte atoms, 2 128B, 4 64B, 6 32B (3, 5, 7 invalid) |
//!
//! with `encode(x) = (x & 0x3FFFF) >> 4`; bits 14–15 and 30–31 are 0.
//!
//! Against the wgmma descriptor ([`SmemDesc`](super::SmemDesc)) the address, LBO, SBO and
//! base-offset fields sit where they did; what differs is the version bits, the LBO mode
//! bit and the 3-bit layout field at 61–63 (wgmma: 2 bits at 62–63 with codes 1 128B, 2
//! 64B, 3 32B). CUTLASS's `UMMA::SmemDescriptor` (NVIDIA/cutlass
//! include/cute/arch/mma_sm100_desc.hpp) has the same positions, with one difference in
//! wording: it declares the version as 2 bits at 46–47 (set to 1 by `make_umma_desc`) and
//! bit 48 unused, where the ISA has 3 bits holding `0b001`; both put a single 1 at bit 46.
//!
//! LBO and SBO mean what they mean for wgmma: the ISA's definitions for tcgen05 (K-major:
//! LBO the step to the next 16 bytes of K when unswizzled and unused when swizzled, SBO the
//! step to the next 8 rows; MN-major: LBO the step along K when unswizzled and to the next
//! swizzle row along M/N when swizzled, SBO the other one) are those of wgmma, and CUTLASS's
//! `make_umma_desc` (include/cute/atom/mma_traits_sm100.hpp) picks them from a CuTe layout
//! exactly as `make_gmma_desc` does; DeepGEMM's sm100 `make_umma_desc`
//! (deep_gemm/include/deep_gemm/common/sm100_utils.cuh) gives the same strides for its
//! K-first MN-major blocks, and writes 0 rather than 16 in the unused LBO of K-major
//! swizzled tiles. So a [`TileLayout`] gives a tcgen05 descriptor as it
//! gives a wgmma one ([`TileLayout::tcgen05_desc`]), for the four layouts it models (none,
//! 32B, 64B, 128B). The 128B layout with 32-byte atoms (`Swizzle<2,5,2>` in CuTe: atoms of
//! 128 bytes of M/N by 4 K-lines) exists for MN-major operands only, and the ISA allows a
//! transposed (MN-major) tf32 operand only in that layout and a transposed operand of any
//! other kind in every layout but it (section 9.7.16.4.2); `TileLayout` does not model it,
//! so such descriptors are built with [`Tcgen05SmemDesc::new`].
//!
//! The base offset is 0 when the swizzle pattern starts on its natural boundary (1024, 512,
//! 256 bytes for 128B, 64B, 32B), otherwise `(pattern start addr >> 7) & 7` (ISA).

use super::desc::{add_start, base_offset_of, common_fields, lbo_of, sbo_of, start_of, with_start};
use super::error::DescError;
use super::layout::TileLayout;
use super::swizzle::Swizzle;
use std::fmt;

// Start address, LBO, SBO and base offset sit where wgmma's descriptor has them
// (`desc::common_fields`); these are tcgen05's own.
const VERSION_SHIFT: u32 = 46;
const LBO_MODE_SHIFT: u32 = 52;
const LAYOUT_SHIFT: u32 = 61;
/// Bits that are always 0: 14–15, 30–31, 53–60.
pub(super) const ZERO_MASK: u64 = 0x3 << 14 | 0x3 << 30 | 0xFF << 53;

/// The 3-bit layout (swizzle) field of a tcgen05 shared-memory descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tcgen05Swizzle {
    /// No swizzle (code 0).
    None,
    /// 128-byte swizzle with 32-byte atomicity (code 1): MN-major operands only.
    B128Atom32,
    /// 128-byte swizzle (code 2).
    B128,
    /// 64-byte swizzle (code 4).
    B64,
    /// 32-byte swizzle (code 6).
    B32,
}

impl Tcgen05Swizzle {
    /// Every layout, in code order.
    pub const ALL: [Tcgen05Swizzle; 5] =
        [Tcgen05Swizzle::None, Tcgen05Swizzle::B128Atom32, Tcgen05Swizzle::B128, Tcgen05Swizzle::B64, Tcgen05Swizzle::B32];

    /// The value of descriptor bits 61–63: 0, 1, 2, 4 or 6.
    pub const fn code(self) -> u64 {
        match self {
            Tcgen05Swizzle::None => 0,
            Tcgen05Swizzle::B128Atom32 => 1,
            Tcgen05Swizzle::B128 => 2,
            Tcgen05Swizzle::B64 => 4,
            Tcgen05Swizzle::B32 => 6,
        }
    }

    /// The layout a 3-bit code names, or `None` for the invalid codes 3, 5 and 7 (and
    /// anything above 7).
    pub const fn from_code(code: u64) -> Option<Tcgen05Swizzle> {
        match code {
            0 => Some(Tcgen05Swizzle::None),
            1 => Some(Tcgen05Swizzle::B128Atom32),
            2 => Some(Tcgen05Swizzle::B128),
            4 => Some(Tcgen05Swizzle::B64),
            6 => Some(Tcgen05Swizzle::B32),
            _ => None,
        }
    }

    /// The same swizzle as the wgmma/TMA [`Swizzle`] names it.
    pub const fn from_swizzle(s: Swizzle) -> Tcgen05Swizzle {
        match s {
            Swizzle::None => Tcgen05Swizzle::None,
            Swizzle::B32 => Tcgen05Swizzle::B32,
            Swizzle::B64 => Tcgen05Swizzle::B64,
            Swizzle::B128 => Tcgen05Swizzle::B128,
        }
    }

    /// The [`Swizzle`] of the same address function, or `None` for
    /// [`B128Atom32`](Self::B128Atom32), which has no wgmma or TMA counterpart.
    pub const fn swizzle(self) -> Option<Swizzle> {
        match self {
            Tcgen05Swizzle::None => Some(Swizzle::None),
            Tcgen05Swizzle::B32 => Some(Swizzle::B32),
            Tcgen05Swizzle::B64 => Some(Swizzle::B64),
            Tcgen05Swizzle::B128 => Some(Swizzle::B128),
            Tcgen05Swizzle::B128Atom32 => None,
        }
    }

    /// Where the repeating pattern starts, in bytes: 1024 for both 128B layouts, 512 for
    /// 64B, 256 for 32B, 16 (the address granule) for none. A tile at a multiple of this
    /// has base offset 0.
    pub const fn base_alignment(self) -> u32 {
        match self {
            Tcgen05Swizzle::None => 16,
            Tcgen05Swizzle::B128Atom32 | Tcgen05Swizzle::B128 => 1024,
            Tcgen05Swizzle::B64 => 512,
            Tcgen05Swizzle::B32 => 256,
        }
    }
}

impl fmt::Display for Tcgen05Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tcgen05Swizzle::None => "no swizzle",
            Tcgen05Swizzle::B128Atom32 => "128B swizzle, 32B atoms",
            Tcgen05Swizzle::B128 => "128B swizzle",
            Tcgen05Swizzle::B64 => "64B swizzle",
            Tcgen05Swizzle::B32 => "32B swizzle",
        })
    }
}

/// How bits 16–29 of a tcgen05 descriptor are read (bit 52).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LboMode {
    /// A byte offset relative to the start address (0): the usual mode.
    #[default]
    Relative,
    /// An absolute shared-memory byte address (1).
    Absolute,
}

/// A tcgen05 shared-memory matrix descriptor (the `a-desc`/`b-desc` operand of
/// `tcgen05.mma`), held as its 64 bits. Built only from checked fields, so every value
/// has the version bits, zero reserved bits and a valid layout code.
///
/// ```
/// use ptxkit::descriptors::{LboMode, Tcgen05SmemDesc, Tcgen05Swizzle};
/// // K-major 128B-swizzled tile at 0x2000: LBO unused (16), SBO 1024 (8 rows of 128 B).
/// let d = Tcgen05SmemDesc::new(0x2000, 16, 1024, 0, LboMode::Relative, Tcgen05Swizzle::B128)?;
/// // 0x200 | 1 << 16 | 64 << 32 | version 1 << 46 | layout 2 << 61
/// assert_eq!(d.bits(), 0x4000_4040_0001_0200);
/// assert_eq!(Tcgen05SmemDesc::decode(d.bits())?, d);
/// println!("{d}");
/// // The next 32 bytes of K:
/// assert_eq!(d.add_start_offset(32)?.start_addr(), 0x2020);
/// assert!(Tcgen05SmemDesc::new(0x2008, 16, 1024, 0, LboMode::Relative, Tcgen05Swizzle::B128).is_err());
/// # Ok::<(), ptxkit::descriptors::DescError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tcgen05SmemDesc(u64);

impl Tcgen05SmemDesc {
    /// The fixed value of bits 46–48.
    pub const VERSION: u8 = 0b001;

    /// Packs a descriptor. `start_addr` is a CTA shared-memory address; `lbo` is a byte
    /// offset ([`LboMode::Relative`]) or a shared-memory byte address
    /// ([`LboMode::Absolute`]); `sbo` is a byte offset. All three must be multiples of 16
    /// and at most [`MAX_FIELD_BYTES`](super::MAX_FIELD_BYTES) (`0x3FFF0`); `base_offset` must be at most 7.
    pub const fn new(
        start_addr: u32,
        lbo: u32,
        sbo: u32,
        base_offset: u8,
        lbo_mode: LboMode,
        swizzle: Tcgen05Swizzle,
    ) -> Result<Tcgen05SmemDesc, DescError> {
        let common = match common_fields(start_addr, lbo, sbo, base_offset) {
            Ok(bits) => bits,
            Err(e) => return Err(e),
        };
        let mode = match lbo_mode {
            LboMode::Relative => 0,
            LboMode::Absolute => 1,
        };
        Ok(Tcgen05SmemDesc(common | (Self::VERSION as u64) << VERSION_SHIFT | mode << LBO_MODE_SHIFT | swizzle.code() << LAYOUT_SHIFT))
    }

    /// The descriptor whose 64 bits are `bits`, if they are one: bits 46–48 must hold
    /// `0b001`, bits 14–15, 30–31 and 53–60 must be 0, and the layout code must be valid.
    pub const fn decode(bits: u64) -> Result<Tcgen05SmemDesc, DescError> {
        let version = (bits >> VERSION_SHIFT) & 7;
        if version != Self::VERSION as u64 {
            return Err(DescError::Encoding { field: "version (bits 46-48)", value: version });
        }
        if bits & ZERO_MASK != 0 {
            return Err(DescError::Encoding { field: "zero bits 14-15, 30-31, 53-60", value: bits & ZERO_MASK });
        }
        if Tcgen05Swizzle::from_code(bits >> LAYOUT_SHIFT).is_none() {
            return Err(DescError::Encoding { field: "layout (bits 61-63)", value: bits >> LAYOUT_SHIFT });
        }
        Ok(Tcgen05SmemDesc(bits))
    }

    /// The 64 bits, as the `.b64` descriptor operand of `tcgen05.mma` takes them.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Low 32 bits (start address and LBO).
    pub const fn lo(self) -> u32 {
        self.0 as u32
    }

    /// High 32 bits (SBO, version, base offset, LBO mode, layout).
    pub const fn hi(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// The start address in bytes: bits 0–13, times 16.
    pub const fn start_addr(self) -> u32 {
        start_of(self.0)
    }

    /// The leading-dimension byte offset (or address, see [`lbo_mode`](Self::lbo_mode)):
    /// bits 16–29, times 16.
    pub const fn lbo(self) -> u32 {
        lbo_of(self.0)
    }

    /// The stride-dimension byte offset: bits 32–45, times 16.
    pub const fn sbo(self) -> u32 {
        sbo_of(self.0)
    }

    /// Bits 46–48: always [`VERSION`](Self::VERSION).
    pub const fn version(self) -> u8 {
        ((self.0 >> VERSION_SHIFT) & 7) as u8
    }

    /// The matrix base offset: bits 49–51.
    pub const fn base_offset(self) -> u8 {
        base_offset_of(self.0)
    }

    /// The leading-dimension stride mode: bit 52.
    pub const fn lbo_mode(self) -> LboMode {
        if (self.0 >> LBO_MODE_SHIFT) & 1 == 1 {
            LboMode::Absolute
        } else {
            LboMode::Relative
        }
    }

    /// The layout: bits 61–63.
    pub const fn swizzle(self) -> Tcgen05Swizzle {
        match Tcgen05Swizzle::from_code(self.0 >> LAYOUT_SHIFT) {
            Some(s) => s,
            // unreachable: every constructor checks the code
            None => Tcgen05Swizzle::None,
        }
    }

    /// The same descriptor with its start address replaced (checked as in [`new`](Self::new)).
    pub const fn with_start_addr(self, start_addr: u32) -> Result<Tcgen05SmemDesc, DescError> {
        match with_start(self.0, start_addr) {
            Ok(bits) => Ok(Tcgen05SmemDesc(bits)),
            Err(e) => Err(e),
        }
    }

    /// The same descriptor with `bytes` added to its start address (to step along K, see
    /// [`TileLayout::k_step_offset`]); `bytes` must be a multiple of 16 and the new address
    /// must fit the field, where adding to the raw bits would carry into bits 14–15.
    pub const fn add_start_offset(self, bytes: u32) -> Result<Tcgen05SmemDesc, DescError> {
        match add_start(self.0, bytes) {
            Ok(bits) => Ok(Tcgen05SmemDesc(bits)),
            Err(e) => Err(e),
        }
    }
}

impl fmt::Debug for Tcgen05SmemDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tcgen05SmemDesc")
            .field("bits", &format_args!("{:#018x}", self.0))
            .field("start_addr", &format_args!("{:#x}", self.start_addr()))
            .field("lbo", &self.lbo())
            .field("sbo", &self.sbo())
            .field("base_offset", &self.base_offset())
            .field("lbo_mode", &self.lbo_mode())
            .field("swizzle", &self.swizzle())
            .finish()
    }
}

impl fmt::Display for Tcgen05SmemDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#018x} (start {:#x}, {} {}, SBO {}, base offset {}, {})",
            self.0,
            self.start_addr(),
            match self.lbo_mode() {
                LboMode::Relative => "LBO",
                LboMode::Absolute => "LBO address",
            },
            self.lbo(),
            self.sbo(),
            self.base_offset(),
            self.swizzle()
        )
    }
}

impl TileLayout {
    /// The tcgen05 descriptor of this tile placed at shared address `base_addr`: the
    /// start address, LBO and SBO of [`desc`](Self::desc) (checked the same way), base
    /// offset 0, relative LBO, and the tile's swizzle as a tcgen05 layout code.
    ///
    /// ```
    /// use ptxkit::descriptors::{ElemBytes, Major, Swizzle, TileLayout};
    /// let t = TileLayout::new_tcgen05(ElemBytes::B2, 128, 64, Major::K, Swizzle::B128)?;
    /// let d = t.tcgen05_desc(0x2000)?;
    /// assert_eq!((d.start_addr(), d.lbo(), d.sbo()), (0x2000, 16, 1024));
    /// assert_eq!(t.tcgen05_k_desc(0x2000, 3)?.start_addr(), 0x2000 + 96);
    /// # Ok::<(), ptxkit::descriptors::DescError>(())
    /// ```
    pub const fn tcgen05_desc(&self, base_addr: u32) -> Result<Tcgen05SmemDesc, DescError> {
        let d = match self.desc(base_addr) {
            Ok(d) => d,
            Err(e) => return Err(e),
        };
        Tcgen05SmemDesc::new(d.start_addr(), d.lbo(), d.sbo(), 0, LboMode::Relative, Tcgen05Swizzle::from_swizzle(self.swizzle()))
    }

    /// The tcgen05 descriptor of the `k`-th 32-byte K-slice (one dense `tcgen05.mma`):
    /// [`tcgen05_desc`](Self::tcgen05_desc) advanced by [`k_step_offset`](Self::k_step_offset).
    pub const fn tcgen05_k_desc(&self, base_addr: u32, k: u32) -> Result<Tcgen05SmemDesc, DescError> {
        let d = match self.tcgen05_desc(base_addr) {
            Ok(d) => d,
            Err(e) => return Err(e),
        };
        match self.k_step_offset(k) {
            Ok(off) => d.add_start_offset(off),
            Err(e) => Err(e),
        }
    }
}
