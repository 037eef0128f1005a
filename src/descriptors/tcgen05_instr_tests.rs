//! Host tests of the tcgen05 instruction descriptors: values worked out by hand from the
//! ISA tables, CUTLASS's bitfields, the shape table, errors and random round trips.

use super::{
    DescError, F16Type, F8f6f4Type, FloatAccum, Fp4K, Fp4Scale, I8Type, InstrDesc, KindTag, Major, MaxShift, MmaIssue, MmaKind, MmaParams,
    Sparsity, Tcgen05Swizzle,
};

fn enc(p: MmaParams) -> u32 {
    InstrDesc::new(&p).unwrap_or_else(|e| panic!("{p}: {e}")).bits()
}

const BF16_F32: MmaKind = MmaKind::F16 { ab: F16Type::Bf16, d: FloatAccum::F32 };

#[test]
fn table_42_by_hand() {
    use MmaIssue::*;
    // kind::f16 bf16 x bf16 -> f32, cta_group::1, M 128, N 256, K-major:
    // D f32 1 << 4 = 0x10; A bf16 1 << 7 = 0x80; B bf16 1 << 10 = 0x400;
    // N >> 3 = 32 << 17 = 0x40_0000; M >> 4 = 8 << 24 = 0x800_0000
    assert_eq!(enc(MmaParams::new(BF16_F32, Cta1, 128, 256)), 0x0840_0490);
    // kind::f16 f16 x f16 -> f16, M 64, N 8: every type code 0;
    // N >> 3 = 1 << 17 = 0x2_0000; M >> 4 = 4 << 24 = 0x400_0000
    let f16_f16 = MmaKind::F16 { ab: F16Type::F16, d: FloatAccum::F16 };
    assert_eq!(enc(MmaParams::new(f16_f16, Cta1, 64, 8)), 0x0402_0000);
    // kind::tf32, cta_group::2, M 256, N 128, A MN-major and negated:
    // D 1 << 4 = 0x10; A tf32 2 << 7 = 0x100; B 2 << 10 = 0x800; negate A 1 << 13 = 0x2000;
    // transpose A 1 << 15 = 0x8000; N 16 << 17 = 0x20_0000; M 16 << 24 = 0x1000_0000
    let p = MmaParams::new(MmaKind::Tf32, Cta2, 256, 128).with_majors(Major::MN, Major::K).with_negate(true, false);
    assert_eq!(enc(p), 0x1020_A910);
    // kind::f8f6f4 e4m3 x e2m1 -> f32, M 128, N 64, sparse with selector 2:
    // selector 2 = 0x2; sparse 1 << 2 = 0x4; D 0x10; A e4m3 0; B e2m1 5 << 10 = 0x1400;
    // N 8 << 17 = 0x10_0000; M 8 << 24 = 0x800_0000
    let f8 = MmaKind::F8f6f4 { a: F8f6f4Type::E4m3, b: F8f6f4Type::E2m1, d: FloatAccum::F32 };
    assert_eq!(enc(MmaParams::new(f8, Cta1, 128, 64).with_sparsity(Sparsity::Sparse { selector: 2 })), 0x0810_1416);
    // kind::i8 s8 x u8 -> s32 saturating, M 64, N 48:
    // saturate 1 << 3 = 0x8; D s32 2 << 4 = 0x20; A s8 1 << 7 = 0x80; B u8 0;
    // N 6 << 17 = 0xC_0000; M 4 << 24 = 0x400_0000
    let i8 = MmaKind::I8 { a: I8Type::S8, b: I8Type::U8, saturate: true };
    assert_eq!(enc(MmaParams::new(i8, Cta1, 64, 48)), 0x040C_00A8);
    // .ws kind::f16 bf16 -> f32, M 32, N 64, max shift 16:
    // 0x490 as above; N 8 << 17 = 0x10_0000; M 2 << 24 = 0x200_0000; shift 2 << 30 = 0x8000_0000
    assert_eq!(enc(MmaParams::new(BF16_F32, Ws, 32, 64).with_max_shift(MaxShift::By16)), 0x8210_0490);
}

