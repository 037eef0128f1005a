//! The fixed vocabulary of the tables: the family table files, the data-type tokens, the
//! named token sets rows use, and the form variants. Opcodes, modifiers and form keys are
//! not listed here: they are whatever the tables use (see `tables.rs`).
//!
//! A token maps to a Rust type by [`rust_ident`]: `shared::cta` -> `SharedCta`,
//! `acq_rel` -> `AcqRel`, `f16x2` -> `F16x2`, `3d` -> `N3d`.

/// The family tables, in the order `ops::families()` lists them.
pub const FAMILIES: &[(&str, &str)] = &[
    ("arith", include_str!("../tables/arith.forms")),
    ("bits", include_str!("../tables/bits.forms")),
    ("cmp", include_str!("../tables/cmp.forms")),
    ("cvt", include_str!("../tables/cvt.forms")),
    ("mem", include_str!("../tables/mem.forms")),
    ("sync", include_str!("../tables/sync.forms")),
    ("warp", include_str!("../tables/warp.forms")),
    ("control", include_str!("../tables/control.forms")),
    ("matrix", include_str!("../tables/matrix.forms")),
    ("mma", include_str!("../tables/mma.forms")),
    ("wmma", include_str!("../tables/wmma.forms")),
    ("wgmma", include_str!("../tables/wgmma.forms")),
    ("mbarrier", include_str!("../tables/mbarrier.forms")),
    ("cpasync", include_str!("../tables/cpasync.forms")),
    ("cluster", include_str!("../tables/cluster.forms")),
    ("bulk", include_str!("../tables/bulk.forms")),
    ("tcgen05", include_str!("../tables/tcgen05.forms")),
    ("cache", include_str!("../tables/cache.forms")),
    ("stack", include_str!("../tables/stack.forms")),
    ("multimem", include_str!("../tables/multimem.forms")),
    ("video", include_str!("../tables/video.forms")),
    ("texture", include_str!("../tables/texture.forms")),
];

