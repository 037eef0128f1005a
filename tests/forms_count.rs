//! Typed forms per family, printed (`cargo test --test forms_count -- --nocapture`), with the
//! `mma` family split into dense and sparse forms and pinned.
//!
//! Against PTX.jl's `mma.sync` wrappers (158 dense + 88 sparse methods, one per form): the
//! sparse sets are the same 88 forms (f16 and bf16 at m16n8k16/k32, tf32 at m16n8k8/k16, fp8
//! at m16n8k64 with every e4m3/e5m2 pairing, u8/s8 and u4/s4 with and without `.satfinite`,
//! each as `.sp` and `.sp::ordered_metadata`); PTX.jl types the selector per value, this crate
//! as one legal-value immediate. The dense counts differ: 94 here = 158 - 100 + 36.
//! - PTX.jl has the 100 `.kind::f8f6f4` forms (sm_120a, Blackwell: out of this table's sm_80
//!   to sm_90a scope);
//! - this table has, and PTX.jl lacks, the 12 f16 m8n8k4 forms (every A/B layout; f16 or f32
//!   D with f16 C, f32 D with f32 C), the 8 e4m3 x e5m2 and e5m2 x e4m3 fp8 forms (PTX.jl
//!   pairs equal types only), and the 16 m8n8k16 u8/s8 and m8n8k32 u4/s4 integer forms.
//!
//! Against PTX.jl's 34 ldmatrix, 15 stmatrix and 384 wgmma methods: PTX.jl registers a method
//! per shape and type signature, this crate a form per chain and operand layout. The wgmma
//! table has every `m64nNk*` shape of every type (1,092 dense forms, SS and RS) and the sparse
//! `.sp` forms (1,056), where PTX.jl's 384 cover a subset of the N grid; ldmatrix and
//! stmatrix here count each `.x1/.x2/.x4`, `.trans`, state-space spelling and Blackwell shape
//! as its own form.
//!
//! Against PTX.jl's 480 mbarrier methods: its wrappers (per its documentation) cover init,
//! inval, arrive (plain, `.noComplete`, `.expect_tx`), expect_tx, test_wait and try_wait (with
//! `.parity`), with a method per Julia signature; how its 480 split over chains is not
//! documented, so the numbers count different things. This table has one form per chain and
//! operand layout, 399 in all: the whole PTX ISA 9.0 grammar (283) and ISA 9.4's layouts,
//! phase-typed waits and 32-bit CTA-mask multicasts (116). Besides what PTX.jl covers,
//! `arrive_drop` in every variant, `complete_tx`, `pending_count`, the arrives on another
//! CTA's barrier (`.shared::cluster`, sink destination), the `.relaxed` semantics of PTX ISA
//! 8.6, explicit arrival counts (`as counted`), dropped states (`as no_state`) and
//! suspend-time hints (`as hinted`). Per opcode part, as printed: init 9, inval 3, expect_tx 15, complete_tx 15, arrive 96,
//! arrive_drop 96, test_wait 66, try_wait 96, pending_count 1, check_layout 2.
//!
//! The `cpasync` family (105 forms: `.ca` 4/8/16 bytes and `.cg` 16, each plain, `as src_size`
//! and `as ignore_src`, with and without `.L2::cache_hint` and the three prefetch sizes, in
//! both shared spellings; the groups; `cp.async.mbarrier.arrive`) against PTX.jl's cp_async
//! wrapper (`.ca`/`.cg` with the size baked in, per its documentation): the wrapper lists no
//! zero-fill, ignore-source, cache-hint or prefetch forms. The `cluster` family (167: mapa 4, getctarank 4,
//! st.async 126 over `.weak`/`.cluster`/neither, with and without `.shared::cluster`, 8 scalar
//! types, `.v2` of 8, `.v4` of 4 and ISA 9.2's `.b128`; red.async 24; clusterlaunchcontrol 9) has no PTX.jl
//! wrapper in its documented list.
//!
//! The `mem` family's loads and stores (19,601 `ld`, 5,571 `st`, 78 `ldu`) are the PTX ISA 9.0
//! grammar of `ld`, `ld.global.nc`, `st` and `ldu` as far as ptxas 13.0 takes it (with
//! `.param::entry` and `.param::func` on `ld`, `.param::func` on `st`), less three things: the
//! cache controls (L1/L2 eviction priorities, prefetch sizes, `.L2::cache_hint`) come with
//! weak accesses and `.nc`, not with `.relaxed`/`.acquire`/`.release` at a scope, whose
//! product with them would add about 67,000 forms (54,000 `ld`, 13,000 `st`); and the
//! `[a].unified` operand suffix and the `_` sink inside a vector, which the notation has no
//! way to write. Most of the count is the product on global (or generic) memory: a cache
//! operator or one of 5 L1 eviction priorities, times 4 prefetch choices, with and without
//! `.L2::cache_hint`, over 47 type and vector shapes, and the L2 eviction priorities of the
//! 256-bit shapes (10,764 `ld`, 4,536 `ld.global.nc`, 2,362 `st`).
//!
//! Against PTX.jl's 360 TMA methods (its `wrappers/tma.jl`: `cp.async.bulk.tensor` tile-mode
//! loads of 1 to 5 dimensions into `shared::cluster` or `shared::cta` and tile-mode stores,
//! registered per typed signature): the `bulk` table here has the same tile
//! loads and stores, each with and without `.L2::cache_hint` (and the `.tile` spelled or
//! left to its default), plus multicast, `.cta_group`, the im2col modes with their offsets,
//! the sm_100 gather4/scatter4 and im2col::w modes, tensor reductions and prefetches, the
//! non-tensor bulk copies and reductions, bulk-group commit/wait, and the tensor-map
//! instructions (prefetch, `tensormap.replace`, `tensormap.cp_fenceproxy`, the tensormap proxy
//! fences). The tensor-copy part (loads, stores, reductions, prefetches of tensors) is the
//! count to set against PTX.jl's 360.

