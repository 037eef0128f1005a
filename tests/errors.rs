//! Bad input gives a clear `Err`, never malformed PTX or a panic.

use ptxkit::prelude::*;
use ptxkit::Error;

#[test]
fn invalid_identifiers_are_rejected() {
    for bad in ["", "1abc", "a-b", "%r1", "$x", "_", "a.b", "WARP_SZ", "naïve"] {
        let mut m = Module::new(Target::SM_80);
        match m.kernel(bad, |_, ()| {}) {
            Err(Error::InvalidIdentifier { name, .. }) => assert_eq!(name, bad),
            other => panic!("`{bad}` gave {other:?}"),
        }
    }
    for good in ["a", "_a", "a$b", "k_1", "Z9"] {
        let mut m = Module::new(Target::SM_80);
        assert!(m.kernel(good, |_, ()| {}).is_ok(), "{good} rejected");
    }
}

#[test]
fn duplicate_symbols_are_rejected() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("k", |_, ()| {}).unwrap();
    assert_eq!(m.kernel("k", |_, ()| {}).unwrap_err(), Error::DuplicateSymbol { name: "k".into() });
    assert!(matches!(m.global::<U32>("k", 4), Err(Error::DuplicateSymbol { .. })));
    let e = m.kernel("two_arrays", |k, ()| {
        k.shared_array::<U32>("buf", 4, 4);
        k.shared_array::<U32>("buf", 4, 4);
    });
    assert_eq!(e.unwrap_err(), Error::DuplicateSymbol { name: "buf".into() });
}

#[test]
fn labels_placed_twice_or_never_are_errors() {
    let mut m = Module::new(Target::SM_80);
    let e = m.kernel("twice", |k, ()| {
        let l = k.label();
        k.place(l);
        k.place(l);
    });
    assert!(matches!(e, Err(Error::DuplicateLabel { ref kernel, .. }) if kernel == "twice"), "{e:?}");

    let e = m.kernel("never", |k, ()| {
        let l = k.named_label("exit_here");
        k.bra(l);
    });
    assert_eq!(e.unwrap_err(), Error::UndefinedLabel { kernel: "never".into(), label: "exit_here".into() });

    let e = m.kernel("samename", |k, ()| {
        let a = k.named_label("x");
        let b = k.named_label("x");
        k.place(a);
        k.place(b);
    });
    assert!(matches!(e, Err(Error::DuplicateLabel { .. })), "{e:?}");
    let e = m.kernel("badlabel", |k, ()| {
        let a = k.named_label("9lives");
        k.place(a);
    });
    assert!(matches!(e, Err(Error::InvalidIdentifier { .. })), "{e:?}");
}

#[test]
fn out_of_range_immediates_are_errors() {
    let cases: Vec<(&str, Box<dyn Fn(&mut Kernel)>)> = vec![
        (
            "u16 70000",
            Box::new(|k: &mut Kernel| {
                let a: Reg<U16> = k.reg();
                ptx!(k, "add.u16", a, 70000);
            }),
        ),
        (
            "u32 -1",
            Box::new(|k: &mut Kernel| {
                let a: Reg<U32> = k.reg();
                ptx!(k, "add.u32", a, -1);
            }),
        ),
        (
            "s8 via cvt",
            Box::new(|k: &mut Kernel| {
                let a: Reg<S16> = k.reg();
                ptx!(k, "add.s16", a, 40000);
            }),
        ),
        (
            "lop3 lut 256",
            Box::new(|k: &mut Kernel| {
                let a: Reg<B32> = k.reg();
                ptx!(k, "lop3.b32", a, a, a, 256);
            }),
        ),
    ];
    for (what, f) in cases {
        let mut m = Module::new(Target::SM_80);
        let e = m.kernel("imm", |k, ()| f(k));
        assert!(matches!(e, Err(Error::ImmediateOutOfRange { .. })), "{what}: {e:?}");
        let msg = e.unwrap_err().to_string();
        assert!(msg.contains("kernel `imm`") && msg.contains("out of range"), "{msg}");
    }
    // In range at the edges is fine.
    let mut m = Module::new(Target::SM_80);
    m.kernel("edges", |k, ()| {
        let a: Reg<S32> = k.reg();
        ptx!(k, "add.s32", a, i32::MIN);
        let b: Reg<B32> = k.reg();
        ptx!(k, "xor.b32", b, u32::MAX);
        ptx!(k, "xor.b32", b, -1);
    })
    .unwrap();
}