#[test]
fn block_scaled_tables_by_hand() {
    use MmaIssue::*;
    // kind::mxf8f6f4 e5m2 x e4m3, cta_group::1, M 128, N 256, SF A ID 3, SF B ID 1:
    // SF B 1 << 4 = 0x10; A e5m2 1 << 7 = 0x80; B e4m3 0; N 32 << 17 = 0x40_0000;
    // ue8m0 1 << 23 = 0x80_0000; M >> 7 = 1 << 27 = 0x800_0000; SF A 3 << 29 = 0x6000_0000
    let k = MmaKind::Mxf8f6f4 { a: F8f6f4Type::E5m2, b: F8f6f4Type::E4m3, sfa_id: 3, sfb_id: 1 };
    assert_eq!(enc(MmaParams::new(k, Cta1, 128, 256)), 0x68C0_0090);
    // kind::mxf4nvf4 with ue4m3 scales (block16), cta_group::2, M 256, N 256, K 64:
    // A e2m1 1 << 7 = 0x80; B 1 << 10 = 0x400; N 32 << 17 = 0x40_0000; ue4m3 0;
    // M >> 7 = 2 << 27 = 0x1000_0000
    let k = MmaKind::Mxf4nvf4 { scale: Fp4Scale::Ue4m3Block16, k: Fp4K::K64, sfa_id: 0, sfb_id: 0 };
    assert_eq!(enc(MmaParams::new(k, Cta2, 256, 256)), 0x1040_0480);
    // kind::mxf4, K 96, cta_group::2, M 256, N 128, SF A ID 1, SF B ID 2:
    // SF B 2 << 4 = 0x20; A 0x80; B 0x400; N 16 << 17 = 0x20_0000; ue8m0 0x80_0000;
    // M 2 << 27 = 0x1000_0000; SF A 1 << 29 = 0x2000_0000; K96 1 << 31 = 0x8000_0000
    let k = MmaKind::Mxf4 { k: Fp4K::K96, sfa_id: 1, sfb_id: 2 };
    assert_eq!(enc(MmaParams::new(k, Cta2, 256, 128)), 0xB0A0_04A0);
}

/// CUTLASS's `UMMA::InstrDescriptor` and `InstrDescriptorBlockScaled`
/// (include/cute/arch/mma_sm100_desc.hpp) are C bitfields: packing their members
/// LSB-first with the declared widths gives what `make_instr_desc` and
/// `make_instr_desc_block_scaled` compute, with no shift constants of ours involved.
fn pack_lsb_first(fields: &[(u32, u32)]) -> u32 {
    let (mut bits, mut at) = (0u64, 0u32);
    for &(width, value) in fields {
        assert!(value < 1 << width);
        bits |= (value as u64) << at;
        at += width;
    }
    assert_eq!(at, 32);
    bits as u32
}

/// `InstrDescriptor`: sparse_id2_ 2, sparse_flag_ 1, saturate_ 1, c_format_ 2, pad 1,
/// a_format_ 3, b_format_ 3, a_negate_ 1, b_negate_ 1, a_major_ 1, b_major_ 1, n_dim_ 6,
/// pad 1, m_dim_ 5, pad 1, max_shift_ 2. Arguments in that order, pads left out.
#[allow(clippy::too_many_arguments)]
fn cutlass(sat: u32, c: u32, a: u32, b: u32, neg_a: u32, maj_a: u32, maj_b: u32, m: u32, n: u32) -> u32 {
    let f = [(2, 0), (1, 0), (1, sat), (2, c), (1, 0), (3, a), (3, b), (1, neg_a), (1, 0), (1, maj_a), (1, maj_b)];
    let g = [(6, n >> 3), (1, 0), (5, m >> 4), (1, 0), (2, 0)];
    pack_lsb_first(&[&f[..], &g[..]].concat())
}

