//! The PTX vocabulary: every opcode, modifier and data-type token that `ptx!` and `forms!`
//! understand, and the named token sets that family tables use in their patterns.
//!
//! A token maps to a Rust type by [`rust_ident`]: `shared::cta` -> `SharedCta`,
//! `acq_rel` -> `AcqRel`, `f16x2` -> `F16x2`, `3d` -> `N3d`. Opcodes live in
//! `ptxkit::ops::op`, modifiers in `ptxkit::ops::m`, data types in `ptxkit::types`.

/// First part of a chain.
#[rustfmt::skip]
pub const OPCODES: &[&str] = &[
    // arithmetic
    "add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min", "max", "copysign",
    "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "addc", "subc", "madc", "testp",
    // bits
    "and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "lop3", "prmt", "bfe", "bfi", "brev",
    "popc", "clz", "bfind", "fns", "bmsk",
    // compare and select
    "setp", "selp", "set", "slct",
    // conversion and movement
    "cvt", "cvta", "mov", "ld", "st", "ldu", "prefetch", "prefetchu", "isspacep",
    // atomics
    "atom", "red",
    // synchronisation and warp
    "bar", "barrier", "fence", "membar", "vote", "shfl", "match", "redux", "activemask", "elect",
    // control
    "bra", "call", "ret", "exit", "trap", "nanosleep", "brkpt", "pmevent",
    // later families (tables arrive with them)
    "mma", "wgmma", "cp", "mbarrier", "ldmatrix", "stmatrix", "tcgen05", "setmaxnreg",
    "tensormap", "griddepcontrol", "mapa", "getctarank", "multimem", "clusterlaunchcontrol",
];

/// Non-type modifiers.
#[rustfmt::skip]
pub const MODIFIERS: &[&str] = &[
    // rounding, precision, saturation
    "rn", "rz", "rm", "rp", "rna", "rs", "rni", "rzi", "rmi", "rpi", "ftz", "sat", "satfinite",
    "approx", "full", "relu", "nan", "NaN", "xorsign", "abs", "oob",
    // integer width selection and carry
    "lo", "hi", "wide", "cc",
    // comparisons (`lo`, `hi` above double as unsigned comparisons)
    "eq", "ne", "lt", "le", "gt", "ge", "ls", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu",
    "num",
    // boolean and reduction operators
    "and", "or", "xor", "add", "inc", "dec", "min", "max", "cas", "exch", "popc",
    // shifts and permutes
    "l", "r", "wrap", "clamp", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", "shiftamt",
    // state spaces
    "global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "to",
    // memory semantics and scopes
    "weak", "volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio", "cta",
    "cluster", "gpu", "sys", "gl",
    // cache operators and eviction hints
    "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "L1", "L2", "L2::evict_last",
    "L2::evict_normal", "L1::evict_last", "L1::evict_first", "L1::no_allocate",
    // vectors
    "v2", "v4", "v8",
    // barriers and warp ops
    "sync", "arrive", "wait", "red", "aligned", "warp", "all", "any", "uni", "ballot", "up", "down",
    "bfly", "idx", "proxy", "async", "alias",
    // testp classes
    "finite", "infinite", "number", "notanumber", "normal", "subnormal",
];

/// Data-type tokens (`ptxkit::types`).
#[rustfmt::skip]
pub const DTYPES: &[&str] = &[
    "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
    "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "f32x2", "e4m3x2", "e5m2x2",
    "e2m1x2", "e3m2x2", "e2m3x2", "ue8m0x2", "e4m3x4", "e5m2x4", "e2m1x4", "e3m2x4", "e2m3x4",
];

/// Named sets for `forms!` patterns: `.<rnd>` picks one member, `.<T:int>` binds `T`.
#[rustfmt::skip]
pub const SETS: &[(&str, &[&str])] = &[
    ("rnd", &["rn", "rz", "rm", "rp"]),
    ("irnd", &["rni", "rzi", "rmi", "rpi"]),
    ("cmp", &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]),
    ("icmp", &["eq", "ne", "lt", "le", "gt", "ge"]),
    ("ucmp", &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]),
    ("bcmp", &["eq", "ne"]),
    ("fcmp", &["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]),
    ("hcmp", &["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]),
    ("boolop", &["and", "or", "xor"]),
    ("scope", &["cta", "cluster", "gpu", "sys"]),
    ("ldcop", &["ca", "cg", "cs", "lu", "cv"]),
    ("stcop", &["wb", "cg", "cs", "wt"]),
    ("vec", &["v2", "v4"]),
    ("ss", &["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"]),
    ("gss", &["global", "shared", "shared::cta", "shared::cluster"]),
    ("stss", &["global", "shared", "shared::cta", "shared::cluster", "local", "param"]),
    ("cvtass", &["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"]),
    ("atomss", &["global", "shared", "shared::cta", "shared::cluster"]),
    ("sem", &["relaxed", "acquire", "release", "acq_rel"]),
    ("shflmode", &["up", "down", "bfly", "idx"]),
    ("prmtmode", &["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]),
    ("testpop", &["finite", "infinite", "number", "notanumber", "normal", "subnormal"]),
    // data-type sets
    ("int", &["u16", "u32", "u64", "s16", "s32", "s64"]),
    ("int32", &["u32", "s32"]),
    ("int64", &["u32", "s32", "u64", "s64"]),
    ("sint", &["s16", "s32", "s64"]),
    ("uint", &["u16", "u32", "u64"]),
    ("bits", &["b16", "b32", "b64"]),
    ("bits3264", &["b32", "b64"]),
    ("lbits", &["pred", "b16", "b32", "b64"]),
    ("f3264", &["f32", "f64"]),
    ("half", &["f16", "f16x2"]),
    ("bhalf", &["bf16", "bf16x2"]),
    ("halves", &["f16", "f16x2", "bf16", "bf16x2"]),
    ("movt", &["pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]),
    ("setpt", &["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]),
    ("selpt", &["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]),
    ("ldt", &["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"]),
    ("ldv4t", &["b16", "b32", "u16", "u32", "s16", "s32", "f32"]),
    ("ldv64", &["b64", "u64", "s64", "f64"]),
    ("cvti", &["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]),
    ("atomint", &["u32", "s32", "u64", "s64"]),
    ("atombit", &["b32", "b64"]),
    ("atomminmax", &["u32", "s32", "u64", "s64"]),
    ("exch", &["b32", "b64"]),
    ("reduxint", &["u32", "s32"]),
];

/// The Rust type name a PTX token maps to.
pub fn rust_ident(tok: &str) -> String {
    let mut out = String::new();
    if tok.starts_with(|c: char| c.is_ascii_digit()) {
        out.push('N');
    }
    for piece in tok.split("::").flat_map(|p| p.split('_')) {
        let mut cs = piece.chars();
        if let Some(c) = cs.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    out
}

pub fn is_opcode(t: &str) -> bool {
    OPCODES.contains(&t)
}
pub fn is_dtype(t: &str) -> bool {
    DTYPES.contains(&t)
}
pub fn is_modifier(t: &str) -> bool {
    MODIFIERS.contains(&t)
}
pub fn set(name: &str) -> Option<&'static [&'static str]> {
    SETS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}
