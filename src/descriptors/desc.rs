//! The 64-bit wgmma shared-memory matrix descriptor.
//!
//! Field table (PTX ISA, section 9.7.15.5.1.2.2 "Matrix Descriptor Format",
//! <https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor>;
//! the same positions are the bitfield of CUTLASS's `GmmaDescriptor`, NVIDIA/cutlass
//! include/cute/arch/mma_sm90_desc.hpp):
//!
//! | bits  | field                                                        |
//! |-------|--------------------------------------------------------------|
//! | 0–13  | `encode(matrix start address)`                               |
//! | 16–29 | `encode(leading-dimension byte offset)` (LBO)                |
//! | 32–45 | `encode(stride-dimension byte offset)` (SBO)                 |
//! | 49–51 | matrix base offset (0 when the pattern starts aligned)       |
//! | 62–63 | swizzle: 0 none, 1 128B, 2 64B, 3 32B                        |
//!
//! with `encode(x) = (x & 0x3FFFF) >> 4`; bits 14–15, 30–31, 46–48 and 52–61 are 0.
//!
//! The base offset is 0 when the swizzle pattern starts on its natural boundary (1024,
//! 512, 256 bytes for 128B, 64B, 32B), otherwise `(pattern start addr >> 7) & 7` (PTX
//! ISA). The ISA calls it valid for every mode but no-swizzle; CUTLASS's comment says
//! 128B and 64B only, and CUTLASS itself always writes 0. [`TileLayout`](super::TileLayout)
//! requires aligned bases and always writes 0 too.
//! Here an input that `encode` would silently truncate is an error instead: an address or
//! offset that is not a multiple of 16 or does not fit the 14-bit field after `>> 4`, and
//! a base offset above 7.

use super::error::DescError;
use super::swizzle::Swizzle;
use std::fmt;

const FIELD14: u64 = 0x3FFF;
/// The largest byte value a 14-bit `encode`d field holds: `0x3FFF << 4`.
pub const MAX_FIELD_BYTES: u32 = 0x3FFF << 4;

// The fields wgmma's and tcgen05's shared-memory descriptors have in common, at the same
// bits: start address, LBO, SBO (14 bits of 16-byte units each) and the base offset.
const START_SHIFT: u32 = 0;
const LBO_SHIFT: u32 = 16;
const SBO_SHIFT: u32 = 32;
const BASE_OFFSET_SHIFT: u32 = 49;
const SWIZZLE_SHIFT: u32 = 62;

/// The common fields packed: each checked, named in errors as [`SmemDesc`]'s constants.
pub(super) const fn common_fields(start_addr: u32, lbo: u32, sbo: u32, base_offset: u8) -> Result<u64, DescError> {
    let start = match encode14(SmemDesc::START, start_addr) {
        Ok(v) => v,
        Err(e) => return Err(e),
    };
    let lbo = match encode14(SmemDesc::LBO, lbo) {
        Ok(v) => v,
        Err(e) => return Err(e),
    };
    let sbo = match encode14(SmemDesc::SBO, sbo) {
        Ok(v) => v,
        Err(e) => return Err(e),
    };
    if base_offset > 7 {
        return Err(DescError::OutOfRange { field: SmemDesc::BASE_OFFSET, value: base_offset as u64, max: 7 });
    }
    Ok(start << START_SHIFT | lbo << LBO_SHIFT | sbo << SBO_SHIFT | (base_offset as u64) << BASE_OFFSET_SHIFT)
}

/// The start address, LBO and SBO of `bits`, in bytes, and its base offset.
pub(super) const fn start_of(bits: u64) -> u32 {
    (((bits >> START_SHIFT) & FIELD14) << 4) as u32
}
pub(super) const fn lbo_of(bits: u64) -> u32 {
    (((bits >> LBO_SHIFT) & FIELD14) << 4) as u32
}
pub(super) const fn sbo_of(bits: u64) -> u32 {
    (((bits >> SBO_SHIFT) & FIELD14) << 4) as u32
}
pub(super) const fn base_offset_of(bits: u64) -> u8 {
    ((bits >> BASE_OFFSET_SHIFT) & 7) as u8
}

/// `bits` with the start address replaced (checked as the constructors check it).
pub(super) const fn with_start(bits: u64, start_addr: u32) -> Result<u64, DescError> {
    match encode14(SmemDesc::START, start_addr) {
        Ok(v) => Ok((bits & !(FIELD14 << START_SHIFT)) | v << START_SHIFT),
        Err(e) => Err(e),
    }
}

