//! What a matrix operand in shared memory is, below the descriptors and their errors: its
//! element width and which dimension is contiguous.

use std::fmt;

/// Bytes one dense wgmma consumes along K.
pub const K_SLICE_BYTES: u32 = 32;
/// The shared window a descriptor can address: its start field holds address bits 4–17.
pub const SHARED_WINDOW: u32 = 0x4_0000;

/// Element width of a wgmma operand in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemBytes {
    /// 8-bit: e4m3, e5m2, s8, u8.
    B1,
    /// 16-bit: f16, bf16.
    B2,
    /// 32-bit: tf32.
    B4,
}

impl ElemBytes {
    /// Every width, narrowest first.
    pub const ALL: [ElemBytes; 3] = [ElemBytes::B1, ElemBytes::B2, ElemBytes::B4];

    /// The width in bytes.
    pub const fn bytes(self) -> u32 {
        match self {
            ElemBytes::B1 => 1,
            ElemBytes::B2 => 2,
            ElemBytes::B4 => 4,
        }
    }

    /// Elements of one wgmma K-slice (the instruction's K): 32, 16 or 8.
    pub const fn k_slice(self) -> u32 {
        K_SLICE_BYTES / self.bytes()
    }
}

/// Which dimension of an operand tile is contiguous in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// K contiguous (`imm-trans` 0): A row-major, B column-major.
    K,
    /// M or N contiguous (`imm-trans` 1, f16/bf16 only).
    MN,
}

impl fmt::Display for Major {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Major::K => "K-major",
            Major::MN => "MN-major",
        })
    }
}