/// `InstrDescriptorBlockScaled`: sparse_id2_ 2, sparse_flag_ 1, pad 1, b_sf_id_ 2, pad 1,
/// a_format_ 3, b_format_ 3, a_negate_ 1, b_negate_ 1, a_major_ 1, b_major_ 1, n_dim_ 6,
/// scale_format_ 1, m_dim_ 5 (M >> 4), a_sf_id_ 2, k_size_ 1.
fn cutlass_bs(sfb: u32, a: u32, b: u32, scale: u32, m: u32, n: u32, sfa: u32) -> u32 {
    let f = [(2, 0), (1, 0), (1, 0), (2, sfb), (1, 0), (3, a), (3, b), (1, 0), (1, 0), (1, 0), (1, 0)];
    let g = [(6, n >> 3), (1, scale), (5, m >> 4), (2, sfa), (1, 0)];
    pack_lsb_first(&[&f[..], &g[..]].concat())
}

#[test]
fn agrees_with_the_cutlass_bitfields() {
    use MmaIssue::*;
    // CUTLASS format codes: F16F32Format F16 0 BF16 1 TF32 2; S8Format UINT8 0 INT8 1;
    // MXF8F6F4Format E4M3 0 E5M2 1 E2M3 3 E3M2 4 E2M1 5; MXF4Format E2M1 1;
    // CFormat F16 0 F32 1 S32 2; ScaleFormat UE4M3 0 UE8M0 1; Major K 0 MN 1;
    // ScaleIn One 0 Neg 1.
    // make_instr_desc<bfloat16_t, bfloat16_t, float, 128, 256, K, K>
    assert_eq!(enc(MmaParams::new(BF16_F32, Cta1, 128, 256)), cutlass(0, 1, 1, 1, 0, 0, 0, 128, 256));
    // make_instr_desc<half_t, half_t, half_t, 64, 128, MN, K>
    let p = MmaParams::new(MmaKind::F16 { ab: F16Type::F16, d: FloatAccum::F16 }, Cta1, 64, 128).with_majors(Major::MN, Major::K);
    assert_eq!(enc(p), cutlass(0, 0, 0, 0, 0, 1, 0, 64, 128));
    // make_instr_desc<float_e4m3_t, float_e5m2_t, float, 256, 256, K, MN> (the 2-SM atom)
    let k = MmaKind::F8f6f4 { a: F8f6f4Type::E4m3, b: F8f6f4Type::E5m2, d: FloatAccum::F32 };
    let p = MmaParams::new(k, Cta2, 256, 256).with_majors(Major::K, Major::MN);
    assert_eq!(enc(p), cutlass(0, 1, 0, 1, 0, 0, 1, 256, 256));
    // make_instr_desc<int8_t, uint8_t, int32_t, 128, 128, K, K, One, One, Saturate::True>
    let p = MmaParams::new(MmaKind::I8 { a: I8Type::S8, b: I8Type::U8, saturate: true }, Cta1, 128, 128);
    assert_eq!(enc(p), cutlass(1, 2, 1, 0, 0, 0, 0, 128, 128));
    // make_instr_desc<tfloat32_t, tfloat32_t, float, 128, 64, K, K, ScaleIn::Neg>
    let p = MmaParams::new(MmaKind::Tf32, Cta1, 128, 64).with_negate(true, false);
    assert_eq!(enc(p), cutlass(0, 1, 2, 2, 1, 0, 0, 128, 64));
    // make_instr_desc_block_scaled<float_e2m1_t, float_e2m1_t, float, float_ue4m3_t, 256, 256, K, K>
    let k = MmaKind::Mxf4nvf4 { scale: Fp4Scale::Ue4m3Block16, k: Fp4K::K64, sfa_id: 0, sfb_id: 0 };
    assert_eq!(enc(MmaParams::new(k, Cta2, 256, 256)), cutlass_bs(0, 1, 1, 0, 256, 256, 0));
    // make_runtime_instr_desc_block_scaled<float_e4m3_t x2, float, float_ue8m0_t, 128, 128>
    // with scale-factor tensor-memory addresses whose top two bits are 0b10 (A) and 0b01 (B)
    let k = MmaKind::Mxf8f6f4 { a: F8f6f4Type::E4m3, b: F8f6f4Type::E4m3, sfa_id: 2, sfb_id: 1 };
    assert_eq!(enc(MmaParams::new(k, Cta1, 128, 128)), cutlass_bs(1, 0, 0, 1, 128, 128, 2));
    // make_instr_desc_block_scaled<float_e2m1_t x2, float, float_ue8m0_t, 128, 64> (mxf4)
    let k = MmaKind::Mxf4 { k: Fp4K::K64, sfa_id: 0, sfb_id: 0 };
    assert_eq!(enc(MmaParams::new(k, Cta1, 128, 64)), cutlass_bs(0, 1, 1, 1, 128, 64, 0));
}