//!
//! The `texture` family (5,180 forms) is pinned per instruction: `tex` and `tld4` with and
//! without a separate sampler, the `.b` and `.p` surface forms apart.
//!
//! The `tcgen05` family (1,942 forms) is pinned per instruction. Its `tcgen05.mma` forms
//! (1,568) are the product of the PTX ISA 9.0 grammar: the dense kinds f16/tf32/f8f6f4/i8 at
//! `.cta_group::1|2` with no collector hint or one of four, A from a descriptor or (`as ts`)
//! from tensor memory, where `.ashift` allows only the releasing hints, each with and without
//! the disable-output-lane mask, and f16/tf32 with and without scale-input-d (312); the
//! block-scaled kinds with their scale-vector spellings, `.scale_vec::NX` or `.blockN`,
//! mandatory for mxf4nvf4 (200); the same two again as `.sp` with the metadata operand (512);
//! and `.ws`/`.ws.sp` at `.cta_group::1` with the b0..b3 collector buffers and the optional
//! zero-column mask (544).
//!
//! The `wmma` family (1,050 forms) is pinned per instruction: `wmma.load` (352 chains: A and B
//! of f16, bf16 and u8/s8 at m16n16k16, m8n32k16 and m32n8k16, tf32 at m16n16k8, f64 at
//! m8n8k4, u4/s4 at m8n8k32 and b1 at m8n8k128, C of f16, f32, s32 and f64 at their shapes;
//! row- or column-major where the ISA allows both; generic, `.global`, `.shared` or
//! `.shared::cta`) and `wmma.store.d` (104), each plain and `as strided`; `wmma.mma` (138:
//! f16 with f16/f32 D and C 48, bf16 12, tf32 4, f64 with and without each of four rounding
//! modes 20, u8/s8 with and without `.satfinite` 48, u4/s4 4, b1 `.and`/`.xor.popc` 2).
//!
//! The `atom` and `red` forms of the `mem` family are pinned with their cache-hinted and
//! vector parts; the `multimem` family (4,014 forms: ld_reduce 2,660, st 760, red 594, of
//! which 1,600 FP8) is every combination of types, operations, vectors, accumulator
//! precisions, semantics/scopes and state-space spellings of the PTX ISA 9.0 page that ptxas
//! 13.0 takes; `cache` (createpolicy, discard, applypriority) and `stack` (alloca,
//! stacksave, stackrestore) are pinned whole.

