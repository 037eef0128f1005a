//! The ISA coverage report's parser and matcher (examples/isa_coverage/syntax.rs) on
//! hand-written pages in the reference's format: template lines, modifier sets (nested,
//! suffixed, scoped per group), optional parts and choices, expansion, counting, and the
//! matching rule (modifiers in any order, types in order, operands ignored). The report itself
//! reads the reference from outside the repository: `cargo run --release --example isa_coverage`.

#[path = "../examples/isa_coverage/syntax.rs"]
#[allow(dead_code)]
mod syntax;

use syntax::{covered_lines, is_type, normalize, parse_page, Page};

const OPCODES: &[&str] = &["add", "ld", "fence", "membar", "redux", "sust", "madc", "cvt", "red", "bar", "barrier", "createpolicy"];

fn page(syntax: &str) -> Page {
    page_with("sample", "Does something.", syntax)
}

fn page_with(name: &str, description: &str, syntax: &str) -> Page {
    let md = format!("### Description\n\n{description}\n\n### Syntax\n\n{syntax}\n### Examples\n\n```\nadd.u32 x, y, z;\n```\n");
    parse_page(name, &md, &|w| OPCODES.contains(&w))
}

fn expand(p: &Page, line: usize) -> Vec<String> {
    p.lines[line].expand(1 << 16).expect("small line")
}