fn kinds() -> [MmaKind; 7] {
    [
        BF16_F32,
        MmaKind::Tf32,
        MmaKind::F8f6f4 { a: F8f6f4Type::E4m3, b: F8f6f4Type::E4m3, d: FloatAccum::F32 },
        MmaKind::I8 { a: I8Type::S8, b: I8Type::S8, saturate: false },
        MmaKind::Mxf8f6f4 { a: F8f6f4Type::E4m3, b: F8f6f4Type::E4m3, sfa_id: 0, sfb_id: 0 },
        MmaKind::Mxf4 { k: Fp4K::K64, sfa_id: 0, sfb_id: 0 },
        MmaKind::Mxf4nvf4 { scale: Fp4Scale::Ue4m3Block16, k: Fp4K::K64, sfa_id: 0, sfb_id: 0 },
    ]
}

/// The accepted (M, N) of one kind, issue and sparsity over M, N in 0..=512.
fn accepted(kind: MmaKind, issue: MmaIssue, sparse: bool) -> Vec<(u32, u32)> {
    let sp = if sparse { Sparsity::Sparse { selector: 0 } } else { Sparsity::Dense };
    let mut v = Vec::new();
    for m in 0..=512 {
        for n in 0..=512 {
            if InstrDesc::new(&MmaParams::new(kind, issue, m, n).with_sparsity(sp)).is_ok() {
                v.push((m, n));
            }
        }
    }
    v
}

#[test]
fn shape_table_39() {
    use MmaIssue::*;
    // Counts from the table: M values x N values.
    //            kind           cta1 dense/sparse  cta2 dense/sparse  ws dense/sparse
    let counts = [
        (0, [2 * 32, 2 * 32, 2 * 16, 2 * 16, 3 * 3, 3 * 2]), // f16: N 8..256/8, 16..256/16
        (1, [64, 64, 32, 32, 9, 6]),                         // tf32: same
        (2, [64, 64, 32, 32, 9, 6]),                         // f8f6f4: same
        (3, [2 * 18, 2 * 18, 2 * 8, 2 * 8, 9, 6]),           // i8: N 8..32/8 + 48..256/16; 32..256/32
        (4, [32, 32, 2 * 16, 16, 0, 0]),                     // mxf8f6f4: M 128; M 128|256, sparse 256
        (5, [32, 32, 32, 16, 0, 0]),                         // mxf4
        (6, [32, 32, 32, 16, 0, 0]),                         // mxf4nvf4
    ];
    for (i, want) in counts {
        let kind = kinds()[i];
        let got = [
            accepted(kind, Cta1, false).len(),
            accepted(kind, Cta1, true).len(),
            accepted(kind, Cta2, false).len(),
            accepted(kind, Cta2, true).len(),
            accepted(kind, Ws, false).len(),
            accepted(kind, Ws, true).len(),
        ];
        assert_eq!(got, want, "{:?}", kind.tag());
    }
    // The i8 N grid at M = 64, written out.
    let n: Vec<u32> = accepted(kinds()[3], Cta1, false).into_iter().filter(|&(m, _)| m == 64).map(|(_, n)| n).collect();
    let mut want = vec![8, 16, 24, 32];
    want.extend((48..=256).step_by(16));
    assert_eq!(n, want);
    // .ws sparse: M 32, 64, 128 x N 64, 128.
    let ws = accepted(BF16_F32, Ws, true);
    assert_eq!(ws, [(32, 64), (32, 128), (64, 64), (64, 128), (128, 64), (128, 128)]);
    // block-scaled cta_group::2 sparse: M 256 only.
    assert!(accepted(kinds()[4], Cta2, true).iter().all(|&(m, _)| m == 256));
}

