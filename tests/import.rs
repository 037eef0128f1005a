//! PTX import: the parser and printer (`ptxkit::import`). Every PTX text the project has
//! at hand — the golden files, the kernels of the library (GEMMs, attention, copies,
//! reductions, scans) with and without line info, and hand-written text with the
//! directives the builder never prints — parses, prints back to text that parses to the
//! same tree and is the original token for token (whitespace and comments aside), and
//! assembles with ptxas to the same cubin as the original. Malformed text
//! gives errors with their line and column; mutated text never makes the parser panic.

#[macro_use]
mod common;

use ptxkit::import::{ast::Arena, parse::parse, print::print};
use ptxkit::kernels::gemm::{gemm, gemm_staged, hopper, E4m3};
use ptxkit::prelude::*;
use std::path::Path;

/// The texts: (name, PTX).
fn texts() -> Vec<(String, String)> {
    let mut out = vec![];
    for e in std::fs::read_dir("tests/golden").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "ptx") {
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    for line_info in [false, true] {
        let mut m = Module::new(Target::SM_90A);
        m.set_line_info(line_info);
        let cfg = hopper::Config::default();
        gemm::<Bf16, Bf16>(&mut m, "gemm_bf16", &cfg).unwrap();
        gemm_staged::<E4m3>(&mut m, "gemm_e4m3", &cfg).unwrap();
        ptxkit::kernels::attention::attention(&mut m, "attn", &ptxkit::kernels::attention::AttentionConfig::new(128, true)).unwrap();
        ptxkit::kernels::copy_v4(&mut m).unwrap();
        ptxkit::kernels::saxpy(&mut m).unwrap();
        ptxkit::kernels::sum_partials(&mut m).unwrap();
        ptxkit::kernels::scan_tiles(&mut m).unwrap();
        out.push((format!("kernels (line info {line_info})"), m.to_ptx().unwrap()));
    }
    out.push(("hand-written".into(), HAND.into()));
    out
}

/// Directives and shapes the builder does not print: `.file` with a timestamp, `.loc` with
/// `inlined_at`, variables with initialisers and alignment, a `.extern .func` declaration
/// with a return parameter, performance directives, nested blocks, `.branchtargets`,
/// `.callprototype`, an indirect call, immediates in hex, octal, binary and float spellings,
/// vectors, a predicate pair, a `.section` of DWARF data.
const HAND: &str = r#"//
// hand-written
//
.version 8.0
.target sm_90a
.address_size 64

.file 1 "/src/k.cu", 1700000000, 1234
.global .align 4 .b32 table[4] = {1, 0x10, 017, 0b101};
.const .align 8 .f64 pi = 0d400921FB54442D18;
.global .align 8 .u64 where = generic(table);
.extern .shared .align 16 .b8 smem_dyn[];
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);

.func (.param .b32 r) twice(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [a];
	add.s32 %r2, %r1, %r1;
	st.param.b32 [r], %r2;
	ret;
}

.visible .entry k(
	.param .u64 .ptr .global .align 16 k_param_0,
	.param .u32 k_param_1
)
.maxntid 128, 1, 1
.minnctapersm 1
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<6>;
	.local .align 8 .b8 __local_depot[16];
	.loc 1 12 3
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u32 %r1, [k_param_1];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	.loc 1 13 5, function_name $L__info_string0, inlined_at 1 12 3
	mad.lo.s32 %r5, %r3, %r4, %r2;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra $L__BB0_3;
	mul.wide.u32 %rd3, %r5, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4+-4];
	mov.f32 %f2, 0f3F800000;
	fma.rn.f32 %f3, %f1, %f2, 0f40000000;
	st.global.f32 [%rd4], %f3;
	shfl.sync.bfly.b32 %r6|%p2, %r5, 16, 31, -1;
	ld.global.v4.u32 {%r7, %r8, %r9, %r10}, [%rd2+16];
	{
		.reg .b32 %inner;
		add.u32 %inner, %r7, 0xFFFFFFFF;
		@!%p2 add.u32 %r11, %inner, 0b11;
	}
	mov.u64 %rd5, table;
	ld.global.u32 %r12, [table+8];
	setp.eq.u32 %p3, %r12, 017;
	mov.u32 %r13, 0;
	ts: .branchtargets $L__BB0_1, $L__BB0_2;
	brx.idx %r13, ts;
$L__BB0_1:
	bra.uni $L__BB0_3;
