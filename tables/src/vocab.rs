//! The fixed vocabulary of the tables: the data-type tokens, the state spaces, the named
//! token sets rows use and the selector sets. Opcodes, modifiers and variants are not listed
//! here: they are whatever the tables use and declare (see `load.rs`).
//!
//! A token maps to a Rust type by [`rust_ident`]: `shared::cta` -> `SharedCta`,
//! `acq_rel` -> `AcqRel`, `f16x2` -> `F16x2`, `3d` -> `N3d`.

/// Data-type tokens: the types of `ptxkit::types` (a test checks the two lists agree).
#[rustfmt::skip]
pub const DTYPES: &[&str] = &[
    "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
    "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "f32x2", "e4m3x2", "e5m2x2",
    "e2m1x2", "e3m2x2", "e2m3x2", "ue8m0x2", "s2f6x2", "ue5m3x2", "e4m3x4", "e5m2x4", "e2m1x4", "e3m2x4", "e2m3x4",
    "e4m3", "e5m2", "gdesc",
];

/// State spaces an address operand can name (`[T@shared::cluster]`); `tmem` is tensor memory.
pub const SPACES: &[&str] = &["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param", "tmem"];

/// Chain parts that name a state space of [`SPACES`] by a narrower name: `ld.param::entry`
/// reads a kernel parameter, whose address is a `.param` address.
pub const SPACE_ALIASES: &[(&str, &str)] = &[("param::entry", "param"), ("param::func", "param")];

/// Named sets for patterns: `.<rnd>` picks one member, `.<T:int>` binds `T` to it.
#[rustfmt::skip]
pub const SETS: &[(&str, &[&str])] = &[
    // modifiers
    ("rnd", &["rn", "rz", "rm", "rp"]),
    ("irnd", &["rni", "rzi", "rmi", "rpi"]),
    ("icmp", &["eq", "ne", "lt", "le", "gt", "ge"]),
    ("ucmp", &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]),
    ("bcmp", &["eq", "ne"]),
    ("fcmp", &["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]),
    ("boolop", &["and", "or", "xor"]),
    ("scope", &["cta", "cluster", "gpu", "sys"]),
    ("sem", &["relaxed", "acquire", "release", "acq_rel"]),
    ("ldcop", &["ca", "cg", "cs", "lu", "cv"]),
    ("l1evict", &["L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate"]),
    ("l2evict", &["L2::evict_normal", "L2::evict_first", "L2::evict_last"]),
    ("pfsize", &["L2::64B", "L2::128B", "L2::256B"]),
    ("stcop", &["wb", "cg", "cs", "wt"]),
    ("vec", &["v2", "v4"]),
    ("shflmode", &["up", "down", "bfly", "idx"]),
    ("prmtmode", &["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]),
    ("testpop", &["finite", "infinite", "number", "notanumber", "normal", "subnormal"]),
    ("suclamp", &["trap", "clamp", "zero"]),
    // state spaces
    ("ss", &["global", "shared", "shared::cta", "shared::cluster", "local", "const", "param"]),
    ("stss", &["global", "shared", "shared::cta", "shared::cluster", "local", "param"]),
    ("gss", &["global", "shared", "shared::cta", "shared::cluster"]),
    // data types
    ("int", &["u16", "u32", "u64", "s16", "s32", "s64"]),
    ("int3264", &["u32", "s32", "u64", "s64"]),
    ("sint", &["s16", "s32", "s64"]),
    ("uint", &["u16", "u32", "u64"]),
    ("bits", &["b16", "b32", "b64"]),
    ("bits3264", &["b32", "b64"]),
    ("lbits", &["pred", "b16", "b32", "b64"]),
    ("f3264", &["f32", "f64"]),
    ("half", &["f16", "f16x2"]),
    ("bhalf", &["bf16", "bf16x2"]),
    ("movt", &["pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]),
    ("selpt", &["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]),
    ("ldt128", &["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"]),
    ("ldvt", &["b8", "b16", "b32", "u8", "u16", "u32", "s8", "s16", "s32", "f32"]),
    ("ldv64", &["b64", "u64", "s64", "f64"]),
    ("ldv8", &["b32", "u32", "s32", "f32"]),
    ("cvti", &["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]),
];

/// Selector sets of the video instructions' registers (`T{.<sel>}`, `T.<hmask>`): the name
/// in a table and the set's type in `ptxkit::ops::sel` and variant of `ptxkit::core::SelSet`.
#[rustfmt::skip]
pub const SELECTORS: &[(&str, &str)] = &[
    ("sel", "Scalar"),   // .b0 .b1 .b2 .b3 .h0 .h1
    ("hsel", "Half2"),   // .hxy, x, y in 0..3
    ("bsel", "Byte4"),   // .bxyzw, each in 0..7
    ("hmask", "Mask2"),  // .h0 .h1 .h10
    ("bmask", "Mask4"),  // .b0 .. .b3210, descending
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

/// Whether `t` is one of [`DTYPES`] (a `match`: the table loader asks this of every part of
/// every form, and a proc macro runs unoptimised).
pub fn is_dtype(t: &str) -> bool {
    matches!(
        t,
        "pred"
            | "b8"
            | "b16"
            | "b32"
            | "b64"
            | "b128"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "f16"
            | "f16x2"
            | "bf16"
            | "bf16x2"
            | "tf32"
            | "f32"
            | "f64"
            | "f32x2"
            | "e4m3x2"
            | "e5m2x2"
            | "e2m1x2"
            | "e3m2x2"
            | "e2m3x2"
            | "ue8m0x2"
            | "s2f6x2"
            | "ue5m3x2"
            | "e4m3x4"
            | "e5m2x4"
            | "e2m1x4"
            | "e3m2x4"
            | "e2m3x4"
            | "e4m3"
            | "e5m2"
            | "gdesc"
    )
}

pub fn set(name: &str) -> Option<&'static [&'static str]> {
    SETS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

/// Modifiers spelled by numbers, which code generic over the numbers names through
/// `ptxkit::ops::num`: the type there and its parameters. `m64n128k16` is `Mnk<64, 128, 16>`
/// (an MMA shape), `3d` is `Dim<3>` (a tensor's or a texture's dimensions), `x32` is `X<32>`
/// (a repetition count), `32x32b` is `Lanes<32, 32>` (a tensor-memory access shape: lanes ×
/// bits), `cta_group::2` is `CtaGroup<2>`.
pub fn numbered(tok: &str) -> Option<(&'static str, Vec<u32>)> {
    fn num(s: &str) -> Option<u32> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0')).then(|| s.parse().ok()).flatten()
    }
    if let Some(rest) = tok.strip_prefix('m') {
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = rest.split_once('k')?;
        return Some(("Mnk", vec![num(m)?, num(n)?, num(k)?]));
    }
    if let Some(n) = tok.strip_prefix("cta_group::") {
        return Some(("CtaGroup", vec![num(n)?]));
    }
    if let Some(n) = tok.strip_prefix('x') {
        return Some(("X", vec![num(n)?]));
    }
    if let Some(r) = tok.strip_suffix('d') {
        return Some(("Dim", vec![num(r)?]));
    }
    if let Some(shape) = tok.strip_suffix('b') {
        let (lanes, bits) = shape.split_once('x')?;
        return Some(("Lanes", vec![num(lanes)?, num(bits)?]));
    }
    None
}