#[test]
fn illegal_combinations_are_errors() {
    use MmaIssue::*;
    let err = |p: MmaParams| InstrDesc::new(&p).unwrap_err();
    let f16 = MmaKind::F16 { ab: F16Type::Bf16, d: FloatAccum::F16 };
    assert!(matches!(err(MmaParams::new(f16, Cta1, 128, 128)), DescError::Unsupported { kind: "kind::f16", .. }));
    let i8 = MmaKind::I8 { a: I8Type::S8, b: I8Type::S8, saturate: false };
    assert!(matches!(err(MmaParams::new(i8, Cta1, 128, 128).with_negate(false, true)), DescError::Unsupported { kind: "kind::i8", .. }));
    // a 4-bit operand transposed; the 8-bit one may be
    let f8 = MmaKind::F8f6f4 { a: F8f6f4Type::E2m1, b: F8f6f4Type::E5m2, d: FloatAccum::F32 };
    assert!(matches!(err(MmaParams::new(f8, Cta1, 128, 128).with_majors(Major::MN, Major::K)), DescError::Unsupported { .. }));
    assert!(InstrDesc::new(&MmaParams::new(f8, Cta1, 128, 128).with_majors(Major::K, Major::MN)).is_ok());
    let fp4 = MmaKind::Mxf4 { k: Fp4K::K64, sfa_id: 0, sfb_id: 0 };
    assert!(matches!(err(MmaParams::new(fp4, Cta1, 128, 128).with_majors(Major::K, Major::MN)), DescError::Unsupported { .. }));
    // sparsity selector range, and reserved for block-scaled kinds
    let sp = |s| Sparsity::Sparse { selector: s };
    assert_eq!(
        err(MmaParams::new(BF16_F32, Cta1, 128, 128).with_sparsity(sp(4))),
        DescError::OutOfRange { field: "sparsity selector", value: 4, max: 3 }
    );
    assert!(matches!(err(MmaParams::new(fp4, Cta1, 128, 128).with_sparsity(sp(1))), DescError::Value { field: "sparsity selector", .. }));
    // max shift outside .ws; block-scaled .ws
    assert!(matches!(err(MmaParams::new(BF16_F32, Cta1, 128, 128).with_max_shift(MaxShift::By8)), DescError::Unsupported { .. }));
    assert!(matches!(err(MmaParams::new(fp4, Ws, 128, 128)), DescError::Unsupported { kind: "kind::mxf4", .. }));
    // K = 96: dense, cta_group::2, M 256
    let k96 = MmaKind::Mxf4 { k: Fp4K::K96, sfa_id: 0, sfb_id: 0 };
    assert!(InstrDesc::new(&MmaParams::new(k96, Cta2, 256, 128)).is_ok());
    for p in
        [MmaParams::new(k96, Cta1, 128, 128), MmaParams::new(k96, Cta2, 128, 128), MmaParams::new(k96, Cta2, 256, 128).with_sparsity(sp(0))]
    {
        assert!(matches!(err(p), DescError::Unsupported { .. }), "{p}");
    }
    // scale-factor IDs per scale vector
    let mx8 = |a, b| MmaParams::new(MmaKind::Mxf8f6f4 { a: F8f6f4Type::E4m3, b: F8f6f4Type::E4m3, sfa_id: a, sfb_id: b }, Cta1, 128, 64);
    assert!(InstrDesc::new(&mx8(3, 3)).is_ok());
    assert!(matches!(err(mx8(4, 0)), DescError::Value { field: "scale factor A ID", value: 4, .. }));
    let mx4 = |k, a, b| MmaParams::new(MmaKind::Mxf4 { k, sfa_id: a, sfb_id: b }, Cta2, 256, 64);
    assert!(InstrDesc::new(&mx4(Fp4K::K64, 2, 0)).is_ok());
    assert!(matches!(err(mx4(Fp4K::K64, 1, 0)), DescError::Value { field: "scale factor A ID", value: 1, .. }));
    assert!(InstrDesc::new(&mx4(Fp4K::K96, 3, 1)).is_ok());
    let nv = |scale, k, a, b| MmaParams::new(MmaKind::Mxf4nvf4 { scale, k, sfa_id: a, sfb_id: b }, Cta2, 256, 64);
    assert!(matches!(err(nv(Fp4Scale::Ue4m3Block16, Fp4K::K64, 0, 2)), DescError::Value { field: "scale factor B ID", value: 2, .. }));
    assert!(InstrDesc::new(&nv(Fp4Scale::Ue8m0Block32, Fp4K::K64, 0, 2)).is_ok());
    assert!(InstrDesc::new(&nv(Fp4Scale::Ue8m0Block16, Fp4K::K96, 2, 2)).is_ok());
    assert!(matches!(err(nv(Fp4Scale::Ue8m0Block16, Fp4K::K96, 1, 0)), DescError::Value { .. }));
    // every error names its field or rule
    assert_eq!(
        err(mx4(Fp4K::K64, 1, 0)).to_string(),
        "scale factor A ID = 1 is not allowed here: block32 with K = 64 selects a half word: 0 or 2"
    );
    assert_eq!(err(MmaParams::new(f16, Cta1, 128, 128)).to_string(), "kind::f16: bf16 inputs accumulate in f32 only");
    assert_eq!(
        InstrDesc::decode(0x0840_0490 | 1 << 6, KindTag::F16, Cta1).unwrap_err().to_string(),
        "descriptor field reserved bits holds 0x40, which no legal parameters encode"
    );
    // a shape error says what is legal
    let e = err(MmaParams::new(BF16_F32, Cta2, 64, 128));
    assert_eq!(
        e.to_string(),
        "tcgen05.mma kind::f16 .cta_group::2 has no M = 64, N = 128 shape: M = 128 or 256, N = 16..256 in steps of 16"
    );
}

