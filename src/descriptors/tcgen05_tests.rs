//! Host tests of the tcgen05 shared-memory descriptor.

use super::tcgen05::ZERO_MASK;
use super::{AtomOrder, DescError, ElemBytes, LboMode, Major, SmemDesc, Swizzle, Tcgen05SmemDesc, Tcgen05Swizzle, TileLayout};

const V: u64 = 1 << 46; // the version bit, present in every descriptor

fn d(start: u32, lbo: u32, sbo: u32, base: u8, mode: LboMode, s: Tcgen05Swizzle) -> Tcgen05SmemDesc {
    Tcgen05SmemDesc::new(start, lbo, sbo, base, mode, s).unwrap()
}

#[test]
fn each_field_lands_where_table_40_puts_it() {
    use LboMode::*;
    use Tcgen05Swizzle as S;
    // all zero but the version: 0b001 << 46
    assert_eq!(d(0, 0, 0, 0, Relative, S::None).bits(), 0x0000_4000_0000_0000);
    // start 0x3FFF0 -> encode 0x3FFF in bits 0..14
    assert_eq!(d(0x3FFF0, 0, 0, 0, Relative, S::None).bits(), V | 0x3FFF);
    // LBO 0x3FFF0 -> 0x3FFF << 16
    assert_eq!(d(0, 0x3FFF0, 0, 0, Relative, S::None).bits(), V | 0x3FFF_0000);
    // SBO 0x3FFF0 -> 0x3FFF << 32
    assert_eq!(d(0, 0, 0x3FFF0, 0, Relative, S::None).bits(), V | 0x3FFF_0000_0000);
    // base offset 7 -> 0b111 << 49
    assert_eq!(d(0, 0, 0, 7, Relative, S::None).bits(), V | 0x000E_0000_0000_0000);
    // LBO mode absolute -> 1 << 52
    assert_eq!(d(0, 0, 0, 0, Absolute, S::None).bits(), V | 0x0010_0000_0000_0000);
    // layout codes 1, 2, 4, 6 in bits 61..64: 1 << 61 = 0x2000.., 2 << 61 = 0x4000..,
    // 4 << 61 = 0x8000.., 6 << 61 = 0xC000..
    assert_eq!(d(0, 0, 0, 0, Relative, S::B128Atom32).bits(), V | 0x2000_0000_0000_0000);
    assert_eq!(d(0, 0, 0, 0, Relative, S::B128).bits(), V | 0x4000_0000_0000_0000);
    assert_eq!(d(0, 0, 0, 0, Relative, S::B64).bits(), V | 0x8000_0000_0000_0000);
    assert_eq!(d(0, 0, 0, 0, Relative, S::B32).bits(), V | 0xC000_0000_0000_0000);
}

#[test]
fn all_fields_at_once_by_hand() {
    // start 0x2A0 (0x2A), LBO 0x1230 (0x123), SBO 0x4560 (0x456), base offset 5,
    // absolute LBO, 64B (code 4):
    // 0x2A | 0x123 << 16 | 0x456 << 32 | 1 << 46 | 5 << 49 | 1 << 52 | 4 << 61
    let x = d(0x2A0, 0x1230, 0x4560, 5, LboMode::Absolute, Tcgen05Swizzle::B64);
    assert_eq!(x.bits(), 0x801A_4456_0123_002A);
    assert_eq!((x.lo(), x.hi()), (0x0123_002A, 0x801A_4456));
    assert_eq!(
        (x.start_addr(), x.lbo(), x.sbo(), x.version(), x.base_offset(), x.lbo_mode(), x.swizzle()),
        (0x2A0, 0x1230, 0x4560, 1, 5, LboMode::Absolute, Tcgen05Swizzle::B64)
    );
    assert_eq!(x.to_string(), "0x801a44560123002a (start 0x2a0, LBO address 4656, SBO 17760, base offset 5, 64B swizzle)");
}

