//! Compare and select: setp (single, boolean-combined and dual-predicate `p|q` forms),
//! selp, set and slct.
//!
//! The dual-predicate rows (`as pair`) are the wrapper pattern: the same chain as the
//! chain default with another destination layout, reached with
//! `ptx!(k, "setp.lt.s32" as pair, a, b)` and returning `(Reg<Pred>, Reg<Pred>)`.

ptxkit_macros::forms! {
//  form                                              dst = operands
    "setp.<ucmp>.<T:uint>"                            "pred = T, T";
    "setp.<icmp>.<T:sint>"                            "pred = T, T";
    "setp.<bcmp>.<T:bits>"                            "pred = T, T";
    "setp.<fcmp>{.ftz}.f32"                           "pred = f32, f32";
    "setp.<fcmp>.f64"                                 "pred = f64, f64";
    "setp.<hcmp>{.ftz}.f16"                           "pred = f16, f16";
    "setp.<hcmp>.bf16"                                "pred = bf16, bf16";
    "setp.<ucmp>.<boolop>.<T:uint>"                   "pred = T, T, pred";
    "setp.<icmp>.<boolop>.<T:sint>"                   "pred = T, T, pred";
    "setp.<fcmp>.<boolop>{.ftz}.f32"                  "pred = f32, f32, pred";
    "setp.<fcmp>.<boolop>.f64"                        "pred = f64, f64, pred";
    "setp.<ucmp>.<T:uint>"                            "pred|pred = T, T" as pair;
    "setp.<icmp>.<T:sint>"                            "pred|pred = T, T" as pair;
    "setp.<bcmp>.<T:bits>"                            "pred|pred = T, T" as pair;
    "setp.<fcmp>{.ftz}.f32"                           "pred|pred = f32, f32" as pair;
    "setp.<fcmp>.f64"                                 "pred|pred = f64, f64" as pair;
    "setp.<hcmp>{.ftz}.f16x2"                         "pred|pred = f16x2, f16x2";
    "setp.<hcmp>.bf16x2"                              "pred|pred = bf16x2, bf16x2";
    "selp.<T:selpt>"                                  "T = T, T, pred";
    "set.<ucmp>.<D:u32|s32|f32>.<T:uint>"             "D = T, T";
    "set.<icmp>.<D:u32|s32|f32>.<T:sint>"             "D = T, T";
    "set.<fcmp>{.ftz}.<D:u32|s32|f32>.f32"            "D = f32, f32";
    "set.<fcmp>.<D:u32|s32|f32>.f64"                  "D = f64, f64";
    "slct.<T:selpt>.s32"                              "T = T, T, s32";
    "slct{.ftz}.<T:selpt>.f32"                        "T = T, T, f32";
}