#[test]
fn decode_rejects_bits_no_parameters_make() {
    use MmaIssue::*;
    let good = 0x0840_0490; // kind::f16 bf16 -> f32, 128 x 256
    assert!(InstrDesc::decode(good, KindTag::F16, Cta1).is_ok());
    for bit in [6, 23, 29] {
        assert!(matches!(InstrDesc::decode(good | 1 << bit, KindTag::F16, Cta1), Err(DescError::Encoding { .. })), "bit {bit}");
    }
    // f16 A with bf16 B; tf32 codes under kind::f16; D type 3
    assert!(matches!(InstrDesc::decode(good & !(1 << 10), KindTag::F16, Cta1), Err(DescError::Encoding { .. })));
    assert!(InstrDesc::decode(good, KindTag::Tf32, Cta1).is_err());
    assert!(InstrDesc::decode(good | 3 << 4, KindTag::F16, Cta1).is_err());
    // a selector without the sparse bit; saturate outside kind::i8; the same bits as .ws
    // with a max shift are refused for cta_group::1
    assert!(InstrDesc::decode(good | 1, KindTag::F16, Cta1).is_err());
    assert!(InstrDesc::decode(good | 1 << 3, KindTag::F16, Cta1).is_err());
    assert!(InstrDesc::decode(0x8210_0490, KindTag::F16, Cta1).is_err());
    assert!(InstrDesc::decode(0x8210_0490, KindTag::F16, Ws).is_ok());
    // an undefined f8f6f4 code (2) and a reserved block-scaled bit (24)
    let f8 = 0x0810_1416u32;
    assert!(InstrDesc::decode(f8, KindTag::F8f6f4, Cta1).is_ok());
    assert!(InstrDesc::decode((f8 & !(7 << 10)) | 2 << 10, KindTag::F8f6f4, Cta1).is_err());
    let bs = 0x68C0_0090u32;
    assert!(InstrDesc::decode(bs, KindTag::Mxf8f6f4, Cta1).is_ok());
    assert!(InstrDesc::decode(bs | 1 << 24, KindTag::Mxf8f6f4, Cta1).is_err());
    assert!(InstrDesc::decode(bs | 1 << 31, KindTag::Mxf8f6f4, Cta1).is_err());
}