#[test]
fn registers_and_labels_from_another_kernel_are_errors() {
    let mut m = Module::new(Target::SM_80);
    let mut stolen = None;
    let mut label = None;
    m.kernel("a", |k, ()| {
        stolen = Some(k.reg::<U32>());
        let l = k.label();
        k.place(l);
        label = Some(l);
    })
    .unwrap();
    let r = stolen.unwrap();
    let e = m.kernel("b", |k, ()| {
        ptx!(k, "add.u32", r, 1u32);
    });
    assert!(matches!(e, Err(Error::ForeignValue { ref kernel, .. }) if kernel == "b"), "{e:?}");
    let l = label.unwrap();
    let e = m.kernel("c", |k, ()| k.bra(l));
    assert!(matches!(e, Err(Error::ForeignValue { .. })), "{e:?}");
    let mut other = Module::new(Target::SM_80);
    let g = other.global::<U32>("g", 1).unwrap();
    let e = m.kernel("d", |k, ()| {
        let _ = ptx!(k, "ld.global.u32", g.ptr());
    });
    assert!(matches!(e, Err(Error::ForeignValue { .. })), "{e:?}");
}

#[test]
fn instructions_missing_on_the_target_name_the_kernel_and_instruction() {
    // The kernel's own call says so, naming the instruction and the oldest targets that have it.
    let mut m = Module::new(Target::SM_75);
    let e = m
        .kernel("reduce", |k, (x,): (Reg<U32>,)| {
            let _ = ptx!(k, "redux.sync.add.u32", x, 0xffff_ffffu32);
        })
        .unwrap_err();
    assert_eq!(
        e,
        Error::Unsupported {
            kernel: "reduce".into(),
            instruction: "redux.sync.add.u32".into(),
            needs: "sm_80 or newer (PTX ISA 7.0)".into(),
            target: "sm_75".into()
        }
    );
    assert_eq!(e.to_string(), "kernel `reduce`: `redux.sync.add.u32` is not on sm_75: it needs sm_80 or newer (PTX ISA 7.0)");

    // A bf16 mma.sync on sm_75.
    let mut m = Module::new(Target::SM_75);
    let e = m
        .kernel("mma", |k, (a, b, c): (Reg<B32>, Reg<B32>, Reg<F32>)| {
            let _ = ptx!(k, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", [a; 4], [b; 2], [c; 4]);
        })
        .unwrap_err();
    assert!(
        e.to_string().contains("`mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` is not on sm_75: it needs sm_80 or newer"),
        "{e}"
    );

    // A directive the target lacks.
    let mut m = Module::new(Target::SM_80);
    let e = m.kernel("cluster", |k, ()| k.reqnctapercluster(2, 1, 1)).unwrap_err();
    assert!(matches!(e, Error::Unsupported { ref instruction, .. } if instruction == ".reqnctapercluster"), "{e:?}");

    // A device function is checked the same way.
    let mut m = Module::new(Target::SM_75);
    let e = m.func("f", |k, (x,): (Reg<U32>,)| -> Reg<U32> { ptx!(k, "redux.sync.add.u32", x, 0xffff_ffffu32) }).unwrap_err();
    assert!(matches!(e, Error::Unsupported { ref instruction, .. } if instruction == "redux.sync.add.u32"), "{e:?}");
}

/// `setmaxnreg` on sm_90 (it needs sm_90a) says so before anything about register counts.
#[test]
fn a_target_without_the_instruction_is_said_first() {
    let mut m = Module::new(Target::SM_90);
    let e = m
        .kernel("k", |k, ()| {
            ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<240>);
        })
        .unwrap_err();
    assert!(e.to_string().contains("`setmaxnreg.inc.sync.aligned.u32` is not on sm_90: it needs sm_90a"), "{e}");
}

