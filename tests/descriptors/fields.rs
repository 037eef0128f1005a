//! Descriptor fields: round trips and every error path.

use ptxkit::descriptors::{DescError, ElemBytes, Major, SmemDesc, Swizzle, TileLayout, MAX_FIELD_BYTES, SHARED_WINDOW};

#[test]
fn every_field_value_round_trips() {
    let used: u64 = 0x3FFF | 0x3FFF << 16 | 0x3FFF << 32 | 0x7 << 49 | 0x3 << 62;
    for v in 0..=0x3FFFu32 {
        let (start, lbo, sbo) = (v << 4, ((v * 7 + 3) & 0x3FFF) << 4, ((v * 13 + 5) & 0x3FFF) << 4);
        let (bo, sw) = ((v % 8) as u8, Swizzle::ALL[(v % 4) as usize]);
        let d = SmemDesc::new(start, lbo, sbo, bo, sw).unwrap();
        assert_eq!((d.start_addr(), d.lbo(), d.sbo(), d.base_offset(), d.swizzle()), (start, lbo, sbo, bo, sw));
        assert_eq!(d.bits() & !used, 0, "reserved bits stay 0");
        assert_eq!(SmemDesc::from_bits(d.bits()), d);
        assert_eq!(d.bits(), (d.hi() as u64) << 32 | d.lo() as u64);
        assert_eq!(d.bits() & 0x3FFF, v as u64, "start field holds addr >> 4");
    }
}

#[test]
fn add_start_offset_moves_only_the_start_field() {
    let d = SmemDesc::new(0x400, 16, 1024, 3, Swizzle::B128).unwrap();
    let e = d.add_start_offset(0x60).unwrap();
    assert_eq!(e.bits(), d.bits() + 6);
    assert_eq!((e.start_addr(), e.lbo(), e.sbo(), e.base_offset(), e.swizzle()), (0x460, 16, 1024, 3, Swizzle::B128));
    // up to the last address the field holds, and not one granule further
    let top = d.add_start_offset(MAX_FIELD_BYTES - 0x400).unwrap();
    assert_eq!((top.start_addr(), top.bits() >> 14 & 3), (MAX_FIELD_BYTES, 0));
    let over = d.add_start_offset(MAX_FIELD_BYTES - 0x3F0);
    assert_eq!(over, Err(DescError::OutOfRange { field: "start address", value: 0x4_0000, max: 0x3FFF0 }));
    assert_eq!(d.add_start_offset(8), Err(DescError::Misaligned { field: "start-address offset", value: 8, align: 16 }));
    assert!(d.add_start_offset(u32::MAX - 15).unwrap_err().to_string().contains("start address"));
    assert_eq!(d.with_start_addr(0x8).unwrap_err(), DescError::Misaligned { field: "start address", value: 8, align: 16 });
}

#[test]
fn descriptor_errors_name_the_field_and_value() {
    let s = Swizzle::None;
    let cases = [
        (SmemDesc::new(0x408, 0, 0, 0, s), DescError::Misaligned { field: "start address", value: 0x408, align: 16 }, "0x408"),
        (SmemDesc::new(0x4_0000, 0, 0, 0, s), DescError::OutOfRange { field: "start address", value: 0x4_0000, max: 0x3FFF0 }, "0x40000"),
        (SmemDesc::new(0, 24, 0, 0, s), DescError::Misaligned { field: "leading-dimension byte offset", value: 24, align: 16 }, "0x18"),
        (
            SmemDesc::new(0, 0x4_0000, 0, 0, s),
            DescError::OutOfRange { field: "leading-dimension byte offset", value: 0x4_0000, max: 0x3FFF0 },
            "0x40000",
        ),
        (SmemDesc::new(0, 0, 4, 0, s), DescError::Misaligned { field: "stride-dimension byte offset", value: 4, align: 16 }, "0x4"),
        (
            SmemDesc::new(0, 0, 0x10_0000, 0, s),
            DescError::OutOfRange { field: "stride-dimension byte offset", value: 0x10_0000, max: 0x3FFF0 },
            "0x100000",
        ),
        (SmemDesc::new(0, 0, 0, 8, s), DescError::OutOfRange { field: "matrix base offset", value: 8, max: 7 }, "0x8"),
    ];
    for (got, want, hex) in cases {
        let e = got.unwrap_err();
        assert_eq!(e, want);
        let text = e.to_string();
        let field = match e {
            DescError::Misaligned { field, .. } | DescError::OutOfRange { field, .. } => field,
            _ => unreachable!(),
        };
        assert!(text.contains(field) && text.contains(hex), "{text}");
    }
    // the largest values are accepted
    assert!(SmemDesc::new(MAX_FIELD_BYTES, MAX_FIELD_BYTES, MAX_FIELD_BYTES, 7, Swizzle::B32).is_ok());
}