use super::test_rng::{next as rng, seed};

fn pick<T: Copy>(s: &mut u64, from: &[T]) -> T {
    from[(rng(s) % from.len() as u64) as usize]
}

fn random_params(s: &mut u64) -> MmaParams {
    use F8f6f4Type::*;
    let f8 = [E4m3, E5m2, E2m3, E3m2, E2m1];
    let id = |s: &mut u64| pick(s, &[0u8, 0, 0, 0, 2, 2, 1, 3, 4]); // 4 is never legal
    let k = |s: &mut u64| pick(s, &[Fp4K::K64, Fp4K::K64, Fp4K::K64, Fp4K::K96]);
    let kind = match rng(s) % 7 {
        0 => MmaKind::F16 { ab: pick(s, &[F16Type::F16, F16Type::Bf16]), d: pick(s, &[FloatAccum::F16, FloatAccum::F32]) },
        1 => MmaKind::Tf32,
        2 => MmaKind::F8f6f4 { a: pick(s, &f8), b: pick(s, &f8), d: pick(s, &[FloatAccum::F16, FloatAccum::F32]) },
        3 => {
            MmaKind::I8 { a: pick(s, &[I8Type::U8, I8Type::S8]), b: pick(s, &[I8Type::U8, I8Type::S8]), saturate: rng(s).is_multiple_of(2) }
        }
        4 => MmaKind::Mxf8f6f4 { a: pick(s, &f8), b: pick(s, &f8), sfa_id: id(s), sfb_id: id(s) },
        5 => MmaKind::Mxf4 { k: k(s), sfa_id: id(s), sfb_id: id(s) },
        _ => MmaKind::Mxf4nvf4 {
            scale: pick(s, &[Fp4Scale::Ue8m0Block32, Fp4Scale::Ue8m0Block16, Fp4Scale::Ue4m3Block16]),
            k: k(s),
            sfa_id: id(s),
            sfb_id: id(s),
        },
    };
    let issue = pick(s, &[MmaIssue::Cta1, MmaIssue::Cta1, MmaIssue::Cta2, MmaIssue::Ws]);
    let m = pick(s, &[32, 64, 64, 128, 128, 128, 256, 256, 96, 512]);
    let n = if rng(s).is_multiple_of(8) { (rng(s) % 300) as u32 } else { 8 * (rng(s) % 33) as u32 };
    let sparsity = if rng(s).is_multiple_of(3) { Sparsity::Sparse { selector: (rng(s) % 5) as u8 } } else { Sparsity::Dense };
    let bit = |s: &mut u64| rng(s).is_multiple_of(4);
    let major = |s: &mut u64| if bit(s) { Major::MN } else { Major::K };
    MmaParams::new(kind, issue, m, n).with_sparsity(sparsity).with_negate(bit(s), bit(s)).with_majors(major(s), major(s)).with_max_shift(
        if issue == MmaIssue::Ws && bit(s) { pick(s, &[MaxShift::By8, MaxShift::By16, MaxShift::By32]) } else { MaxShift::None },
    )
}

#[test]
fn random_parameters_round_trip() {
    let mut s = seed("random_parameters_round_trip");
    let mut accepted = [0u32; 7];
    for _ in 0..100_000 {
        let p = random_params(&mut s);
        let Ok(d) = InstrDesc::new(&p) else { continue };
        let tag = p.kind.tag();
        accepted[tag as usize] += 1;
        // the block size of ue8m0 mxf4nvf4 is not in the bits; decode reads block32
        let mut want = p;
        if let MmaKind::Mxf4nvf4 { scale: scale @ Fp4Scale::Ue8m0Block16, .. } = &mut want.kind {
            *scale = Fp4Scale::Ue8m0Block32;
        }
        assert_eq!(InstrDesc::decode(d.bits(), tag, p.issue), Ok(want), "{p} -> {d}");
        assert_eq!((d.m(), d.n()), (p.m, p.n), "{p}");
    }
    // every kind had legal draws
    eprintln!("accepted per kind: {accepted:?}");
    assert!(accepted.iter().all(|&c| c > 150), "{accepted:?}");
}