#[test]
fn optional_parts_and_multiline_sets() {
    let p = page(
        "```
add.type       d, a, b;
add{.sat}.s32  d, a, b;     // .sat applies only to .s32

.type = { .u16, .u32,
          .s16x2 };
```",
    );
    assert_eq!(p.lines.len(), 2, "the set definition and the comment are not template lines");
    assert_eq!(expand(&p, 0), ["add.u16", "add.u32", "add.s16x2"]);
    assert_eq!(expand(&p, 1), ["add.s32", "add.sat.s32"]);
    assert_eq!(p.lines[1].text, "add{.sat}.s32 d, a, b;");
    assert_eq!((p.lines[0].count(), p.lines[1].count()), (3, 2));
    assert!(!p.deprecated && !p.lines[0].deprecated);
}

#[test]
fn nested_sets_and_suffixes() {
    let p = page(
        "```
ld{.ss}.type  d, [a];
fence.proxy.proxykind;

.ss = { .global, .shared{::cta, ::cluster}, .param{::entry} };
.type = { .b32 };
.proxykind = { .alias, .async.global, .async.shared::{cta, cluster} };
```",
    );
    assert_eq!(
        expand(&p, 0),
        ["ld.b32", "ld.global.b32", "ld.shared.b32", "ld.shared::cta.b32", "ld.shared::cluster.b32", "ld.param.b32", "ld.param::entry.b32"]
    );
    assert_eq!(
        expand(&p, 1),
        ["fence.proxy.alias", "fence.proxy.async.global", "fence.proxy.async.shared::cta", "fence.proxy.async.shared::cluster"]
    );
}

#[test]
fn sets_are_scoped_to_their_group() {
    // `.op` is defined again after each template line, as on the redux page.
    let p = page(
        "```
redux.sync.op.type dst, src, membermask;
.op   = {.add, .min}
.type = {.u32, .s32}

redux.sync.op.b32 dst, src, membermask;
.op   = {.and, .or}
```",
    );
    assert_eq!(expand(&p, 0), ["redux.sync.add.u32", "redux.sync.add.s32", "redux.sync.min.u32", "redux.sync.min.s32"]);
    assert_eq!(expand(&p, 1), ["redux.sync.and.b32", "redux.sync.or.b32"]);
}

#[test]
fn choices_none_and_stray_spelling() {
    let p = page(
        "```
sust.b.{1d,2d}{.cop}.vec.b32.clamp  [a, b], c;
madc{.hi,.lo}{.cc}.u32  d, a, b, c;
cvt.rn.{.relu}.f16x2.e4m3x2  d, a;
red.add.noftz. vec.f16  [a], b;

.cop   = { .wb };
.vec   = { none, .v2 };
.clamp = { .trap };
```",
    );
    assert_eq!(
        expand(&p, 0),
        [
            "sust.b.1d.b32.trap",
            "sust.b.1d.v2.b32.trap",
            "sust.b.1d.wb.b32.trap",
            "sust.b.1d.wb.v2.b32.trap",
            "sust.b.2d.b32.trap",
            "sust.b.2d.v2.b32.trap",
            "sust.b.2d.wb.b32.trap",
            "sust.b.2d.wb.v2.b32.trap"
        ]
    );
    assert_eq!(expand(&p, 1), ["madc.u32", "madc.cc.u32", "madc.hi.u32", "madc.hi.cc.u32", "madc.lo.u32", "madc.lo.cc.u32"]);
    assert_eq!(expand(&p, 2), ["cvt.rn.f16x2.e4m3x2", "cvt.rn.relu.f16x2.e4m3x2"]);
    assert_eq!(expand(&p, 3), ["red.add.noftz.f16", "red.add.noftz.v2.f16"], "a blank after a dot joins the chain");
}

#[test]
fn opcode_sets_several_opcodes_prose_and_continuations() {
    let p = page(
        "```
// SIMD instruction
vop.u32  d, a, b;
 vop   = { vadd, vsub };
.bf16 floating point type:
FP8 floating point type
   .asel defaults to .h10
defaults to .b3210
bar.sync a;
barrier{.cta}.sync{.aligned} a;
createpolicy.fractional.b64
                 cache-policy{, fraction};
```",
    );
    let texts: Vec<&str> = p.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["vop.u32 d, a, b;", "bar.sync a;", "barrier{.cta}.sync{.aligned} a;", "createpolicy.fractional.b64 cache-policy{, fraction};"]
    );
    assert_eq!(p.lines[0].opcodes.iter().collect::<Vec<_>>(), ["vadd", "vsub"]);
    assert!(p.lines[0].matches("vsub.u32") && !p.lines[0].matches("vmul.u32"));
    assert!(p.lines[2].matches("barrier.cta.sync.aligned") && !p.lines[2].matches("bar.cta.sync"));
}

#[test]
fn matching_rule() {
    let p = page(
        "```
ld.relaxed.scope{.ss}{.vec}.type  d, [a];
cvt.frnd.dtype.atype  d, a;

.scope = { .cta, .gpu };
.ss = { .global, .shared{::cta} };
.vec = { .v2, .v4 };
.type = { .u32, .f32 };
.frnd = { .rn, .rz };
.dtype = .atype = { .f16, .f32 };
```",
    );
    let ld = &p.lines[0];
    assert!(ld.matches("ld.relaxed.gpu.global.u32"));
    assert!(ld.matches("ld.global.relaxed.gpu.u32"), "modifiers match in any order");
    assert!(ld.matches("ld.relaxed.cta.shared::cta.v4.f32"));
    assert!(!ld.matches("ld.relaxed.u32"), "a required placeholder is missing");
    assert!(!ld.matches("ld.relaxed.gpu.global.global.u32"), "a part counts as often as it occurs");
    assert!(!ld.matches("ld.relaxed.gpu.v2.v4.u32"), "one value per set");
    assert!(!ld.matches("ld.relaxed.sys.u32"), "not a value of the set");
    assert!(!ld.matches("st.relaxed.gpu.u32"), "another opcode");
    let cvt = &p.lines[1];
    assert!(cvt.matches("cvt.rn.f16.f32") && cvt.matches("cvt.f16.rz.f32"));
    assert!(!cvt.matches("cvt.rn.f32.f16.f16"), "types match in order, as many as written");
    // The large product is counted, not enumerated; the matcher needs no enumeration either.
    // scope 2 x {none, global, shared, shared::cta} 4 x {none, v2, v4} 3 x type 2
    assert_eq!(ld.count(), 2 * 4 * 3 * 2);
    assert_eq!(ld.expand(47), None);
    assert_eq!(ld.expand(48).map(|c| c.len()), Some(48));
}

#[test]
fn types_keep_their_order() {
    let p = page("```\ncvt.rn.f16.f32 d, a;\n```");
    assert!(p.lines[0].matches("cvt.rn.f16.f32"));
    assert!(!p.lines[0].matches("cvt.rn.f32.f16"), "cvt.f32.f16 converts the other way");
    assert_eq!(normalize("ld.u32.global.relaxed"), normalize("ld.relaxed.global.u32"));
    assert_ne!(normalize("cvt.rn.f32.f16"), normalize("cvt.rn.f16.f32"));
    for t in ["u32", "s8", "b128", "f16x2", "bf16", "bf16x2", "tf32", "e4m3", "ue8m0x2", "e2m1x4", "b8x16", "b6x16_p32", "pred", "b1"] {
        assert!(is_type(t), "{t}");
    }
    for m in ["rn", "m16n8k16", "v4", "x4", "L2::cache_hint", "shared::cta", "f4e", "b4e", "sync", "e", "u"] {
        assert!(!is_type(m), "{m}");
    }
}

#[test]
fn covered_and_uncovered_lines() {
    let p = page(
        "```
add.type       d, a, b;
add{.sat}.s32  d, a, b;
add.cc.type    d, a, b;

.type = { .u32, .s32 };
```",
    );
    // No chain spells `.cc`: the third line is uncovered; `add.s32` covers the first two.
    assert_eq!(covered_lines(&p, &["add.s32", "add.f32"]), [true, true, false]);
    assert_eq!(covered_lines(&p, &["add.sat.s32"]), [false, true, false]);
    assert_eq!(covered_lines(&p, &[]), [false, false, false]);
}

#[test]
fn deprecated_pages_and_lines() {
    let p = page_with(
        "membar",
        "This instruction is deprecated; use fence.",
        "```
// Deprecated form:
membar.level;
fence.sc.cta;

.level = { .cta, .gl };
```",
    );
    assert!(p.deprecated);
    let q = page(
        "```
fence.sc.cta;
// deprecated old style:
membar.level;
membar.sys;  // deprecated too

fence.acq_rel.gpu;
.level = { .cta, .gl };
```",
    );
    assert!(!q.deprecated);
    assert_eq!(q.lines.iter().map(|l| l.deprecated).collect::<Vec<_>>(), [false, true, true, false]);
}

#[test]
fn the_crates_barrier_forms_against_hand_written_lines() {
    // The CTA barrier lines, written as the reference writes them.
    let p = page(
        "```
barrier{.cta}.sync{.aligned}      a{, b};
barrier{.cta}.arrive{.aligned}    a, b;
bar{.cta}.sync      a{, b};
bar{.cta}.arrive    a, b;
barrier{.cta}.red.popc{.aligned}.u32  d, a{, b}, {!}c;
barrier{.cta}.red.op{.aligned}.pred   p, a{, b}, {!}c;
bar{.cta}.red.popc.u32  d, a{, b}, {!}c;
bar{.cta}.red.op.pred   p, a{, b}, {!}c;

.op = { .and, .or };
```",
    );
    let chains: Vec<&str> =
        ptxkit::ops::all_forms().map(|f| f.chain).filter(|c| matches!(c.split('.').next(), Some("bar" | "barrier"))).collect();
    assert_eq!(covered_lines(&p, &chains), [true; 8]);
    // What these lines leave out: the cluster barriers and the warp barrier.
    let rest: Vec<&str> = chains.iter().copied().filter(|c| !p.lines.iter().any(|l| l.matches(c))).collect();
    assert!(!rest.is_empty());
    assert!(rest.iter().all(|c| c.starts_with("barrier.cluster.") || *c == "bar.warp.sync"), "{rest:?}");
    assert!(chains.contains(&"barrier.sync.aligned") && p.lines[0].matches("barrier.sync.aligned"));
}
