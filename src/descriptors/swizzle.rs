//! Shared-memory swizzle modes: the XOR that wgmma and TMA apply to byte addresses.
//!
//! A swizzle mode permutes the 16-byte chunks of each row of a swizzle atom (8 rows of
//! `width` bytes): chunk bits `[4..7)` of an address are XORed with row bits `[7..10)`,
//! as many of them as the mode has (3 for 128B, 2 for 64B, 1 for 32B). In CuTe notation
//! these are `Swizzle<3,4,3>`, `Swizzle<2,4,3>` and `Swizzle<1,4,3>` (NVIDIA/cutlass,
//! include/cute/swizzle.hpp: `apply(o) = o ^ ((o & yyy_msk) >> S)` with
//! `yyy_msk = ((1 << B) - 1) << (M + S)`, so `B = 3, M = 4, S = 3` gives
//! `o ^ ((o & 0x380) >> 3)` = `o ^ ((o >> 3) & 0x70)`); the PTX ISA names the same
//! functions for the same modes in its wgmma "Canonical Layouts" table (section
//! 9.7.15.5.1.2.1.3, <https://docs.nvidia.com/cuda/parallel-thread-execution/>), and
//! CUTLASS's `make_gmma_desc` maps `Swizzle<B,4,3>` to the descriptor's layout type
//! (include/cute/atom/mma_traits_sm90_gmma.hpp, `layout_type`: B = 1, 2, 3 give 32B, 64B,
//! 128B).
//!
//! The hardware applies the XOR to the absolute shared address, so a tile whose base is a
//! multiple of [`Swizzle::period`] sees the same permutation when the XOR is applied to
//! tile-relative offsets; that is why a swizzled tile's base must be 1024-, 512- or
//! 256-byte aligned (PTX ISA, "Matrix Descriptor Format": the repeating pattern starts on
//! a 1024-, 512- or 256-byte boundary for 128B, 64B and 32B).

use std::fmt;

/// A shared-memory swizzle mode, as the wgmma descriptor and TMA name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// No swizzle: the "interleaved" layout of 8×16-byte core matrices.
    None,
    /// 32-byte swizzle, `Swizzle<1,4,3>`.
    B32,
    /// 64-byte swizzle, `Swizzle<2,4,3>`.
    B64,
    /// 128-byte swizzle, `Swizzle<3,4,3>`.
    B128,
}

