//! Data movement and atomics: mov; ld/st over every state space with cache operators,
//! .volatile/.relaxed/.acquire/.release and scopes, .v2/.v4; ldu; prefetch; isspacep;
//! atom and red with semantics, scopes, cas and exch.
//!
//! An address operand `[T]` takes a pointer in the chain's state space (generic when the
//! chain names none) whose element type the instruction type accepts; shared-space
//! addresses are 32-bit.

ptxkit_macros::forms! {
//  form                                                      dst = operands
    "mov.<T:movt>"                                            "T = T";
    "mov.b128"                                                "b128 = b128";
    "mov.b32"                                                 "b32 = v2(b16)" as pack;
    "mov.b64"                                                 "b64 = v2(b32)" as pack;
    "mov.b32"                                                 "v2(b16) = b32" as unpack;
    "mov.b64"                                                 "v2(b32) = b64" as unpack;
    "mov.b128"                                                "b128 = v2(b64)" as pack;
    "mov.b128"                                                "v2(b64) = b128" as unpack;
    "ld{.<ss>}.<T:ldt>"                                       "T = [T]";
    "ld{.<ss>}.<V:vec>.<T:ldv4t>"                             "V(T) = [T]";
    "ld{.<ss>}.v2.<T:ldv64>"                                  "v2(T) = [T]";
    "ld{.<ss>}.<V:vec>.<T:b8|u8|s8>"                          "V(T) = [T]";
    "ld{.global}.v4.<T:ldv64>"                                "v4(T) = [T]";
    "ld{.global}.<ldcop>.<T:ldt>"                             "T = [T]";
    "ld{.global}.<ldcop>.<V:vec>.<T:ldv4t>"                   "V(T) = [T]";
    "ld{.global}.<ldcop>.v2.<T:ldv64>"                        "v2(T) = [T]";
    "ld.global.nc{.<ca|cg|cs>}.<T:ldt>"                       "T = [T]";
    "ld.global.nc{.<ca|cg|cs>}.<V:vec>.<T:ldv4t>"             "V(T) = [T]";
    "ld.global.nc{.<ca|cg|cs>}.v2.<T:ldv64>"                  "v2(T) = [T]";
    "ld.volatile{.<gss>}.<T:ldt>"                             "T = [T]";
    "ld.volatile{.<gss>}.<V:vec>.<T:ldv4t>"                   "V(T) = [T]";
    "ld.volatile{.<gss>}.v2.<T:ldv64>"                        "v2(T) = [T]";
    "ld.<relaxed|acquire>.<scope>{.<gss>}.<T:ldt>"            "T = [T]";
    "ld.<relaxed|acquire>.<scope>{.<gss>}.<V:vec>.<T:ldv4t>"  "V(T) = [T]";
    "ld.<relaxed|acquire>.<scope>{.<gss>}.v2.<T:ldv64>"       "v2(T) = [T]";
    "ld{.<ss>}.b128"                                          "b128 = [b128]";
    "st{.<stss>}.<T:ldt>"                                     "- = [T], T";
    "st{.<stss>}.<V:vec>.<T:ldv4t>"                           "- = [T], V(T)";
    "st{.<stss>}.v2.<T:ldv64>"                                "- = [T], v2(T)";
    "st{.<stss>}.<V:vec>.<T:b8|u8|s8>"                        "- = [T], V(T)";
    "st{.global}.v4.<T:ldv64>"                                "- = [T], v4(T)";
    "st{.global}.<stcop>.<T:ldt>"                             "- = [T], T";
    "st{.global}.<stcop>.<V:vec>.<T:ldv4t>"                   "- = [T], V(T)";
    "st{.global}.<stcop>.v2.<T:ldv64>"                        "- = [T], v2(T)";
    "st.volatile{.<gss>}.<T:ldt>"                             "- = [T], T";
    "st.volatile{.<gss>}.<V:vec>.<T:ldv4t>"                   "- = [T], V(T)";
    "st.volatile{.<gss>}.v2.<T:ldv64>"                        "- = [T], v2(T)";
    "st.<relaxed|release>.<scope>{.<gss>}.<T:ldt>"            "- = [T], T";
    "st.<relaxed|release>.<scope>{.<gss>}.<V:vec>.<T:ldv4t>"  "- = [T], V(T)";
    "st.<relaxed|release>.<scope>{.<gss>}.v2.<T:ldv64>"       "- = [T], v2(T)";
    "st{.<stss>}.b128"                                        "- = [b128], b128";
    "ldu{.global}.<T:ldt>"                                    "T = [T]";
    "ldu{.global}.<V:vec>.<T:ldv4t>"                          "V(T) = [T]";
    "ldu{.global}.v2.<T:ldv64>"                               "v2(T) = [T]";
    "prefetch{.<global|local>}.<L1|L2>"                       "- = []";
    "prefetch.global.<L2::evict_last|L2::evict_normal>"       "- = []";
    "prefetchu.L1"                                            "- = []";
    "isspacep.<global|shared|shared::cta|shared::cluster|local|const|param>" "pred = u64";
    "atom{.<sem>.<scope>}{.<global|shared|shared::cluster>}.<and|or|xor|exch>.<T:bits3264>" "T = [T], T";
    "atom{.<sem>.<scope>}{.<global|shared|shared::cluster>}.cas.<T:bits3264>"              "T = [T], T, T";
    "atom{.<sem>.<scope>}{.<global|shared|shared::cluster>}.add.<T:u32|s32|u64|f32|f64>"   "T = [T], T";
    "atom{.<sem>.<scope>}{.<global|shared|shared::cluster>}.<inc|dec>.u32"                 "u32 = [u32], u32";
    "atom{.<sem>.<scope>}{.<global|shared|shared::cluster>}.<min|max>.<T:atomminmax>"     "T = [T], T";
    "atom{.<sem>.<scope>}{.<global|shared|shared::cluster>}.exch.b128"                     "b128 = [b128], b128";
    "atom{.<sem>.<scope>}{.<global|shared|shared::cluster>}.cas.b128"                      "b128 = [b128], b128, b128";
    "red{.<relaxed|release>.<scope>}{.<global|shared|shared::cluster>}.<and|or|xor>.<T:bits3264>" "- = [T], T";
    "red{.<relaxed|release>.<scope>}{.<global|shared|shared::cluster>}.add.<T:u32|s32|u64|f32|f64>" "- = [T], T";
    "red{.<relaxed|release>.<scope>}{.<global|shared|shared::cluster>}.<inc|dec>.u32"     "- = [u32], u32";
    "red{.<relaxed|release>.<scope>}{.<global|shared|shared::cluster>}.<min|max>.<T:atomminmax>" "- = [T], T";
}