use ptxkit::ops;

/// The groups of the `bulk` family, by chain prefix (longest first).
fn bulk_group(chain: &str) -> &'static str {
    const GROUPS: &[(&str, &str)] = &[
        ("cp.async.bulk.tensor.", "tensor load/store"),
        ("cp.reduce.async.bulk.tensor.", "tensor reduce"),
        ("cp.async.bulk.prefetch.tensor.", "tensor prefetch"),
        ("cp.async.bulk.prefetch.", "bulk prefetch"),
        ("cp.reduce.async.bulk.", "bulk reduce"),
        ("cp.async.bulk.commit_group", "commit/wait"),
        ("cp.async.bulk.wait_group", "commit/wait"),
        ("cp.async.bulk.", "bulk copy"),
    ];
    GROUPS.iter().find(|(p, _)| chain.starts_with(p)).map_or("tensor map", |(_, g)| g)
}

/// The groups of the `mem` family: `ld`/`st` split into the forms with a cache operator,
/// eviction priority, prefetch size or cache hint on global (or generic) memory and the
/// rest, `ld.global.nc` on its own; the other opcodes as themselves.
fn mem_group(chain: &str) -> &'static str {
    let parts: Vec<&str> = chain.split('.').collect();
    let cache = |p: &&str| p.starts_with("L1::") || p.starts_with("L2::") || ["ca", "cg", "cs", "lu", "cv", "wb", "wt"].contains(p);
    let global = !parts.iter().any(|p| p.starts_with("shared") || ["local", "const", "param", "param::entry", "param::func"].contains(p));
    match parts[0] {
        "ld" if parts.contains(&"nc") => "ld.global.nc",
        "ld" if global && parts.iter().any(cache) => "ld, cache control",
        "st" if global && parts.iter().any(cache) => "st, cache control",
        op => ["ld", "st", "ldu", "mov", "prefetch", "prefetchu", "isspacep", "atom", "red"]
            .into_iter()
            .find(|g| *g == op)
            .unwrap_or_else(|| panic!("mem opcode `{op}` has no group")),
    }
}

/// The groups of the `tcgen05` family: the instruction, with `tcgen05.mma` split into its
/// dense, block-scaled, sparse (`.sp`, block-scaled included) and weight-stationary (`.ws`,
/// `.ws.sp` included) forms.
fn tcgen05_group(chain: &str) -> &'static str {
    let parts: Vec<&str> = chain.split('.').collect();
    match parts[1] {
        "mma" if parts[2] == "ws" => "mma.ws",
        "mma" if parts[2] == "sp" => "mma.sp",
        "mma" if parts.contains(&"block_scale") => "mma block_scale",
        "ld" if parts[2] == "red" => "ld.red",
        p if p.starts_with("fence::") => "fence",
        p if p.starts_with("wait::") => "wait",
        p => ["alloc", "commit", "cp", "dealloc", "ld", "mma", "relinquish_alloc_permit", "shift", "st"]
            .into_iter()
            .find(|g| *g == p)
            .unwrap_or_else(|| panic!("tcgen05 instruction `{p}` has no group")),
    }
}