/// `bits` with `bytes` added to the start address: a multiple of 16, the sum inside the
/// field (adding to the raw bits would carry into the reserved bits 14–15 without a word).
pub(super) const fn add_start(bits: u64, bytes: u32) -> Result<u64, DescError> {
    if !bytes.is_multiple_of(16) {
        return Err(DescError::Misaligned { field: "start-address offset", value: bytes as u64, align: 16 });
    }
    let sum = start_of(bits) as u64 + bytes as u64;
    if sum > MAX_FIELD_BYTES as u64 {
        return Err(DescError::OutOfRange { field: SmemDesc::START, value: sum, max: MAX_FIELD_BYTES as u64 });
    }
    with_start(bits, sum as u32)
}

/// A wgmma shared-memory matrix descriptor (the `a-desc`/`b-desc` operand of
/// `wgmma.mma_async`), held as its 64 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SmemDesc(u64);

/// `Ok(encode(value))` for a byte quantity of a 14-bit field, or the error naming it.
pub(super) const fn encode14(field: &'static str, value: u32) -> Result<u64, DescError> {
    if !value.is_multiple_of(16) {
        Err(DescError::Misaligned { field, value: value as u64, align: 16 })
    } else if value > MAX_FIELD_BYTES {
        Err(DescError::OutOfRange { field, value: value as u64, max: MAX_FIELD_BYTES as u64 })
    } else {
        Ok((value >> 4) as u64)
    }
}

impl SmemDesc {
    /// Name of the start-address field in errors.
    pub const START: &'static str = "start address";
    /// Name of the leading-dimension byte offset in errors.
    pub const LBO: &'static str = "leading-dimension byte offset";
    /// Name of the stride-dimension byte offset in errors.
    pub const SBO: &'static str = "stride-dimension byte offset";
    /// Name of the matrix base offset in errors.
    pub const BASE_OFFSET: &'static str = "matrix base offset";

    /// Packs a descriptor. `start_addr` is a CTA shared-memory address (the `.shared`
    /// window, as `cvta.to.shared` or a `.shared` symbol gives it); `lbo` and `sbo` are in
    /// bytes; all three must be multiples of 16 and at most [`MAX_FIELD_BYTES`]
    /// (`0x3FFF0`); `base_offset` must be at most 7.
    pub const fn new(start_addr: u32, lbo: u32, sbo: u32, base_offset: u8, swizzle: Swizzle) -> Result<SmemDesc, DescError> {
        match common_fields(start_addr, lbo, sbo, base_offset) {
            Ok(bits) => Ok(SmemDesc(bits | swizzle.desc_code() << SWIZZLE_SHIFT)),
            Err(e) => Err(e),
        }
    }

    /// The descriptor whose 64 bits are `bits`, unchecked (reserved bits are kept).
    pub const fn from_bits(bits: u64) -> SmemDesc {
        SmemDesc(bits)
    }

    /// The 64 bits, as the `.b64` operand of `wgmma.mma_async` takes them.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Low 32 bits (start address and LBO).
    pub const fn lo(self) -> u32 {
        self.0 as u32
    }

    /// High 32 bits (SBO, base offset, swizzle).
    pub const fn hi(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// The start address in bytes: bits 0–13, times 16.
    pub const fn start_addr(self) -> u32 {
        start_of(self.0)
    }

    /// The leading-dimension byte offset: bits 16–29, times 16.
    pub const fn lbo(self) -> u32 {
        lbo_of(self.0)
    }

    /// The stride-dimension byte offset: bits 32–45, times 16.
    pub const fn sbo(self) -> u32 {
        sbo_of(self.0)
    }

    /// The matrix base offset: bits 49–51.
    pub const fn base_offset(self) -> u8 {
        base_offset_of(self.0)
    }

    /// The swizzle mode: bits 62–63.
    pub const fn swizzle(self) -> Swizzle {
        Swizzle::from_desc_code(self.0 >> SWIZZLE_SHIFT)
    }

    /// The same descriptor with its start address replaced (checked as in [`new`](Self::new)).
    pub const fn with_start_addr(self, start_addr: u32) -> Result<SmemDesc, DescError> {
        match with_start(self.0, start_addr) {
            Ok(bits) => Ok(SmemDesc(bits)),
            Err(e) => Err(e),
        }
    }

    /// The same descriptor with `bytes` added to its start address: what a kernel does to
    /// step along K (see `TileLayout::k_step_offset`). `bytes` must be a multiple of 16 and
    /// the new address must still fit the field; adding to the raw 64 bits instead would
    /// carry into the reserved bits 14–15 without a word.
    pub const fn add_start_offset(self, bytes: u32) -> Result<SmemDesc, DescError> {
        match add_start(self.0, bytes) {
            Ok(bits) => Ok(SmemDesc(bits)),
            Err(e) => Err(e),
        }
    }
}

impl fmt::Debug for SmemDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmemDesc")
            .field("bits", &format_args!("{:#018x}", self.0))
            .field("start_addr", &format_args!("{:#x}", self.start_addr()))
            .field("lbo", &self.lbo())
            .field("sbo", &self.sbo())
            .field("base_offset", &self.base_offset())
            .field("swizzle", &self.swizzle())
            .finish()
    }
}