/// A module one of whose kernels or functions failed to build has no text: `to_ptx` names
/// the one that failed and why, rather than printing the module without it.
#[test]
fn a_module_with_a_failed_kernel_prints_nothing() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("good", |_, ()| {}).unwrap();
    let bad = m.kernel("bad", |k, ()| {
        let l = k.label();
        k.bra(l);
    });
    assert!(bad.is_err());
    m.kernel("later", |_, ()| {}).unwrap();
    let e = m.to_ptx().unwrap_err();
    assert!(
        matches!(e, Error::BuildFailed { ref kernel, ref error } if kernel == "bad" && matches!(**error, Error::UndefinedLabel { .. })),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("`bad` failed to build, so the module has no text: kernel `bad`: label"), "{e}");

    // A name used twice is such a failure too.
    let mut m = Module::new(Target::SM_80);
    m.kernel("k", |_, ()| {}).unwrap();
    assert!(m.kernel("k", |_, ()| {}).is_err());
    assert!(matches!(m.to_ptx(), Err(Error::BuildFailed { .. })));

    // And a function.
    let mut m = Module::new(Target::SM_80);
    assert!(m.func("9f", |_, ()| {}).is_err());
    assert!(matches!(m.to_ptx(), Err(Error::BuildFailed { ref kernel, .. }) if kernel == "9f"));
}

#[test]
fn explicit_versions_are_checked() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("e", |k, ()| {
        let _ = ptx!(k, "elect.sync", 0xffff_ffffu32);
    })
    .unwrap();
    m.set_version(Version::new(7, 8));
    let e = m.to_ptx().unwrap_err();
    assert!(matches!(e, Error::VersionTooOld { ref instruction, ref needs, .. } if instruction == "elect.sync" && needs == "8.0"), "{e:?}");
    m.set_version(Version::new(8, 5));
    assert!(m.to_ptx().unwrap().contains(".version 8.5\n"));
}