#[test]
fn forms_per_family() {
    let mut total = 0;
    for (name, forms) in ops::families() {
        if *name == "mma" {
            let sparse = forms.iter().filter(|f| f.chain.starts_with("mma.sp")).count();
            println!("{:>10} {:>6} dense", "mma", forms.len() - sparse);
            println!("{:>10} {:>6} sparse", "mma", sparse);
            // Dense: 94 from sm_75 to sm_90, and sm_120a's 104 `kind::` forms (f8f6f4 with
            // f32 or f16 accumulators over the 5 × 5 input pairs, mxf8f6f4 over the same 25,
            // each with and without `.scale_vec::1X`, mxf4 with and without `.scale_vec::2X`,
            // mxf4nvf4 with 2X/ue8m0 or 4X/ue4m3).
            let kinds = forms.iter().filter(|f| f.chain.contains(".kind::")).count();
            assert_eq!((forms.len() - sparse - kinds, kinds, sparse), (94, 104, 88));
        } else if *name == "wgmma" {
            let mma = |sp: bool| forms.iter().filter(|f| f.chain.starts_with("wgmma.mma_async") && f.chain.contains(".sp.") == sp).count();
            println!(
                "{:>10} {:>6} dense, {} sparse, {} fence/commit/wait",
                "wgmma",
                mma(false),
                mma(true),
                forms.len() - mma(false) - mma(true)
            );
            assert_eq!((mma(false), mma(true)), (1092, 1056));
        } else if *name == "mbarrier" {
            let parts = [
                "init",
                "inval",
                "expect_tx",
                "complete_tx",
                "arrive",
                "arrive_drop",
                "test_wait",
                "try_wait",
                "pending_count",
                "check_layout",
            ];
            let per: Vec<(&str, usize)> =
                parts.iter().map(|p| (*p, forms.iter().filter(|f| f.chain.split('.').nth(1) == Some(p)).count())).collect();
            let listed = per.iter().map(|(p, n)| format!("{p} {n}")).collect::<Vec<_>>().join(", ");
            println!("{:>10} {:>6} ({listed})", "mbarrier", forms.len());
            assert_eq!(per.iter().map(|(_, n)| n).sum::<usize>(), forms.len());
            assert_eq!(forms.len(), 399);
        } else if *name == "cpasync" || *name == "cluster" {
            println!("{name:>10} {:>6}", forms.len());
            assert_eq!(forms.len(), if *name == "cpasync" { 105 } else { 167 });
            if *name == "cluster" {
                let clc = forms.iter().filter(|f| f.opcode() == "clusterlaunchcontrol").count();
                println!("{:>10} {clc:>6} clusterlaunchcontrol", "");
                assert_eq!(clc, 9);
            }
        } else if *name == "mem" {
            let mut groups: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
            for f in forms.iter() {
                *groups.entry(mem_group(f.chain)).or_default() += 1;
            }
            println!("{:>10} {:>6}", "mem", forms.len());
            for (g, n) in &groups {
                println!("{:>10} {:>6} {g}", "", n);
            }
            let ldst = |g: &str| groups.get(g).copied().unwrap_or(0);
            let (ld, st) = (ldst("ld") + ldst("ld, cache control") + ldst("ld.global.nc"), ldst("st") + ldst("st, cache control"));
            assert_eq!((ld, st, ldst("ldu")), (19640, 5610, 78));

            // atom and red pinned (the rest of the family is ld/st/mov and friends): the
            // scalar grammar, `.noftz` f16/bf16/f16x2/bf16x2 adds, atom.cas.b16, the
            // `.L2::cache_hint` forms and the global-only vectors, each under every
            // semantics/scope prefix and state-space spelling ptxas takes.
            let per = |op: &str| forms.iter().filter(|f| f.opcode() == op).count();
            let hinted = |op: &str| forms.iter().filter(|f| f.opcode() == op && f.chain.contains(".L2::cache_hint")).count();
            let vector =
                |op: &str| forms.iter().filter(|f| f.opcode() == op && f.chain.split('.').any(|p| matches!(p, "v2" | "v4" | "v8"))).count();
            println!(
                "{:>10} {:>6} (atom {}: {} cache-hinted, {} vector; red {}: {} cache-hinted, {} vector)",
                "mem",
                forms.len(),
                per("atom"),
                hinted("atom"),
                vector("atom"),
                per("red"),
                hinted("red"),
                vector("red")
            );
            // Each base form under 25 prefixes for atom (an optional ordering of 4 times an
            // optional scope of 4: 5 x 5) and 15 for red (3 x 5): 344, 120 and 128 atom base
            // forms, 303, 114 and 128 red ones (the scalar grammar on generic memory and on
            // `.global`, `.shared`, `.shared::cta` and `.shared::cluster`).
            assert_eq!((per("atom"), hinted("atom"), vector("atom")), (344 * 25, 120 * 25, 128 * 25));
            assert_eq!((per("red"), hinted("red"), vector("red")), (303 * 15, 114 * 15, 128 * 15));
        } else if *name == "bulk" {
            let mut groups: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
            for f in forms.iter() {
                *groups.entry(bulk_group(f.chain)).or_default() += 1;
            }
            let loads = forms.iter().filter(|f| f.chain.starts_with("cp.async.bulk.tensor.") && f.chain.contains("mbarrier")).count();
            let tensor = groups["tensor load/store"] + groups["tensor reduce"] + groups["tensor prefetch"];
            println!(
                "{:>10} {:>6} ({tensor} tensor copies: {loads} loads, {} stores, {} reductions, {} prefetches)",
                "bulk",
                forms.len(),
                groups["tensor load/store"] - loads,
                groups["tensor reduce"],
                groups["tensor prefetch"]
            );
            for (g, n) in &groups {
                println!("{:>10} {:>6} {g}", "", n);
            }
            assert_eq!((tensor, loads), (636, 360), "tensor copies (PTX.jl: 360 TMA methods)");
        } else if *name == "tcgen05" {
            let mut groups: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
            for f in forms.iter() {
                *groups.entry(tcgen05_group(f.chain)).or_default() += 1;
            }
            println!("{:>10} {:>6}", "tcgen05", forms.len());
            for (g, n) in &groups {
                println!("{:>10} {:>6} {g}", "", n);
            }
            let expected = [
                ("alloc", 8),   // with and without ISA 9.4's `.exclusive`
                ("commit", 12), // 4 with ISA 9.4's 32-bit CTA mask
                ("cp", 36),
                ("dealloc", 4),
                ("fence", 2),
                ("ld", 74),
                ("ld.red", 168),
                ("mma", 312),
                ("mma block_scale", 200),
                ("mma.sp", 512),
                ("mma.ws", 544),
                ("relinquish_alloc_permit", 2),
                ("shift", 2),
                ("st", 74),
                ("wait", 2),
            ];
            assert_eq!(groups.into_iter().collect::<Vec<_>>(), expected);
        } else if *name == "wmma" {
            let count = |op: &str, variant: &str| forms.iter().filter(|f| f.chain.starts_with(op) && f.variant == variant).count();
            let (load, store) = (count("wmma.load.", "plain"), count("wmma.store.", "plain"));
            let (load_s, store_s, mma) = (count("wmma.load.", "strided"), count("wmma.store.", "strided"), count("wmma.mma.", "plain"));
            println!("{:>10} {:>6} ({load} loads and {store} stores, each also strided; {mma} mma)", "wmma", forms.len());
            assert_eq!((load, load_s, store, store_s, mma), (352, 352, 104, 104, 138));
            assert_eq!(forms.len(), 2 * (352 + 104) + 138);
        } else if *name == "multimem" {
            // Every combination of the PTX ISA 9.0 page that ptxas 13.0 takes (the FP8 ones on
            // sm_100a and its family); checked by ptxas only.
            let per = |op: &str| forms.iter().filter(|f| f.chain.starts_with(op)).count();
            let (ld, st, red) = (per("multimem.ld_reduce."), per("multimem.st."), per("multimem.red."));
            let fp8 = forms.iter().filter(|f| f.chain.contains(".e4m3") || f.chain.contains(".e5m2")).count();
            println!("{:>10} {:>6} (ld_reduce {ld}, st {st}, red {red}; {fp8} FP8)", "multimem", forms.len());
            assert_eq!((ld, st, red, fp8), (2660, 760, 594, 1600));
        } else if *name == "cache" || *name == "stack" {
            println!("{name:>10} {:>6}", forms.len());
            // createpolicy: 12 fractional priority pairs, with and without the fraction, 24
            // range forms with and without `.global`, cvt; discard and applypriority with and
            // without `.global`. alloca (with and without alignment), stacksave, stackrestore
            // in .u32 and .u64.
            assert_eq!(forms.len(), if *name == "cache" { 12 * 2 + 24 + 1 + 4 } else { 8 });
        } else if *name == "video" {
            // Scalar: vadd, vsub, vabsdiff, vmin, vmax over 8 type combinations, with and
            // without .sat, plain, with .add/.min/.max and merged (80 each); vshl, vshr over
            // 4, both modes (80 each); vmad over 8, 6 scalings plain and negated thrice, and
            // .po (240); vset over 4, 6 comparisons (120). SIMD: each x2/x4 operation over 8,
            // plain, .sat and .add, each with a mask (48 each); vset2/vset4 (96 each).
            let mut per: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
            for f in forms.iter() {
                *per.entry(f.opcode()).or_default() += 1;
            }
            let listed = per.iter().map(|(p, n)| format!("{p} {n}")).collect::<Vec<_>>().join(", ");
            println!("{:>10} {:>6} ({listed})", "video", forms.len());
            let want = [
                ("vabsdiff", 80),
                ("vabsdiff2", 48),
                ("vabsdiff4", 48),
                ("vadd", 80),
                ("vadd2", 48),
                ("vadd4", 48),
                ("vavrg2", 48),
                ("vavrg4", 48),
                ("vmad", 240),
                ("vmax", 80),
                ("vmax2", 48),
                ("vmax4", 48),
                ("vmin", 80),
                ("vmin2", 48),
                ("vmin4", 48),
                ("vset", 120),
                ("vset2", 96),
                ("vset4", 96),
                ("vshl", 80),
                ("vshr", 80),
                ("vsub", 80),
                ("vsub2", 48),
                ("vsub4", 48),
            ];
            assert_eq!(per.into_iter().collect::<Vec<_>>(), want);
            assert_eq!(forms.len(), 1688);
        } else if *name == "texture" {
            let mut groups: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
            for f in forms.iter() {
                let parts: Vec<&str> = f.chain.split('.').collect();
                let g = match parts[0] {
                    "sust" | "sured" | "suld" => format!("{}.{}", parts[0], parts[1]),
                    "tex" | "tld4" if f.variant.starts_with("sampler") => format!("{} (sampler)", parts[0]),
                    op => op.to_string(),
                };
                *groups.entry(g).or_default() += 1;
            }
            println!("{:>10} {:>6}", "texture", forms.len());
            for (g, n) in &groups {
                println!("{:>10} {:>6} {g}", "", n);
            }
            // tex: 9 geometries, .base/.level/.grad, 5 result shapes, s32/f32 coordinates where
            // the geometry has them, with and without an offset, a depth compare and the
            // residency predicate where ptxas takes them (1,360), and the same with a sampler
            // (the independent mode). tld4: 4 components x 4 geometries x 3 result types.
            let expected = [
                ("istypep", 3),
                ("suld.b", 825),
                ("suq", 7),
                ("sured.b", 117),
                ("sured.p", 63),
                ("sust.b", 825),
                ("sust.p", 27),
                ("tex", 1360),
                ("tex (sampler)", 1360),
                ("tld4", 288),
                ("tld4 (sampler)", 288),
                ("txq", 17),
            ];
            assert_eq!(groups.iter().map(|(g, n)| (g.as_str(), *n)).collect::<Vec<_>>(), expected);
        } else if *name == "matrix" {
            for op in ["ldmatrix", "stmatrix", "movmatrix"] {
                println!("{:>10} {:>6}", op, forms.iter().filter(|f| f.opcode() == op).count());
            }
        } else {
            println!("{name:>10} {:>6}", forms.len());
        }
        total += forms.len();
    }
    println!("{:>10} {total:>6}", "all");
    assert_eq!(total, ops::all_forms().count());
}