impl fmt::Display for SmemDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#018x} (start {:#x}, LBO {}, SBO {}, base offset {}, {})",
            self.0,
            self.start_addr(),
            self.lbo(),
            self.sbo(),
            self.base_offset(),
            self.swizzle()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_lands_where_the_table_puts_it() {
        // One field at a time, every other input zero, so a wrong shift shows alone.
        // start 0x3FFF0 -> encode 0x3FFF in bits 0..14
        assert_eq!(SmemDesc::new(0x3FFF0, 0, 0, 0, Swizzle::None).unwrap().bits(), 0x0000_0000_0000_3FFF);
        // LBO 0x3FFF0 -> 0x3FFF << 16
        assert_eq!(SmemDesc::new(0, 0x3FFF0, 0, 0, Swizzle::None).unwrap().bits(), 0x0000_0000_3FFF_0000);
        // SBO 0x3FFF0 -> 0x3FFF << 32
        assert_eq!(SmemDesc::new(0, 0, 0x3FFF0, 0, Swizzle::None).unwrap().bits(), 0x0000_3FFF_0000_0000);
        // base offset 7 -> 0b111 << 49 = 0x000E_0000_0000_0000
        assert_eq!(SmemDesc::new(0, 0, 0, 7, Swizzle::None).unwrap().bits(), 0x000E_0000_0000_0000);
        // swizzle codes 1, 2, 3 in bits 62..64
        assert_eq!(SmemDesc::new(0, 0, 0, 0, Swizzle::B128).unwrap().bits(), 0x4000_0000_0000_0000);
        assert_eq!(SmemDesc::new(0, 0, 0, 0, Swizzle::B64).unwrap().bits(), 0x8000_0000_0000_0000);
        assert_eq!(SmemDesc::new(0, 0, 0, 0, Swizzle::B32).unwrap().bits(), 0xC000_0000_0000_0000);
    }

    #[test]
    fn a_typical_descriptor_by_hand() {
        // A 128B-swizzled K-major bf16 tile at 0x1_0400: start 0x10400 >> 4 = 0x1040,
        // LBO 16 >> 4 = 1, SBO 1024 >> 4 = 0x40, base offset 0, swizzle 1.
        // bits = 0x1040 | 1 << 16 | 0x40 << 32 | 1 << 62
        let d = SmemDesc::new(0x1_0400, 16, 1024, 0, Swizzle::B128).unwrap();
        assert_eq!(d.bits(), 0x4000_0040_0001_1040);
        assert_eq!((d.lo(), d.hi()), (0x0001_1040, 0x4000_0040));
        assert_eq!((d.start_addr(), d.lbo(), d.sbo(), d.base_offset(), d.swizzle()), (0x1_0400, 16, 1024, 0, Swizzle::B128));
        // all fields at once, distinct values: start 0x2A0 (0x2A), LBO 0x1230 (0x123),
        // SBO 0x4560 (0x456), base offset 5, 32B (3)
        let d = SmemDesc::new(0x2A0, 0x1230, 0x4560, 5, Swizzle::B32).unwrap();
        assert_eq!(d.bits(), 0x2A | 0x123 << 16 | 0x456 << 32 | 5 << 49 | 3 << 62);
        assert_eq!(d.bits(), 0xC00A_0456_0123_002A);
        assert_eq!((d.start_addr(), d.lbo(), d.sbo(), d.base_offset(), d.swizzle()), (0x2A0, 0x1230, 0x4560, 5, Swizzle::B32));
    }

    #[test]
    fn from_bits_reads_the_fields_and_ignores_reserved_bits() {
        let reserved: u64 = 0x3 << 14 | 0x3 << 30 | 0x7 << 46 | 0x3FF << 52;
        let d = SmemDesc::from_bits(0x8006_0100_0008_0040 | reserved);
        assert_eq!((d.start_addr(), d.lbo(), d.sbo(), d.base_offset(), d.swizzle()), (0x400, 0x80, 0x1000, 3, Swizzle::B64));
    }
}