#[test]
fn random_legal_shapes_encode() {
    // Drawn from the table for kind::f16 bf16 -> f32, so each must encode, with its
    // M and N in the fields.
    let mut s = seed("random_legal_shapes_encode");
    for _ in 0..5_000 {
        let (issue, m, n) = match rng(&mut s) % 3 {
            0 => (MmaIssue::Cta1, pick(&mut s, &[64, 128]), 8 * (1 + rng(&mut s) % 32) as u32),
            1 => (MmaIssue::Cta2, pick(&mut s, &[128, 256]), 16 * (1 + rng(&mut s) % 16) as u32),
            _ => (MmaIssue::Ws, pick(&mut s, &[32, 64, 128]), pick(&mut s, &[64, 128, 256])),
        };
        let bits = enc(MmaParams::new(BF16_F32, issue, m, n));
        assert_eq!(bits, 0x490 | (n >> 3) << 17 | (m >> 4) << 24);
    }
}

#[test]
fn operand_layouts_and_k() {
    let tf32 = MmaParams::new(MmaKind::Tf32, MmaIssue::Cta1, 128, 128);
    let bf16 = MmaParams::new(BF16_F32, MmaIssue::Cta1, 128, 128);
    assert!(tf32.operand_layout_ok(Major::MN, Tcgen05Swizzle::B128Atom32));
    assert!(!tf32.operand_layout_ok(Major::MN, Tcgen05Swizzle::B128));
    assert!(tf32.operand_layout_ok(Major::K, Tcgen05Swizzle::B128));
    assert!(!bf16.operand_layout_ok(Major::MN, Tcgen05Swizzle::B128Atom32));
    assert!(bf16.operand_layout_ok(Major::MN, Tcgen05Swizzle::B64));
    assert!(!bf16.operand_layout_ok(Major::K, Tcgen05Swizzle::B128Atom32));
    assert_eq!((tf32.k(), bf16.k(), bf16.with_sparsity(Sparsity::Sparse { selector: 0 }).k()), (8, 16, 32));
    let k96 = MmaParams::new(MmaKind::Mxf4 { k: Fp4K::K96, sfa_id: 0, sfb_id: 0 }, MmaIssue::Cta2, 256, 128);
    assert_eq!(k96.k(), 96);
    assert_eq!(InstrDesc::new(&bf16).unwrap().to_string(), "0x08200490 (M 128, N 128)");
    let p = bf16.with_negate(false, true).with_majors(Major::MN, Major::K);
    assert_eq!(p.to_string(), "tcgen05.mma.cta_group::1 m128n128k16 kind::f16 bf16 x bf16 -> f32, negate B, A MN-major, B K-major");
    assert_eq!(
        k96.with_sparsity(Sparsity::Dense).to_string(),
        "tcgen05.mma.cta_group::2 m256n128k96 kind::mxf4 e2m1 x e2m1 -> f32, ue8m0 per 32, K 96, SF A 0 B 0, A K-major, B K-major"
    );
    let ws = MmaParams::new(MmaKind::I8 { a: I8Type::S8, b: I8Type::U8, saturate: true }, MmaIssue::Ws, 64, 64)
        .with_sparsity(Sparsity::Sparse { selector: 1 })
        .with_max_shift(MaxShift::By32);
    assert_eq!(
        ws.to_string(),
        "tcgen05.mma.ws.cta_group::1 m64n64k64 kind::i8 s8 x u8 -> s32, saturating, sparse (selector 1), A K-major, B K-major, max shift 32"
    );
}