/// CUTLASS's `UMMA::SmemDescriptor` (include/cute/arch/mma_sm100_desc.hpp) is a C
/// bitfield; packing its members LSB-first with their declared widths is an
/// independent way to place each field.
fn pack_lsb_first(fields: &[(u32, u64)]) -> u64 {
    let (mut bits, mut at) = (0u64, 0u32);
    for &(width, value) in fields {
        assert!(value < 1 << width);
        bits |= value << at;
        at += width;
    }
    assert_eq!(at, 64);
    bits
}

#[test]
fn matches_the_cutlass_bitfield() {
    // members in declaration order: start_address_ 14, pad 2, leading_byte_offset_ 14,
    // pad 2, stride_byte_offset_ 14, version_ 2, pad 1, base_offset_ 3, lbo_mode_ 1,
    // pad 3, pad 5, layout_type_ 3 (SWIZZLE_128B = 2); make_umma_desc sets version_ = 1.
    let cutlass = |start: u64, lbo: u64, sbo: u64, base: u64, mode: u64, layout: u64| {
        pack_lsb_first(&[
            (14, start),
            (2, 0),
            (14, lbo),
            (2, 0),
            (14, sbo),
            (2, 1),
            (1, 0),
            (3, base),
            (1, mode),
            (3, 0),
            (5, 0),
            (3, layout),
        ])
    };
    let x = d(0x1_0400, 16, 1024, 0, LboMode::Relative, Tcgen05Swizzle::B128);
    assert_eq!(x.bits(), cutlass(0x1040, 1, 64, 0, 0, 2));
    let x = d(0x3_0000, 0x2000, 0x80, 3, LboMode::Absolute, Tcgen05Swizzle::B32);
    assert_eq!(x.bits(), cutlass(0x3000, 0x200, 0x8, 3, 1, 6));
    let x = d(0x100, 0x400, 0x800, 0, LboMode::Relative, Tcgen05Swizzle::B128Atom32);
    assert_eq!(x.bits(), cutlass(0x10, 0x40, 0x80, 0, 0, 1));
}

#[test]
fn shares_the_wgmma_address_fields() {
    // Bits 0..46 and the base offset are placed as in the wgmma descriptor.
    for (start, lbo, sbo, base) in [(0x400, 16, 1024, 0), (0x3FFF0, 0x1230, 0x80, 6), (0x10, 0x3FFF0, 0x3FFF0, 1)] {
        let w = SmemDesc::new(start, lbo, sbo, base, Swizzle::None).unwrap();
        let t = d(start, lbo, sbo, base, LboMode::Relative, Tcgen05Swizzle::None);
        assert_eq!(t.bits(), w.bits() | V);
    }
}

#[test]
fn errors_name_the_field() {
    use Tcgen05Swizzle as S;
    let r = |s, l, b, o| Tcgen05SmemDesc::new(s, l, b, o, LboMode::Relative, S::B128);
    assert_eq!(r(0x408, 16, 1024, 0), Err(DescError::Misaligned { field: "start address", value: 0x408, align: 16 }));
    assert_eq!(r(0x4_0000, 16, 1024, 0), Err(DescError::OutOfRange { field: "start address", value: 0x4_0000, max: 0x3FFF0 }));
    assert_eq!(r(0, 24, 1024, 0), Err(DescError::Misaligned { field: "leading-dimension byte offset", value: 24, align: 16 }));
    assert_eq!(r(0, 16, 0x4_0000, 0), Err(DescError::OutOfRange { field: "stride-dimension byte offset", value: 0x4_0000, max: 0x3FFF0 }));
    assert_eq!(r(0, 16, 1024, 8), Err(DescError::OutOfRange { field: "matrix base offset", value: 8, max: 7 }));
    let x = r(0x3FF00, 16, 1024, 0).unwrap();
    assert!(matches!(x.add_start_offset(0x100), Err(DescError::OutOfRange { .. })));
    assert!(matches!(x.add_start_offset(8), Err(DescError::Misaligned { .. })));
    assert_eq!(x.add_start_offset(0xF0).unwrap().start_addr(), 0x3FFF0);
}