#[test]
fn bad_directives_and_declarations_are_errors() {
    let mut m = Module::new(Target::SM_90);
    assert!(matches!(m.kernel("z", |k, ()| k.maxntid(0, 1, 1)), Err(Error::InvalidArgument { .. })));
    assert!(matches!(m.kernel("r", |k, ()| k.maxnreg(300)), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        m.kernel("t", |k, ()| {
            k.maxnreg(32);
            k.maxnreg(64)
        }),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        m.func("f", |k, ()| {
            k.maxntid(32, 1, 1);
        }),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        m.kernel("s", |k, ()| {
            k.shared_array::<F32>("a", 4, 2);
        }),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(m.global::<U32>("empty", 0), Err(Error::InvalidArgument { .. })));
    assert!(matches!(m.kernel("raw", |k, ()| k.raw("add.u32 %r1, %r1, 1; trap")), Err(Error::InvalidArgument { .. })));
    assert!(matches!(m.kernel("st", |k, ()| k.for_range(0u32, 10u32, 0, |_, _| {})), Err(Error::InvalidArgument { .. })));
}

#[test]
fn scan_tiles_that_cannot_be_built_are_errors() {
    for (items, why) in [(0, "0 elements"), (30, "not a multiple of 4"), (36, "384 x 36 x 4 bytes exceeds 48 KiB")] {
        let mut m = Module::new(Target::SM_90);
        match ptxkit::kernels::scan_single_pass::<384>(&mut m, "scan", items, 0) {
            Err(Error::InvalidArgument { kernel, what }) => {
                assert_eq!(kernel, "scan");
                assert!(what.contains(&format!("384 threads x {items} elements")), "{why}: {what}");
            }
            other => panic!("{why}: expected InvalidArgument, got {:?}", other.map(|k| k.name().to_string())),
        }
        assert!(!m.to_ptx().unwrap().contains(".entry scan"), "{why}: no kernel may be left in the module");
    }
    let mut m = Module::new(Target::SM_90);
    assert!(ptxkit::kernels::scan_single_pass::<384>(&mut m, "scan", 28, 0).is_ok());
}

#[test]
fn branch_target_lists_that_cannot_be_declared_are_errors() {
    let mut m = Module::new(Target::SM_80);
    // Empty, or a target never placed.
    assert!(matches!(
        m.kernel("empty", |k, ()| {
            let _ = k.branch_targets(&[]);
        }),
        Err(Error::InvalidArgument { .. })
    ));
    let e = m.kernel("unplaced", |k, ()| {
        let l = k.named_label("nowhere");
        let list = k.branch_targets(&[l]);
        let i = ptx!(k, "mov.u32", 0u32);
        ptx!(k, "brx.idx", i, list);
    });
    assert_eq!(e.unwrap_err(), Error::UndefinedLabel { kernel: "unplaced".into(), label: "nowhere".into() });
    // A target, or a whole list, of another kernel.
    let (mut label, mut list) = (None, None);
    m.kernel("a", |k, ()| {
        let l = k.label();
        k.place(l);
        label = Some(l);
        list = Some(k.branch_targets(&[l]));
    })
    .unwrap();
    let e = m.kernel("b", |k, ()| {
        let _ = k.branch_targets(&[label.unwrap()]);
    });
    assert!(matches!(e, Err(Error::ForeignValue { .. })), "{e:?}");
    let e = m.kernel("c", |k, ()| {
        let i = ptx!(k, "mov.u32", 0u32);
        ptx!(k, "brx.idx", i, list.unwrap());
    });
    assert!(matches!(e, Err(Error::ForeignValue { .. })), "{e:?}");
    // A switch with no cases has no list to jump through; one past the widest list ptxas
    // takes is refused, and so is an absurd count (without building its labels first).
    for cases in [0, MAX_BRANCH_TARGETS + 1, usize::MAX] {
        let e = m.kernel(&format!("switch{}", cases % 100_000), |k, ()| {
            let i = ptx!(k, "mov.u32", 0u32);
            k.switch_(i, cases, |_, _| {});
        });
        assert!(matches!(&e, Err(Error::InvalidArgument { .. })), "{cases} cases: {e:?}");
    }
    let e = m.kernel("list", |k, ()| {
        let labels: Vec<Label> = (0..=MAX_BRANCH_TARGETS).map(|_| k.label()).collect();
        for &l in &labels {
            k.place(l);
        }
        let _ = k.branch_targets(&labels);
    });
    assert!(e.unwrap_err().to_string().contains("1 to 4096 labels, not 4097"));
}

#[test]
fn calls_that_cannot_be_made_are_errors() {
    let mut m = Module::new(Target::SM_80);
    // `.param` values cannot be predicates.
    let e = m.func_with("pred", Abi::Param, |_, (p,): (Reg<Pred>,)| p);
    assert!(
        matches!(e, Err(Error::InvalidArgument { ref what, .. }) if what.contains("parameter 0") && what.contains("predicate")),
        "{e:?}"
    );
    // One result at most.
    let e = m.func_with("two", Abi::Param, |k, (x,): (Reg<U32>,)| (x, ptx!(k, "add.u32", x, 1u32)));
    assert!(matches!(e, Err(Error::InvalidArgument { ref what, .. }) if what.contains("one value at most")), "{e:?}");
    // Only a `.param`-ABI function has an address to call through.
    let f = m.func("regabi", |k, (x,): (Reg<U32>,)| ptx!(k, "add.u32", x, 1u32)).unwrap();
    let e = m.kernel("indirect", |k, ()| {
        let x = ptx!(k, "mov.u32", 1u32);
        let p = k.func_addr(&f);
        let _ = k.call_indirect(p, (x,));
    });
    assert!(matches!(e, Err(Error::InvalidArgument { ref what, .. }) if what.contains(".reg ABI")), "{e:?}");
    // A function of another module.
    let mut other = Module::new(Target::SM_80);
    let g = other.func_with("g", Abi::Param, |k, (x,): (Reg<U32>,)| ptx!(k, "add.u32", x, 1u32)).unwrap();
    let e = m.kernel("foreign", |k, ()| {
        let x = ptx!(k, "mov.u32", 1u32);
        let _ = k.call(&g, (x,));
    });
    assert!(matches!(e, Err(Error::ForeignValue { .. })), "{e:?}");
    let e = m.kernel("foreign_addr", |k, ()| {
        let _ = k.func_addr(&g);
    });
    assert!(matches!(e, Err(Error::ForeignValue { .. })), "{e:?}");
}

#[test]
fn cache_policy_and_stack_immediates_ptxas_refuses_are_errors() {
    let build = |f: fn(&mut Kernel, GlobalPtr<U32>)| {
        let mut m = Module::new(Target::SM_90);
        m.kernel("k", |k, (p,): (GlobalPtr<U32>,)| f(k, p)).map(|_| m.to_ptx().unwrap())
    };
    let invalid = |r: Result<String, Error>, what: &str| match r {
        Err(Error::InvalidArgument { what: w, .. }) => assert!(w.contains(what), "{w}"),
        other => panic!("expected an error naming `{what}`, got {other:?}"),
    };
    // A fraction outside (0, 1].
    for f in [0.0f32, -0.5, 1.5, f32::NAN] {
        let mut m = Module::new(Target::SM_90);
        let r = m.kernel("k", |k, ()| {
            let _ = ptx!(k, "createpolicy.fractional.L2::evict_last.b64" as fraction, f);
        });
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "fraction {f}: {r:?}");
    }
    assert!(build(|k, _| {
        let _ = ptx!(k, "createpolicy.fractional.L2::evict_last.b64" as fraction, 1.0f32);
    })
    .is_ok());
    // A primary size above the total size.
    invalid(
        build(|k, p| {
            let _ = ptx!(k, "createpolicy.range.global.L2::evict_last.b64", p, 8192u32, 4096u32);
        }),
        "exceeds the total size",
    );
    assert!(build(|k, p| {
        let _ = ptx!(k, "createpolicy.range.global.L2::evict_last.b64", p, 4096u32, 4096u32);
    })
    .is_ok());
    // alloca alignments: not a power of two, beyond 2^23, smaller than the element.
    for align in [12u32, 1 << 24] {
        let mut m = Module::new(Target::SM_90);
        let r = m.kernel("k", |k, ()| {
            let _: LocalPtr<U32> = k.alloca(4u32, align);
        });
        assert!(matches!(r, Err(Error::ImmediateNotAllowed { value, .. }) if value == align as i64), "alignment {align}: {r:?}");
    }
    invalid(
        build(|k, _| {
            let _: LocalPtr<U64> = k.alloca(4u32, 4);
        }),
        "smaller than its 8-byte elements",
    );
    // A byte count beyond 64 bits.
    let mut m = Module::new(Target::SM_90);
    let r = m.kernel("k", |k, ()| {
        let _: LocalPtr<U32> = k.alloca(u64::MAX, 4);
    });
    assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
}