$L__BB0_2:
	{
		.param .b32 param0;
		st.param.b32 [param0], %r5;
		.param .b32 retval0;
		call.uni (retval0), twice, (param0);
		ld.param.b32 %r14, [retval0];
	}
	{
		.reg .b64 %fp;
		mov.u64 %fp, twice;
		.param .b32 param0;
		st.param.b32 [param0], %r5;
		.param .b32 retval0;
		proto: .callprototype (.param .b32 _) _ (.param .b32 _);
		call (retval0), %fp, (param0), proto;
	}
$L__BB0_3:
	ret;
}
.section .debug_str
{
$L__info_string0:
.b8 107,0
}
"#;

/// ptxas's cubin of `text` for `arch`.
fn cubin(px: &Path, text: &str, arch: &str) -> Result<Vec<u8>, String> {
    let target = Target::parse(arch).ok_or_else(|| format!("no target `{arch}`"))?;
    ptxkit::ptxas::compile(px, text, target, &Default::default()).map(|c| c.cubin)
}

fn every_text_prints_back_to_itself() {
    for (name, text) in texts() {
        let arena = Arena::new();
        let tree = parse(&text, &arena).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = print(&tree);
        let again = parse(&printed, &arena).unwrap_or_else(|e| panic!("{name}, printed: {e}\n{printed}"));
        assert_eq!(print(&again), printed, "{name}: printing is not a fixed point");
        // Whitespace and comments aside, the printed text is the original token for token.
        let toks = |t: &str| ptxkit::import::lex::lex(t).unwrap().into_iter().map(|x| x.text.to_string()).collect::<Vec<_>>();
        assert_eq!(toks(&printed), toks(&text), "{name}: the printed text's tokens differ");
        // The same tree, spans aside: the printed text of the reparsed tree is the same, and
        // so are the counts of items and instructions.
        assert_eq!(again.items.len(), tree.items.len(), "{name}");
        println!("{name}: {} items, {} bytes -> {} bytes", tree.items.len(), text.len(), printed.len());
    }
}

fn printed_text_assembles_to_the_same_cubin() {
    let px = common::ptxas("printed_text_assembles_to_the_same_cubin");
    for (name, text) in texts() {
        let printed = print(&parse(&text, &Arena::new()).unwrap());
        let arch = text.lines().find_map(|l| l.trim().strip_prefix(".target ")).unwrap().split(',').next().unwrap().trim().to_string();
        let a = cubin(&px, &text, &arch).unwrap_or_else(|e| panic!("{name}: the original: {e}"));
        let b = cubin(&px, &printed, &arch).unwrap_or_else(|e| panic!("{name}: the printed text: {e}\n{printed}"));
        if a == b {
            println!("{name}: {} bytes of cubin, identical", a.len());
            continue;
        }
        // With line info the cubin holds the PTX text in its debug sections; the code and
        // every other section must still be the same.
        let (ca, cb) = (common::code_sections(&a), common::code_sections(&b));
        let names = |c: &[(String, Vec<u8>)]| c.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&ca), names(&cb), "{name}: the cubins' sections differ");
        for ((n, x), (_, y)) in ca.iter().zip(&cb) {
            assert!(x == y, "{name}: section {n} differs ({} and {} bytes)", x.len(), y.len());
        }
        println!("{name}: {} sections outside the debug ones, identical ({} and {} bytes of cubin)", ca.len(), a.len(), b.len());
    }
}