#[test]
fn decode_rejects_what_no_constructor_makes() {
    let good = 0x4000_4040_0001_0200u64;
    assert!(Tcgen05SmemDesc::decode(good).is_ok());
    // version 0 and version 0b011
    assert_eq!(Tcgen05SmemDesc::decode(good & !V), Err(DescError::Encoding { field: "version (bits 46-48)", value: 0 }));
    assert_eq!(Tcgen05SmemDesc::decode(good | 1 << 47), Err(DescError::Encoding { field: "version (bits 46-48)", value: 3 }));
    for bit in [14, 15, 30, 31, 53, 60] {
        assert!(matches!(Tcgen05SmemDesc::decode(good | 1 << bit), Err(DescError::Encoding { .. })), "bit {bit}");
    }
    for code in [3u64, 5, 7] {
        let bits = (good & !(7 << 61)) | code << 61;
        assert_eq!(Tcgen05SmemDesc::decode(bits), Err(DescError::Encoding { field: "layout (bits 61-63)", value: code }));
    }
}

use super::test_rng::{next as rng, seed};

#[test]
fn random_fields_round_trip() {
    let mut s = seed("random_fields_round_trip");
    for _ in 0..20_000 {
        let start = (rng(&mut s) % 0x4000) as u32 * 16;
        let lbo = (rng(&mut s) % 0x4000) as u32 * 16;
        let sbo = (rng(&mut s) % 0x4000) as u32 * 16;
        let base = (rng(&mut s) % 8) as u8;
        let mode = if rng(&mut s).is_multiple_of(2) { LboMode::Relative } else { LboMode::Absolute };
        let sw = Tcgen05Swizzle::ALL[(rng(&mut s) % 5) as usize];
        let x = d(start, lbo, sbo, base, mode, sw);
        assert_eq!((x.start_addr(), x.lbo(), x.sbo(), x.base_offset(), x.lbo_mode(), x.swizzle()), (start, lbo, sbo, base, mode, sw));
        assert_eq!(Tcgen05SmemDesc::decode(x.bits()), Ok(x));
        assert_eq!(x.version(), 1);
    }
    // and random 64-bit patterns: decode accepts exactly those with the fixed fields
    for _ in 0..20_000 {
        let bits = rng(&mut s);
        let fixed_ok = (bits >> 46) & 7 == 1 && bits & ZERO_MASK == 0 && ![3, 5, 7].contains(&(bits >> 61));
        assert_eq!(Tcgen05SmemDesc::decode(bits).is_ok(), fixed_ok, "{bits:#x}");
    }
}

#[test]
fn tile_layouts_by_hand() {
    // 128 x 64 bf16 K-major 128B at 0x2000: start 0x200, LBO 16 (1), SBO 1024 (64),
    // layout 2: 0x200 | 1 << 16 | 64 << 32 | 1 << 46 | 2 << 61
    let t = TileLayout::new_tcgen05(ElemBytes::B2, 128, 64, Major::K, Swizzle::B128).unwrap();
    assert_eq!(t.tcgen05_desc(0x2000).unwrap().bits(), 0x4000_4040_0001_0200);
    // K-slice 2 of it: start + 64 bytes -> 0x204
    assert_eq!(t.tcgen05_k_desc(0x2000, 2).unwrap().bits(), 0x4000_4040_0001_0204);
    // 64 x 16 bf16 K-major unswizzled at 0x100: LBO = 64 rows * 16 B = 1024 (0x40),
    // SBO 128 (8): 0x10 | 0x40 << 16 | 8 << 32 | 1 << 46
    let t = TileLayout::new_tcgen05(ElemBytes::B2, 64, 16, Major::K, Swizzle::None).unwrap();
    assert_eq!(t.tcgen05_desc(0x100).unwrap().bits(), 0x0000_4008_0040_0010);
    // 256 (N) x 64 (K) e4m3 MN-major 64B at 0x8000: atoms of 64 B of N x 8 K-lines,
    // 4 along N (stride 512 = LBO), 8 along K (stride 4 * 512 = 2048 = SBO);
    // 0x800 | 0x20 << 16 | 0x80 << 32 | 1 << 46 | 4 << 61
    let t = TileLayout::new_tcgen05(ElemBytes::B1, 256, 64, Major::MN, Swizzle::B64).unwrap();
    assert_eq!(t.tcgen05_desc(0x8000).unwrap().bits(), 0x8000_4080_0020_0800);
    // its K-slice 1 is 32 K-lines = 4 atoms along K = 8192 bytes on
    assert_eq!(t.tcgen05_k_desc(0x8000, 1).unwrap().start_addr(), 0x8000 + 8192);
    // element (n = 70, k = 10): atom (1, 1) at 512 + 2048, K-line 2 (128 bytes in),
    // byte 6 of the line. The 64B XOR flips chunk bits 4-5 by address bits 7-8 = 0b01
    // here (0xA86 >> 7 = 0b10101): chunk 0 -> 1, so 2560 + 128 + 16 + 6
    assert_eq!(t.offset(70, 10), 2560 + 128 + 16 + 6);
    // K-line 1 (64 bytes in) has address bits 7-8 = 0 and is not moved
    assert_eq!(t.offset(70, 9), 2560 + 64 + 6);
    // a misaligned base is refused as for wgmma
    assert!(t.tcgen05_desc(0x8100).is_err());
}