/// Special registers are checked against the target and raise the inferred `.version` as
/// instructions do: `%clusterid` is sm_90's (ISA 7.8), `%locality_domain_id` sm_100's from
/// ISA 9.5, past the default limit.
#[test]
fn special_registers_need_their_targets_and_versions() {
    let mut m = Module::new(Target::SM_80);
    let e = m
        .kernel("cluster", |k, (out,): (GlobalPtr<U32>,)| {
            let c = ptx!(k, "mov.u32", sreg::CLUSTERID_X);
            ptx!(k, "st.global.u32", out.at(0u32), c);
        })
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported { ref instruction, .. } if instruction == "%clusterid.x"), "{e:?}");
    assert!(e.to_string().contains("`%clusterid.x` is not on sm_80: it needs sm_90 or newer"), "{e}");

    let mut m = Module::new(Target::SM_90A);
    m.kernel("cluster", |k, (out,): (GlobalPtr<U32>,)| {
        let c = ptx!(k, "mov.u32", sreg::CLUSTERID_X);
        ptx!(k, "st.global.u32", out.at(0u32), c);
    })
    .unwrap();
    let text = m.to_ptx().unwrap();
    assert!(text.contains("\n.version 8.0\n"), "sm_90a's own minimum is 8.0:\n{text}");

    // %locality_domain_id: sm_100 and newer, ISA 9.5.
    let mut m = Module::new(Target::SM_90A);
    let e =
        m.kernel("domain", |k, (out,): (GlobalPtr<U32>,)| ptx!(k, "st.global.u32", out.at(0u32), sreg::LOCALITY_DOMAIN_ID)).unwrap_err();
    assert!(matches!(e, Error::Unsupported { ref instruction, .. } if instruction == "%locality_domain_id"), "{e:?}");
    let mut m = Module::new(Target::SM_100A);
    m.kernel("domain", |k, (out,): (GlobalPtr<U32>,)| ptx!(k, "st.global.u32", out.at(0u32), sreg::LOCALITY_DOMAIN_ID)).unwrap();
    let e = m.to_ptx().unwrap_err();
    assert!(matches!(e, Error::NeedsNewerIsa { ref instruction, .. } if instruction == "%locality_domain_id"), "{e:?}");
    let text = m.max_version(Version::NEWEST).to_ptx().unwrap();
    assert!(text.contains("\n.version 9.5\n"), "{text}");
}
