//! Resolution of parsed instructions to their forms: the instructions nvcc emits, other orders
//! ptxas accepts, and the findings for chains and operand lists no form takes.

use ptxkit::import::ast::{Arena, Arg, Instruction, Span};
use ptxkit::import::resolve::{coverage, resolve, Finding, FindingKind};

/// The arena of the trees made here (one per test thread, kept to the end of the run).
fn arena() -> &'static Arena {
    thread_local!(static ARENA: &'static Arena = Box::leak(Box::default()));
    ARENA.with(|a| *a)
}

type A = Arg<'static>;

fn r(s: &str) -> A {
    Arg::Name(arena().str(s))
}
fn n(s: &'static str) -> A {
    Arg::Number(s)
}
fn at(base: &str) -> A {
    Arg::Address(arena().list(&[r(base)]))
}
fn regs(prefix: &str, count: usize) -> A {
    let v: Vec<A> = (1..=count).map(|i| r(&format!("{prefix}{i}"))).collect();
    Arg::Vector(arena().list(&v))
}
fn pair(a: A, b: A) -> A {
    Arg::Pair(arena().one(a), arena().one(b))
}
fn paren(v: Vec<A>) -> A {
    Arg::Paren(arena().list(&v))
}

/// `chain` with `operands`, at line `line`.
fn ins(line: u32, chain: &'static str, operands: Vec<A>) -> Instruction<'static> {
    Instruction { guard: None, chain, operands: arena().list(&operands), span: Span { line, col: 5 } }
}

/// The instructions of an nvcc build (`-arch=sm_90a`), one of each kind the kernels use.
fn nvcc_sample() -> Vec<Instruction<'static>> {
    let mut guarded = ins(6, "bra", vec![r("$L__BB0_2")]);
    guarded.guard = Some((false, "%p1"));
    vec![
        ins(1, "ld.param.u64", vec![r("%rd1"), at("k_param_0")]),
        ins(2, "cvta.to.global.u64", vec![r("%rd2"), r("%rd1")]),
        ins(3, "mov.u32", vec![r("%r1"), r("%tid.x")]),
        ins(4, "mad.lo.s32", vec![r("%r3"), r("%r1"), r("%r2"), r("%r4")]),
        ins(5, "setp.ge.s32", vec![r("%p1"), r("%r3"), r("%r5")]),
        guarded,
        ins(7, "ld.global.f32", vec![r("%f1"), at("%rd4")]),
        ins(8, "st.global.f32", vec![at("%rd4"), r("%f2")]),
        ins(9, "fma.rn.f32", vec![r("%f3"), r("%f1"), r("%f2"), r("%f3")]),
        ins(10, "shfl.sync.bfly.b32", vec![pair(r("%r6"), r("%p2")), r("%r5"), n("16"), n("31"), n("-1")]),
        ins(11, "bar.sync", vec![n("0")]),
        ins(12, "ret", vec![]),
        ins(13, "atom.global.add.u32", vec![r("%r1"), at("%rd1"), n("1")]),
        ins(14, "cp.async.ca.shared.global", vec![at("%r1"), at("%rd1"), n("16")]),
        ins(15, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", vec![regs("%f", 4), regs("%r", 4), regs("%r", 2), regs("%f", 4)]),
        ins(16, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", vec![regs("%r", 4), at("%r1")]),
        ins(
            17,
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
            vec![regs("%f", 64), r("%rd1"), r("%rd2"), r("p"), n("1"), n("1"), n("0"), n("0")],
        ),
        ins(18, "call.uni", vec![paren(vec![r("retval0")]), r("vprintf"), paren(vec![r("param0"), r("param1")])]),
        ins(19, "mbarrier.try_wait.parity.shared::cta.b64", vec![r("%p1"), at("%r1"), r("%r2")]),
        ins(
            20,
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
            vec![at("%r1"), Arg::Address(arena().list(&[r("%rd1"), Arg::Vector(arena().list(&[r("%r2"), r("%r3")]))])), at("%r4")],
        ),
        // `mov` of a variable's address, with an offset; a load at an offset.
        ins(21, "mov.u64", vec![r("%rd5"), Arg::Offset(arena().one((r("smem"), "16")))]),
        ins(22, "ld.global.nc.v4.f32", vec![regs("%f", 4), Arg::Address(arena().list(&[Arg::Offset(arena().one((r("%rd4"), "16")))]))]),
        ins(23, "mov.b32", vec![Arg::Vector(arena().list(&[r("%rs1"), r("%rs2")])), r("%r1")]),
        ins(24, "setp.lt.and.u32", vec![r("%p3"), r("%r1"), r("%r2"), Arg::Not(arena().one(r("%p1")))]),
    ]
}

#[test]
fn nvcc_instructions_resolve() {
    let want: &[(u32, &str, &str)] = &[
        (1, "ld.param.u64", "plain"),
        (2, "cvta.to.global.u64", "plain"),
        (3, "mov.u32", "plain"),
        (4, "mad.lo.s32", "plain"),
        (5, "setp.ge.s32", "plain"),
        (6, "bra", "plain"),
        (7, "ld.global.f32", "plain"),
        (8, "st.global.f32", "plain"),
        (9, "fma.rn.f32", "plain"),
        (10, "shfl.sync.bfly.b32", "pair"),
        (11, "bar.sync", "plain"),
        (12, "ret", "plain"),
        (13, "atom.global.add.u32", "plain"),
        (14, "cp.async.ca.shared.global", "plain"),
        (15, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "plain"),
        (16, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "plain"),
        (17, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "plain"),
        (19, "mbarrier.try_wait.parity.shared::cta.b64", "plain"),
        (20, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "plain"),
        (21, "mov.u64", "plain"),
        (22, "ld.global.nc.v4.f32", "plain"),
        (23, "mov.b32", "unpack"),
        (24, "setp.lt.and.u32", "plain"),
    ];
    let sample = nvcc_sample();
    for i in &sample {
        let got = resolve(i);
        println!("{:>3} {:<60} {}", i.span.line, i.chain, got.as_ref().map_or_else(|e| e.to_string(), |r| r.variant().to_string()));
        match want.iter().find(|w| w.0 == i.span.line) {
            Some(&(_, chain, variant)) => {
                let r = got.unwrap_or_else(|e| panic!("{e}"));
                assert_eq!((r.chain(), r.variant()), (chain, variant), "line {}", i.span.line);
            }
            None => assert_eq!(got.map_err(|e| e.kind), Err(FindingKind::Call), "line {}", i.span.line),
        }
    }
    let c = coverage(&sample);
    println!("{c}");
    assert_eq!((c.instructions, c.resolved, c.calls, c.unresolved()), (sample.len(), sample.len() - 1, 1, 0));
    assert_eq!(c.missing_chains().count(), 0);
}

/// Other orders resolve to the table form where `tables/orders.tsv` admits them, and are
/// findings (naming the table order) where it does not.
#[test]
fn other_orders() {
    let o = ptxkit_tables::orders().unwrap();
    let split = |c: &str| c.split('.').map(str::to_string).collect::<Vec<_>>();
    let accepted: &[(&str, &str, Vec<A>)] = &[
        ("ld.global.relaxed.gpu.u32", "ld.relaxed.gpu.global.u32", vec![r("%r1"), at("%rd1")]),
        ("ld.u32.global", "ld.global.u32", vec![r("%r1"), at("%rd1")]),
        ("ld.nc.global.v4.u32", "ld.global.nc.v4.u32", vec![regs("%r", 4), at("%rd1")]),
        ("atom.add.global.u32", "atom.global.add.u32", vec![r("%r1"), at("%rd1"), n("1")]),
        ("cvt.f32.rn.f64", "cvt.rn.f32.f64", vec![r("%f1"), r("%fd1")]),
        ("setp.and.lt.u32", "setp.lt.and.u32", vec![r("%p1"), r("%r1"), r("%r2"), r("%p2")]),
        (
            "mma.sync.aligned.row.col.m16n8k16.f32.bf16.bf16.f32",
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            vec![regs("%f", 4), regs("%r", 4), regs("%r", 2), regs("%f", 4)],
        ),
        (
            "wgmma.mma_async.aligned.sync.m64n64k16.f32.bf16.bf16",
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
            vec![regs("%f", 32), r("%rd1"), r("%rd2"), r("p"), n("1"), n("1"), n("0"), n("0")],
        ),
    ];
    for (spelt, table, ops) in accepted {
        assert!(o.check(&split(table), &split(spelt)).is_ok(), "the rules admit `{spelt}`");
        let got = resolve(&ins(1, spelt, ops.clone())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(got.chain(), *table);
    }
    // `.v4` is glued to the type: ptxas rejects `ld.global.v4.nc.u32`; `.lo`/`.hi`/`.wide` come
    // before the type.
    for (spelt, table, ops) in [
        ("mad.s32.lo", "mad.lo.s32", vec![r("%r1"), r("%r2"), r("%r3"), r("%r4")]),
        ("ld.global.v4.nc.u32", "ld.global.nc.v4.u32", vec![regs("%r", 4), at("%rd1")]),
        ("mul.u32.wide", "mul.wide.u32", vec![r("%rd1"), r("%r1"), r("%r2")]),
    ] {
        assert!(o.check(&split(table), &split(spelt)).is_err());
        let e = resolve(&ins(3, spelt, ops)).unwrap_err();
        assert_eq!(e.kind, FindingKind::NoForm);
        let text = e.to_string();
        println!("{text}");
        assert!(text.contains(&format!("ptxas rejects this order of `{table}`")), "{text}");
    }
}

#[test]
fn a_chain_no_form_has_is_a_coverage_finding() {
    // `cvta` has only 64-bit forms in the tables; `foo` is no opcode; `add.f32` resolves.
    let v = vec![
        ins(1, "cvta.to.shared.u32", vec![r("%r2"), r("%r1")]),
        ins(2, "cvta.to.shared.u32", vec![r("%r3"), r("%r1")]),
        ins(3, "foo.b32", vec![r("%r1")]),
        ins(4, "add.f32", vec![r("%f1"), r("%f2"), r("%f3")]),
    ];
    let e = resolve(&v[0]).unwrap_err();
    assert_eq!((e.kind.clone(), e.chain.as_str(), e.span), (FindingKind::NoForm, "cvta.to.shared.u32", Span { line: 1, col: 5 }));
    let text = e.to_string();
    assert!(text.contains("`cvta.to.shared.u32`") && text.contains("no form"), "{text}");
    assert!(resolve(&v[2]).unwrap_err().to_string().contains("unknown opcode `foo`"));
    let c = coverage(&v);
    println!("{c}");
    assert_eq!((c.instructions, c.resolved, c.unresolved()), (4, 1, 3));
    assert_eq!(c.missing_chains().collect::<Vec<_>>(), ["cvta.to.shared.u32", "foo.b32"]);
    assert_eq!(c.groups[0].findings.len(), 2);
    let text = c.to_string();
    assert!(text.starts_with("4 instructions: 1 resolved (25.0%), 0 calls (not table forms), 3 unresolved in 2 chains"), "{text}");
    assert!(text.contains("     2× `cvta.to.shared.u32`"), "{text}");
}

#[test]
fn a_wrong_operand_list_names_the_expected_shapes() {
    // `bar.sync` takes one operand (plain) or two (counted).
    let e = resolve(&ins(7, "bar.sync", vec![n("0"), n("128"), n("3")])).unwrap_err();
    let text = e.to_string();
    println!("{text}");
    let FindingKind::Operands { count, expected, .. } = &e.kind else { panic!("{text}") };
    assert_eq!((*count, expected.len()), (3, 2));
    assert!(text.contains("no form takes these 3 operands (0, 128, 3)"), "{text}");
    assert!(text.contains("`bar.sync` takes 1 operand (u32); 3 operands written"), "{text}");
    assert!(text.contains("`bar.sync` as counted takes 2 operands (u32, u32); 3 operands written"), "{text}");
    // The right count, an operand of the wrong shape.
    let e = resolve(&ins(8, "ld.global.f32", vec![r("%f1"), r("%rd1")])).unwrap_err();
    let text = e.to_string();
    println!("{text}");
    assert!(text.contains("takes 2 operands (f32 = [f32@global]); operand 2 is `%rd1`, not `[f32@global]`"), "{text}");
    // An immediate outside its legal set.
    let e = resolve(&ins(9, "cp.async.cg.shared.global", vec![at("%r1"), at("%rd1"), n("8")])).unwrap_err();
    let text = e.to_string();
    println!("{text}");
    assert!(text.contains("operand 3 is `8`, not `imm(u32: 16)`"), "{text}");
}

#[test]
fn variants_told_apart_by_a_register_type_are_ambiguous() {
    let e: Finding = resolve(&ins(1, "cp.async.cg.shared.global", vec![at("%r1"), at("%rd1"), n("16"), r("%r9")])).unwrap_err();
    let text = e.to_string();
    println!("{text}");
    let FindingKind::Ambiguous { forms, .. } = &e.kind else { panic!("{text}") };
    assert_eq!(forms.iter().map(|f| f.variant).collect::<Vec<_>>(), ["src_size", "ignore_src"]);
    assert!(text.contains("operand 4 is `u32` (src_size) or `pred` (ignore_src), which the register's declaration decides"), "{text}");
    // `!p` is a predicate's.
    let ok = resolve(&ins(2, "cp.async.cg.shared.global", vec![at("%r1"), at("%rd1"), n("16"), Arg::Not(arena().one(r("%p1")))]));
    assert_eq!(ok.unwrap().variant(), "ignore_src");
}

/// The report of a file with every kind of finding.
#[test]
fn coverage_report() {
    let v = vec![
        ins(1, "add.f32", vec![r("%f1"), r("%f2"), r("%f3")]),
        ins(2, "add.f32", vec![r("%f1"), r("%f2")]),
        ins(3, "cvta.to.shared.u32", vec![r("%r2"), r("%r1")]),
        ins(4, "cp.async.cg.shared.global", vec![at("%r1"), at("%rd1"), n("16"), r("%r9")]),
        ins(5, "call", vec![r("f"), paren(vec![r("%r1")])]),
        ins(6, "add.f32", vec![r("%f1"), r("%f2"), r("%f3"), r("%f4")]),
        ins(7, "cvta.to.shared.u32", vec![r("%r3"), r("%r1")]),
    ];
    let c = coverage(&v);
    println!("{c}");
    assert_eq!((c.instructions, c.resolved, c.calls, c.unresolved()), (7, 1, 1, 5));
    let chains: Vec<(&str, usize, usize, usize)> = c.chains.iter().map(|x| (x.chain.as_str(), x.resolved, x.unresolved, x.calls)).collect();
    assert_eq!(chains, [("add.f32", 1, 2, 0), ("cvta.to.shared.u32", 0, 2, 0), ("call", 0, 0, 1), ("cp.async.cg.shared.global", 0, 1, 0)]);
    let groups: Vec<(&str, usize)> = c.groups.iter().map(|g| (g.chain.as_str(), g.findings.len())).collect();
    assert_eq!(groups, [("add.f32", 2), ("cvta.to.shared.u32", 2), ("cp.async.cg.shared.global", 1)]);
    let text = c.to_string();
    assert!(text.contains("1× at 2:5: no form takes these 2 operands (%f1, %f2):"), "{text}");
    assert!(text.contains("1× at 6:5: no form takes these 4 operands"), "{text}");
    assert!(text.contains("at 4:5: 2 forms take it"), "{text}");
}

/// Spellings map as `ptx!` maps them: to the form the chain names, nothing else. `.shared` is the
/// table's `.shared` form (not `.shared::cta`'s, though ptxas takes them alike), a load with no
/// state space is the generic one, `.u32` and `.b32` are forms of their own, and a variable's
/// name (with an offset or not) is a value.
#[test]
fn spellings_resolve_as_written() {
    let sym = |s: &str, off: &'static str| Arg::Offset(arena().one((r(s), off)));
    for (chain, ops, variant) in [
        ("ld.u32", vec![r("%r1"), at("%rd1")], "plain"),
        ("ld.shared.u32", vec![r("%r1"), at("%r2")], "plain"),
        ("ld.shared::cta.u32", vec![r("%r1"), at("%r2")], "plain"),
        ("ld.param::entry.u64", vec![r("%rd1"), Arg::Address(arena().list(&[sym("k_param_0", "8")]))], "plain"),
        ("ld.b32", vec![r("%r1"), at("%rd1")], "plain"),
        ("mov.u64", vec![r("%rd1"), r("smem")], "plain"),
        ("cvta.shared.u64", vec![r("%rd1"), sym("smem", "4")], "plain"),
        ("mov.b64", vec![r("%rd1"), Arg::Vector(arena().list(&[r("%r1"), r("%r2")]))], "pack"),
    ] {
        let got = resolve(&ins(1, chain, ops)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((got.chain(), got.variant()), (chain, variant));
    }
    let generic = resolve(&ins(1, "ld.u32", vec![r("%r1"), at("%rd1")])).unwrap();
    assert_eq!(generic.form.src, [ptxkit::core::Kind::Addr(ptxkit::core::Space::Generic, Some(ptxkit::core::DType::U32))]);
}