#[test]
fn layout_codes() {
    let got: Vec<_> = Tcgen05Swizzle::ALL.iter().map(|s| (s.code(), s.base_alignment())).collect();
    assert_eq!(got, [(0, 16), (1, 1024), (2, 1024), (4, 512), (6, 256)]);
    for s in Tcgen05Swizzle::ALL {
        assert_eq!(Tcgen05Swizzle::from_code(s.code()), Some(s));
    }
    for s in Swizzle::ALL {
        assert_eq!(Tcgen05Swizzle::from_swizzle(s).swizzle(), Some(s));
    }
    assert_eq!(Tcgen05Swizzle::B128Atom32.swizzle(), None);
}

/// DeepGEMM's sm100 `make_umma_desc` (deep_gemm/include/deep_gemm/common/sm100_utils.cuh)
/// stores an MN-major block as TMA boxes of one swizzle row of M/N by all of `BLOCK_K`
/// (atoms K-first) and sets SBO = 8 * atom bytes of M/N (the next 8 K-lines) and
/// LBO = BLOCK_K * atom bytes (the next box along M/N); for K-major 128B it sets
/// SBO = 8 * 128 and LBO = 0, where the ISA calls the field unused ("assumed 1") and
/// `TileLayout` writes 16 as CUTLASS does.
#[test]
fn matches_deepgemm_strides() {
    // bf16, BLOCK_MN 256, BLOCK_K 64, 128B: atom 64 elements of M/N;
    // SBO = 8 * 64 * 2 = 1024, LBO = 64 * 64 * 2 = 8192
    let t = TileLayout::new_tcgen05(ElemBytes::B2, 256, 64, Major::MN, Swizzle::B128).unwrap().with_order(AtomOrder::KFirst);
    let x = t.tcgen05_desc(0).unwrap();
    assert_eq!((x.sbo(), x.lbo()), (1024, 8192));
    // e4m3, BLOCK_MN 256, BLOCK_K 128, 128B: atom 128 elements;
    // SBO = 8 * 128 = 1024, LBO = 128 * 128 = 16384
    let t = TileLayout::new_tcgen05(ElemBytes::B1, 256, 128, Major::MN, Swizzle::B128).unwrap().with_order(AtomOrder::KFirst);
    let x = t.tcgen05_desc(0).unwrap();
    assert_eq!((x.sbo(), x.lbo()), (1024, 16384));
    // DeepGEMM steps K by `k_idx * atom elements * sizeof >> 4` in the start field: for
    // the e4m3 block, one 32-element K-slice is 32 K-lines of 128 bytes = 4096 bytes
    assert_eq!(t.k_step_offset(1).unwrap(), 32 * 128);
    // K-major e4m3, BLOCK_K 128 (128B rows): SBO = 8 * 128 = 1024
    let t = TileLayout::new_tcgen05(ElemBytes::B1, 128, 128, Major::K, Swizzle::B128).unwrap();
    assert_eq!(t.tcgen05_desc(0).unwrap().sbo(), 1024);
}