impl Swizzle {
    /// Every mode, narrowest first.
    pub const ALL: [Swizzle; 4] = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128];

    /// Width in bytes of one row of a swizzle atom: 32, 64 or 128; 16 (one core-matrix
    /// row) for [`Swizzle::None`].
    pub const fn bytes(self) -> u32 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// Number of address bits the XOR takes from the row (0 to 3).
    pub const fn bits(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }

    /// Bytes of one swizzle atom, 8 rows of [`bytes`](Self::bytes): 256, 512, 1024; 128 (a
    /// core matrix) for [`Swizzle::None`]. The XOR pattern repeats every `period` bytes:
    /// `apply(o + period) == apply(o) + period`.
    pub const fn period(self) -> u32 {
        8 * self.bytes()
    }

    /// Alignment, in bytes, that a tile's shared base address needs so that its
    /// descriptor's matrix base offset is 0: the period for swizzled modes (PTX ISA,
    /// "Matrix Descriptor Format"), 16 (the descriptor's address granule) for none.
    pub const fn base_alignment(self) -> u32 {
        match self {
            Swizzle::None => 16,
            _ => self.period(),
        }
    }

    /// The swizzled byte offset (or address) of the unswizzled byte offset `o`:
    /// `o ^ ((o >> 3) & mask)` with mask `0x70` (128B), `0x30` (64B), `0x10` (32B), `0`
    /// (none). Bits below 4 (within a 16-byte chunk) and from 7 up are never changed.
    pub const fn apply(self, o: u32) -> u32 {
        let mask = ((1u32 << self.bits()) - 1) << 4;
        o ^ ((o >> 3) & mask)
    }

    /// The 2-bit value of descriptor bits 62–63: 0 none, 1 128B, 2 64B, 3 32B (PTX ISA,
    /// "Matrix Descriptor Format"; CUTLASS `GMMA::LayoutType`, cute/arch/mma_sm90_desc.hpp).
    pub const fn desc_code(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B128 => 1,
            Swizzle::B64 => 2,
            Swizzle::B32 => 3,
        }
    }

    /// The value of the driver's `CUtensorMapSwizzle` for this mode: 0 none, 1 32B, 2 64B,
    /// 3 128B (`CU_TENSOR_MAP_SWIZZLE_*`, CUDA Driver API "Tensor Map Object Management").
    /// A TMA copy writes a swizzled box the way [`apply`](Self::apply) describes, relative
    /// to a base aligned to the [`period`](Self::period).
    pub const fn tma_code(self) -> u32 {
        self.bits()
    }

    /// The mode a 2-bit descriptor code names; only the low two bits of `code` are read.
    pub const fn from_desc_code(code: u64) -> Swizzle {
        match code & 3 {
            0 => Swizzle::None,
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            _ => Swizzle::B32,
        }
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Swizzle::None => f.write_str("no swizzle"),
            s => write!(f, "{}B swizzle", s.bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CuTe's `Swizzle<B,M,S>::apply`, written from its definition with M = 4, S = 3.
    fn cute_swizzle(b: u32, o: u32) -> u32 {
        let yyy = ((1u32 << b) - 1) << (4 + 3);
        o ^ ((o & yyy) >> 3)
    }

    #[test]
    fn apply_matches_the_cute_definition_and_the_masks() {
        for o in 0..(1u32 << 14) {
            assert_eq!(Swizzle::B128.apply(o), cute_swizzle(3, o), "128B at {o:#x}");
            assert_eq!(Swizzle::B64.apply(o), cute_swizzle(2, o), "64B at {o:#x}");
            assert_eq!(Swizzle::B32.apply(o), cute_swizzle(1, o), "32B at {o:#x}");
            assert_eq!(Swizzle::B128.apply(o), o ^ ((o >> 3) & 0x70));
            assert_eq!(Swizzle::B64.apply(o), o ^ ((o >> 3) & 0x30));
            assert_eq!(Swizzle::B32.apply(o), o ^ ((o >> 3) & 0x10));
            assert_eq!(Swizzle::None.apply(o), o);
        }
    }

    #[test]
    fn hand_computed_values() {
        // row 1 of a 128B atom, chunk 0 -> chunk 1; row 7 chunk 2 -> chunk 5
        assert_eq!(Swizzle::B128.apply(128), 128 + 16);
        assert_eq!(Swizzle::B128.apply(7 * 128 + 2 * 16 + 3), 7 * 128 + 5 * 16 + 3);
        // 64B: address 0x180 has row bits 7..9 = 0b011, two of which are used
        assert_eq!(Swizzle::B64.apply(0x180), 0x180 | 0x30);
        assert_eq!(Swizzle::B64.apply(0x200), 0x200); // bit 9 is past the 64B mask
                                                      // 32B: only bit 7 reaches bit 4
        assert_eq!(Swizzle::B32.apply(0x80), 0x90);
        assert_eq!(Swizzle::B32.apply(0x100), 0x100);
    }

    #[test]
    fn involution_period_and_fixed_bits() {
        for s in Swizzle::ALL {
            let p = s.period();
            for o in 0..4096u32 {
                let a = s.apply(o);
                assert_eq!(s.apply(a), o, "{s} is its own inverse");
                assert_eq!(a & !0x70, o & !0x70, "{s} changes only bits 4..7");
                assert_eq!(s.apply(o + p), a + p, "{s} repeats every {p} bytes");
            }
            if s != Swizzle::None {
                // and no shorter power of two is a period
                let h = p / 2;
                assert!((0..4096u32).any(|o| s.apply(o + h) != s.apply(o) + h), "{s}: {h} is not a period");
            }
        }
    }

    #[test]
    fn widths_periods_alignment_and_codes() {
        let got: Vec<_> = Swizzle::ALL.iter().map(|s| (s.bytes(), s.period(), s.base_alignment(), s.desc_code())).collect();
        assert_eq!(got, [(16, 128, 16, 0), (32, 256, 256, 3), (64, 512, 512, 2), (128, 1024, 1024, 1)]);
        for s in Swizzle::ALL {
            assert_eq!(Swizzle::from_desc_code(s.desc_code()), s);
        }
        assert_eq!(Swizzle::B128.to_string(), "128B swizzle");
        assert_eq!(Swizzle::None.to_string(), "no swizzle");
    }
}