/// `Module::from_ptx` of every text, printed by `Module::to_ptx`, assembles to the same
/// code: every instruction went through the builder's IR as its typed form.
fn every_text_imports_to_a_module_of_the_same_cubin() {
    let px = common::ptxas("every_text_imports_to_a_module_of_the_same_cubin");
    for (name, text) in texts() {
        let m = Module::from_ptx(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = m.to_ptx().unwrap_or_else(|e| panic!("{name}: {e}"));
        let arch = m.target().to_string();
        let a = cubin(&px, &text, &arch).unwrap_or_else(|e| panic!("{name}: the original: {e}"));
        let b = cubin(&px, &printed, &arch).unwrap_or_else(|e| panic!("{name}: the module's text: {e}\n{printed}"));
        let (ca, cb) = (common::code_sections(&a), common::code_sections(&b));
        assert!(ca == cb, "{name}: the code differs");
        let forms: usize = m.bodies().iter().map(|b| m.body(b).unwrap().instruction_forms().count()).sum();
        let arena = Arena::new();
        let tree = parse(&text, &arena).unwrap();
        let calls = tree.instructions().iter().filter(|i| i.parts().next() == Some("call")).count();
        assert_eq!(forms + calls, tree.instructions().len(), "{name}: every instruction but the calls has its form");
        println!("{name}: {} bodies, {forms} typed instructions and {calls} calls; the same code", m.bodies().len());
    }
}

/// An imported module takes kernels from the builder, refuses a name it defines, and gives
/// one up to be replaced; what it cannot hold is refused with its place.
fn an_imported_module_is_edited_and_bad_text_is_refused() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry twice(.param .u64 p)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
        ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
        ld.global.u32 %r1, [%rd2];\nshl.b32 %r2, %r1, 1;\nst.global.u32 [%rd2], %r2;\nret;\n}\n";
    let mut m = Module::from_ptx(text).unwrap();
    assert_eq!(m.bodies(), ["twice"]);
    let forms: Vec<&str> = m.body("twice").unwrap().instruction_forms().map(|f| f.chain).collect();
    assert_eq!(forms, ["ld.param.u64", "cvta.to.global.u64", "ld.global.u32", "shl.b32", "st.global.u32", "ret"]);
    // (A failed kernel leaves a module with no text: the refusal is tried on a copy.)
    let mut copy = Module::from_ptx(text).unwrap();
    assert!(matches!(copy.kernel("twice", |_, (): ()| {}), Err(ptxkit::Error::DuplicateSymbol { .. })));
    // Replaced by a builder kernel of the same name.
    assert!(m.remove("twice") && !m.remove("twice"));
    m.kernel("twice", |k, (x,): (GlobalPtr<U32>,)| {
        let v = ptx!(k, "ld.global.u32", x.at(0u32));
        let t = ptx!(k, "add.u32", v, v);
        ptx!(k, "st.global.u32", x.at(0u32), t);
    })
    .unwrap();
    let out = m.to_ptx().unwrap();
    assert!(out.contains("add.u32") && !out.contains("shl.b32"), "{out}");
    assert!(out.contains(".version 8.0"), "the text's version is kept: {out}");

    let err = |t: &str| Module::from_ptx(t).err().map(|e| e.to_string()).unwrap_or_else(|| panic!("accepted:\n{t}"));
    let head = ".version 8.0\n.target sm_80\n.address_size 64\n";
    let e = err(&format!("{head}.entry k() {{\n.reg .b32 %r<2>;\nfrobnicate.u32 %r1, %r1;\nret;\n}}"));
    assert!(e.starts_with("line 6, column 1:") && e.contains("frobnicate.u32"), "{e}");
    let e = err(".version 8.0\n.target sm_80\n.address_size 32\n");
    assert!(e.contains("line 3, column 1") && e.contains(".address_size 32"), "{e}");
    let e = err(".version 8.0\n.target sm_42\n");
    assert!(e.contains("`sm_42`"), "{e}");
    let e = err(&format!("{head}.entry k() {{\n.reg .b32 %r<2>;\n@%r1 bra L;\nL:\nret;\n}}"));
    assert!(e.contains("line 6, column 1") && e.contains("`%r1` is not a register declared `.pred`"), "{e}");
    // The module's checks: an instruction the target lacks, a version too old for one.
    let wgmma = "{\n.reg .pred %p<2>;\nelect.sync %r1|%p1, -1;\nret;\n}";
    let e = err(&format!("{head}.entry k() {wgmma}").replace(".reg .pred", ".reg .b32 %r<2>;\n.reg .pred"));
    assert!(e.contains("elect.sync") && e.contains("sm_80"), "{e}");
    let late = format!("{head}.entry k() {{\n.reg .b32 %r<4>;\nst.async.mbarrier::complete_tx::bytes.b32 [%r1], %r2, [%r3];\nret;\n}}")
        .replace("sm_80", "sm_90");
    let e = Module::from_ptx(&late).unwrap().to_ptx().unwrap_err().to_string();
    assert!(e.contains("st.async") && e.contains("8.1") && e.contains("8.0"), "{e}");
    let e = err(&format!("{head}.entry k() {{\nret;\n}}\n.entry k() {{\nret;\n}}"));
    assert!(e.contains("`k`"), "{e}");
}