#[test]
fn layout_errors_name_the_problem() {
    use ElemBytes::*;
    use Major::*;
    let new = TileLayout::new;
    let cases: [(Result<TileLayout, DescError>, DescError, &str); 11] = [
        (new(B1, 64, 64, MN, Swizzle::B64), DescError::ElemWidth { major: MN, elem: B1 }, "MN-major"),
        (new(B4, 64, 32, MN, Swizzle::B128), DescError::ElemWidth { major: MN, elem: B4 }, "4 byte"),
        (new(B2, 64, 32, K, Swizzle::B128), DescError::RowWidth { swizzle: Swizzle::B128, row_bytes: 64 }, "exactly 128 bytes"),
        (new(B2, 64, 128, K, Swizzle::B128), DescError::RowWidth { swizzle: Swizzle::B128, row_bytes: 256 }, "got 256"),
        (new(B4, 64, 32, K, Swizzle::B64), DescError::RowWidth { swizzle: Swizzle::B64, row_bytes: 128 }, "64B swizzle"),
        (
            new(B2, 64, 24, K, Swizzle::None),
            DescError::Dimension { dim: "cols", value: 24, multiple: 16, unit: "the wgmma K-slice: 32 bytes of K" },
            "cols = 24",
        ),
        (
            new(B1, 64, 0, K, Swizzle::None),
            DescError::Dimension { dim: "cols", value: 0, multiple: 32, unit: "the wgmma K-slice: 32 bytes of K" },
            "cols = 0",
        ),
        (
            new(B2, 60, 64, K, Swizzle::B128),
            DescError::Dimension { dim: "rows", value: 60, multiple: 8, unit: "the 8 rows of an atom" },
            "rows = 60",
        ),
        (
            new(B2, 0, 64, K, Swizzle::B128),
            DescError::Dimension { dim: "rows", value: 0, multiple: 8, unit: "the 8 rows of an atom" },
            "rows = 0",
        ),
        (
            new(B2, 96, 16, MN, Swizzle::B128),
            DescError::Dimension { dim: "rows", value: 96, multiple: 64, unit: "one swizzle row of M/N" },
            "multiple of 64",
        ),
        (new(B2, 2048, 128, MN, Swizzle::B128), DescError::OutOfRange { field: "tile size", value: 0x8_0000, max: 0x4_0000 }, "tile size"),
    ];
    for (got, want, words) in cases {
        let e = got.unwrap_err();
        assert_eq!(e, want);
        assert!(e.to_string().contains(words), "{e} should say {words:?}");
    }
    // and the edges that are legal
    assert!(new(B2, 8, 16, MN, Swizzle::None).is_ok());
    assert!(new(B1, 8, 32, K, Swizzle::B32).is_ok());
    assert!(new(B2, 1024, 128, MN, Swizzle::B128).is_ok()); // exactly 256 KiB
}

#[test]
fn desc_checks_base_alignment_and_the_window() {
    for s in Swizzle::ALL {
        let eb = ElemBytes::B2;
        let cols = if s == Swizzle::None { 16 } else { s.bytes() / 2 };
        let l = TileLayout::new(eb, 64, cols, Major::K, s).unwrap();
        let a = l.base_alignment();
        assert_eq!(a, [16, 256, 512, 1024][s.bits() as usize]);
        assert!(l.desc(a).is_ok());
        let bad = if s == Swizzle::None { a + 8 } else { a + 16 };
        let e = l.desc(bad).unwrap_err();
        assert_eq!(e, DescError::Misaligned { field: "tile base address", value: bad as u64, align: a });
        assert!(e.to_string().contains("tile base address"));
        let last = SHARED_WINDOW - l.bytes();
        assert!(l.desc(last).is_ok());
        let beyond = last + a;
        assert_eq!(
            l.desc(beyond),
            Err(DescError::OutOfRange { field: "tile end address", value: (beyond + l.bytes()) as u64, max: SHARED_WINDOW as u64 })
        );
    }
    let l = TileLayout::new(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128).unwrap();
    assert_eq!(l.k_desc(0, 4), Err(DescError::KStep { k: 4, steps: 4 }));
    assert!(l.k_desc(0, 4).unwrap_err().to_string().contains("K-slice 4"));
}
