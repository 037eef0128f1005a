//! Bit operations: logic, shifts, funnel shifts, lop3, prmt, bit-field extract/insert,
//! reverse, population count, leading zeros, find-bit, find-nth-set and bit masks.

ptxkit_macros::forms! {
//  form                                              dst = operands
    "and.<T:lbits>"                                   "T = T, T";
    "or.<T:lbits>"                                    "T = T, T";
    "xor.<T:lbits>"                                   "T = T, T";
    "not.<T:lbits>"                                   "T = T";
    "cnot.<T:bits>"                                   "T = T";
    "shl.<T:bits>"                                    "T = T, u32";
    "shr.<T:b16|b32|b64|u16|u32|u64|s16|s32|s64>"     "T = T, u32";
    "shf.<l|r>.<wrap|clamp>.b32"                      "b32 = b32, b32, u32";
    "lop3.b32"                                        "b32 = b32, b32, b32, imm(u8)";
    "prmt.b32{.<prmtmode>}"                           "b32 = b32, b32, b32";
    "bfe.<T:u32|u64|s32|s64>"                         "T = T, u32, u32";
    "bfi.<T:bits3264>"                                "T = T, T, u32, u32";
    "brev.<T:bits3264>"                               "T = T";
    "popc.<T:bits3264>"                               "u32 = T";
    "clz.<T:bits3264>"                                "u32 = T";
    "bfind{.shiftamt}.<T:u32|u64|s32|s64>"            "u32 = T";
    "fns.b32"                                         "b32 = b32, u32, s32";
    "bmsk.<clamp|wrap>.b32"                           "b32 = u32, u32";
}