fn malformed_text_is_refused_with_its_place() {
    let cases: &[(&str, (u32, u32), &str)] = &[
        (
            ".version 8.0\n.target sm_90\n.entry k() {\n\tadd.u32 %r1, %r2 %r3;\n}",
            (4, 19),
            "expected `,` or `;` after an operand, found `%r3`",
        ),
        (".version 8.0\n.entry k() {\n\tret;\n", (2, 12), "expected the `}` closing this block, found the end of the input"),
        (".version 8.0\n.address_size 48\n", (2, 15), "expected 32 or 64, found `48`"),
        (".entry k() { ld.global.u32 %r1, [%rd1+]; }", (1, 39), "expected an offset, found `]`"),
        (".entry k() { mov.u32 %r1, #1; }", (1, 27), "expected a PTX token, found `#`"),
        ("ret;", (1, 1), "expected a directive"),
        (".entry k(.param .u32 a .param .u32 b) { ret; }", (1, 24), "expected `,`, found `.param`"),
        (".global .u32 x[4;", (1, 17), "expected `]`, found `;`"),
    ];
    for (src, (line, col), msg) in cases {
        let e = parse(src, &Arena::new()).err().unwrap_or_else(|| panic!("accepted: {src}"));
        assert_eq!((e.span.line, e.span.col), (*line, *col), "{src}: {e}");
        assert!(e.to_string().contains(msg), "{src}: {e}");
    }
    // Nesting past the bound is an error, not a stack overflow.
    let deep = format!(".entry k() {}{}", "{".repeat(100_000), "}".repeat(100_000));
    assert!(parse(&deep, &Arena::new()).unwrap_err().to_string().contains("levels of nesting"));
    let deep = format!(".entry k() {{ mov.u32 %r1, {}; }}", "!".repeat(100_000));
    assert!(parse(&deep, &Arena::new()).unwrap_err().to_string().contains("levels of nesting"));
    // At the bound: a name inside 198 braces parses; inside 199 it is one level too deep,
    // plain name or not.
    let braces = |k: usize| format!(".entry k() {{ mov.u32 %r1, {}%r2{}; }}", "{".repeat(k), "}".repeat(k));
    assert!(parse(&braces(198), &Arena::new()).is_ok());
    let e = parse(&braces(199), &Arena::new()).unwrap_err();
    assert_eq!(e.to_string(), "line 1, column 226: expected at most 200 levels of nesting, found `%r2`");
}

/// Mutations of real text (bytes dropped, duplicated, swapped, replaced by PTX
/// punctuation, characters of several bytes put in: the lexer works on bytes and must never
/// cut one) never make the parser panic, and what parses prints to text that parses.
fn mutated_text_never_panics() {
    // The texts under 20 kB, whole, so that a mutant is a file with a few bytes changed.
    let seeds: Vec<(String, String)> = texts().into_iter().filter(|(_, t)| t.len() < 20_000).collect();
    let n: usize = std::env::var("PTXKIT_FUZZ_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(3000);
    let seed: u64 = std::env::var("PTXKIT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random);
    println!("mutated_text_never_panics: seed {seed}, {n} mutants");
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let punct = b"{}()[],;:@!+-|<>=._%\" \n0x";
    // A letter, a space that is not ASCII (the lexer skips it), a line separator, a symbol.
    let wide = ["é", "\u{a0}", "\u{2028}", "😀"];
    let (mut parsed, mut refused) = (0, 0);
    for _ in 0..n {
        let (_, text) = &seeds[next() as usize % seeds.len()];
        let mut b = text.as_bytes().to_vec();
        for _ in 0..1 + next() % 4 {
            if b.is_empty() {
                break;
            }
            let i = next() as usize % b.len();
            match next() % 5 {
                0 => _ = b.remove(i),
                4 => _ = b.splice(i..i, wide[next() as usize % wide.len()].bytes()),
                1 => {
                    let c = b[i];
                    b.insert(i, c)
                }
                2 => b[i] = punct[next() as usize % punct.len()],
                _ => {
                    let j = next() as usize % b.len();
                    b.swap(i, j)
                }
            }
        }
        let s = String::from_utf8_lossy(&b);
        let arena = Arena::new();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse(&s, &arena).map(|tree| print(&tree)))) {
            Err(_) => panic!("the parser panicked (seed {seed}) on:\n{s}"),
            Ok(Ok(printed)) => {
                parsed += 1;
                let again =
                    parse(&printed, &arena).unwrap_or_else(|e| panic!("printed text of a mutant does not parse: {e}\n{s}\n---\n{printed}"));
                assert_eq!(print(&again), printed, "printing a mutant is not a fixed point:\n{s}");
            }
            Ok(Err(_)) => refused += 1,
        }
    }
    println!("{parsed} mutants parsed, {refused} refused");
    assert!(refused > 0 && parsed + refused == n);
}

fn main() {
    common::harness::main(&[&[
        host!(every_text_prints_back_to_itself),
        host!(printed_text_assembles_to_the_same_cubin),
        host!(every_text_imports_to_a_module_of_the_same_cubin),
        host!(an_imported_module_is_edited_and_bad_text_is_refused),
        host!(malformed_text_is_refused_with_its_place),
        host!(mutated_text_never_panics),
    ]]);
}