/// Data-type tokens: the types of `ptxkit::types` (a test checks the two lists agree).
#[rustfmt::skip]
pub const DTYPES: &[&str] = &[
    "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
    "s64", "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "f32x2", "e4m3x2", "e5m2x2",
    "e2m1x2", "e3m2x2", "e2m3x2", "ue8m0x2", "e4m3x4", "e5m2x4", "e2m1x4", "e3m2x4", "e2m3x4",
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

/// The cache controls of `ld`, `st` and `ldu`. A chain holding one is keyed by the first it
/// holds as well as by its opcode and last part (`ld.global.L1::evict_last.u32` ->
/// `LdL1EvictLastU32`): their product with the types would otherwise put 1,758 `ld` forms on
/// one key. The chains the generic helpers compose hold none, so their keys stay `LdU32`.
pub const CACHE_KEYED: &[&str] = &["ld", "st", "ldu"];
#[rustfmt::skip]
pub const CACHE_PARTS: &[&str] = &[
    "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "L1::evict_normal", "L1::evict_unchanged",
    "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal", "L2::evict_first",
    "L2::evict_last", "L2::cache_hint", "L2::64B", "L2::128B", "L2::256B",
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

/// Form variants (`as pair`): the same chain with another operand layout.
#[rustfmt::skip]
pub const VARIANTS: &[(&str, &str)] = &[
    ("plain", "The chain default."),
    ("pair", "A grouped second destination: `d|p`."),
    ("pack", "`mov.bN d, {a, b}`: two halves packed into one register."),
    ("unpack", "`mov.bN {a, b}, d`: one register split into halves."),
    ("counted", "An explicit count: the threads of a `bar`/`barrier`, the arrivals of an `mbarrier` arrive."),
    ("rs", "`wgmma` with A from registers instead of a shared-memory descriptor."),
    ("hinted", "A wait with a suspend-time hint."),
    ("three", "Three sources: `min`/`max` of `a`, `b` and `c` (sm_100)."),
    ("src_size", "`cp.async` with the number of source bytes to read; the rest of the destination is zero-filled."),
    ("ignore_src", "`cp.async` with a predicate that, when true, ignores the source and writes zeros."),
    ("ts", "`tcgen05.mma` with A from tensor memory instead of a shared-memory descriptor."),
    ("masked", "`tcgen05.mma` with the disable-output-lane mask vector."),
    ("ts_masked", "`tcgen05.mma` with A from tensor memory and the disable-output-lane mask."),
    ("scaled", "`tcgen05.mma` with the scale-input-d immediate."),
    ("ts_scaled", "`tcgen05.mma` with A from tensor memory and the scale-input-d immediate."),
    ("masked_scaled", "`tcgen05.mma` with the disable-output-lane mask and the scale-input-d immediate."),
    ("ts_masked_scaled", "`tcgen05.mma` with A from tensor memory, the disable-output-lane mask and scale-input-d."),
    ("zero_mask", "`tcgen05.mma.ws` with the zero-column-mask descriptor."),
    ("ts_zero_mask", "`tcgen05.mma.ws` with A from tensor memory and the zero-column-mask descriptor."),
    ("strided", "`wmma.load`/`wmma.store` with the stride: elements between consecutive rows or columns."),
    ("fraction", "`createpolicy.fractional` with the fraction of accesses (an f32 in (0, 1]) the primary priority covers."),
    ("aligned", "`alloca` with an alignment immediate (a power of two)."),
    ("dsel", "A scalar video instruction merging its result into a byte or half-word of `c`: `d.dsel`."),
    ("mask", "A SIMD video instruction writing the lanes of its mask: `d.mask`."),
    ("neg_a", "`vmad` with `a` negated (the product negated): `-a`."),
    ("neg_b", "`vmad` with `b` negated (the product negated): `-b`."),
    ("neg_c", "`vmad` with `c` negated: `-c`."),
    ("sink", "A pair destination whose first value is dropped: `_|p`."),
    // Texture lookups: the optional parts of `tex`/`tld4` (`<name:item>` in the table).
    ("sampler", "A texture lookup with a separate sampler, `[tex, smp, {..}]` (the independent texturing mode); `txq`'s sampler queries take the sampler."),
    ("offset", "A texture lookup with a coordinate offset vector (`.s32`, -8 to 7)."),
    ("depth", "A texture lookup with a depth-compare value (`.f32`)."),
    ("resident", "A texture lookup that also writes a predicate: whether the texels were resident in memory."),
    ("sampler_offset", "A texture lookup with a separate sampler and an offset."),
    ("sampler_depth", "A texture lookup with a separate sampler and a depth-compare value."),
    ("sampler_resident", "A texture lookup with a separate sampler and the residency predicate."),
    ("offset_depth", "A texture lookup with an offset and a depth-compare value."),
    ("offset_resident", "A texture lookup with an offset and the residency predicate."),
    ("depth_resident", "A texture lookup with a depth-compare value and the residency predicate."),
    ("sampler_offset_depth", "A texture lookup with a separate sampler, an offset and a depth-compare value."),
    ("sampler_offset_resident", "A texture lookup with a separate sampler, an offset and the residency predicate."),
    ("sampler_depth_resident", "A texture lookup with a separate sampler, a depth-compare value and the residency predicate."),
    ("offset_depth_resident", "A texture lookup with an offset, a depth-compare value and the residency predicate."),
    ("sampler_offset_depth_resident", "A texture lookup with a separate sampler, an offset, a depth-compare value and the residency predicate."),
];

/// Opcodes whose instructions act beyond their destination registers (memory, barriers,
/// warp collectives, control flow, the asynchronous units).
#[rustfmt::skip]
pub const EFFECTS: &[&str] = &[
    "ld", "st", "ldu", "atom", "red", "prefetch", "prefetchu", "bar", "barrier", "fence",
    "membar", "vote", "shfl", "match", "redux", "activemask", "elect", "bra", "call", "ret",
    "exit", "trap", "nanosleep", "brkpt", "pmevent", "mbarrier", "wgmma", "mma", "wmma", "tcgen05", "cp",
    "setmaxnreg", "tensormap", "ldmatrix", "stmatrix", "mapa", "getctarank", "griddepcontrol",
    "clusterlaunchcontrol", "multimem", "discard", "applypriority", "alloca", "stacksave", "stackrestore",
    "tex", "tld4", "suld", "sust", "sured",
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

pub fn is_dtype(t: &str) -> bool {
    DTYPES.contains(&t)
}

pub fn set(name: &str) -> Option<&'static [&'static str]> {
    SETS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}
