//! Conversions: `cvt` across the standard types with rounding, saturation and ftz, the
//! packing forms (`cvt.rn.bf16x2.f32 d, a, b` puts `a` in the upper half) whose results are
//! integer-register carriers typed as the packed format, and `cvta`.

ptxkit_macros::forms! {
//  form                                              dst = operands
    "cvt.<D:cvti>.<A:cvti>"                           "D = A";
    "cvt.sat.u8.<A:u16|u32|u64|s8|s16|s32|s64>"       "u8 = A";
    "cvt.sat.u16.<A:u32|u64|s8|s16|s32|s64>"          "u16 = A";
    "cvt.sat.u32.<A:u64|s8|s16|s32|s64>"              "u32 = A";
    "cvt.sat.u64.<A:s8|s16|s32|s64>"                  "u64 = A";
    "cvt.sat.s8.<A:u8|u16|u32|u64|s16|s32|s64>"       "s8 = A";
    "cvt.sat.s16.<A:u16|u32|u64|s32|s64>"             "s16 = A";
    "cvt.sat.s32.<A:u32|u64|s64>"                     "s32 = A";
    "cvt.sat.s64.u64"                                 "s64 = u64";
    "cvt.<irnd>{.ftz}{.sat}.<D:cvti>.f32"             "D = f32";
    "cvt.<irnd>{.sat}.<D:cvti>.<A:f64|f16>"           "D = A";
    "cvt.<irnd>.<D:u16|u32|u64|s16|s32|s64>.bf16"     "D = bf16";
    "cvt.<rnd>{.sat}.<D:f16|f32|f64>.<A:cvti>"        "D = A";
    "cvt.<rnd>.bf16.<A:u16|u32|u64|s16|s32|s64>"      "bf16 = A";
    "cvt{.ftz}{.sat}.f32.f32"                         "f32 = f32";
    "cvt.<irnd>{.ftz}{.sat}.f32.f32"                  "f32 = f32";
    "cvt.<irnd>{.sat}.f64.f64"                        "f64 = f64";
    "cvt{.ftz}{.sat}.f64.f32"                         "f64 = f32";
    "cvt.<rnd>{.ftz}{.sat}.f32.f64"                   "f32 = f64";
    "cvt.<rnd>{.ftz}{.sat}.f16.f32"                   "f16 = f32";
    "cvt.<rnd>{.sat}.f16.f64"                         "f16 = f64";
    "cvt{.ftz}{.sat}.f32.f16"                         "f32 = f16";
    "cvt{.sat}.f64.f16"                               "f64 = f16";
    "cvt.<rn|rz>{.relu}{.satfinite}.bf16.f32"         "bf16 = f32";
    "cvt.<rm|rp>.bf16.f32"                            "bf16 = f32";
    "cvt.f32.bf16"                                    "f32 = bf16";
    "cvt.rn{.relu}{.satfinite}.<T:f16x2|bf16x2>.f32"  "T = f32, f32";
    "cvt.rna{.satfinite}.tf32.f32"                    "tf32 = f32";
    "cvt.<rn|rz>{.relu}{.satfinite}.tf32.f32"         "tf32 = f32";
    "cvt.rn.satfinite{.relu}.<T:e4m3x2|e5m2x2>.f32"   "T = f32, f32";
    "cvt.rn.satfinite{.relu}.<T:e4m3x2|e5m2x2>.f16x2" "T = f16x2";
    "cvt.rn{.relu}.f16x2.<T:e4m3x2|e5m2x2>"           "f16x2 = T";
    "cvt.rn.satfinite{.relu}.<T:e2m3x2|e3m2x2>.f32" "T = f32, f32";
    "cvt.rn{.relu}.f16x2.<T:e2m3x2|e3m2x2>"    "f16x2 = T";
    "cvt.<rz|rp>{.satfinite}.ue8m0x2.f32"             "ue8m0x2 = f32, f32";
    "cvt.rn.bf16x2.ue8m0x2"                           "bf16x2 = ue8m0x2";
    "cvt.rs{.relu}.satfinite.<T:e4m3x4|e5m2x4|e2m3x4|e3m2x4|e2m1x4>.f32" "T = v4(f32), u32";
    "cvta.<cvtass>.u64"                               "u64 = u64";
    "cvta.to.<cvtass>.u64"                            "u64 = u64";
}
