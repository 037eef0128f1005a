//! No input panics the builder. Random sequences of calls of the public builder API, with
//! arbitrary arguments (names of any characters, immediates at and beyond every range,
//! labels placed twice or never, registers, labels, pointers, variables and functions from
//! other kernels and modules, extreme offsets, directives and declarations at every edge,
//! every `Target`, `.version` up to the default limit), must end in `Ok` text that ptxas accepts without a
//! warning, or in an `Err` naming the problem: never a panic, a hang, or text ptxas
//! refuses. The same for nesting thousands deep, a kernel of a million instructions, and
//! `KernelRef::from_ptx` on malformed text.
//!
//! `PTXKIT_FUZZ_CASES` sets the number of random cases (300 unless set), `PTXKIT_SEED`
//! the first seed (fresh unless set; case `i` uses seed `first + i`, printed on failure),
//! `PTXKIT_FUZZ_HUGE=1` has ptxas assemble the million-instruction kernel.

#[macro_use]
mod common;

use ptxkit::intrinsics::vector::Align;
use ptxkit::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

thread_local! {
    /// How often a case draws hostile names and values (per case: none, rare, often).
    static HOSTILE: std::cell::Cell<f64> = const { std::cell::Cell::new(0.5) };
}

fn hostile(r: &mut StdRng) -> bool {
    r.gen_bool(HOSTILE.with(|h| h.get()))
}

/// A name of any kind: legal identifiers, reserved and generated-looking ones, empty, PTX
/// keywords and directives, punctuation, whitespace, control characters, non-ASCII, long.
fn name(r: &mut StdRng) -> String {
    const FIXED: &[&str] = &[
        "",
        "_",
        "$x",
        "%r1",
        "%rd",
        "a b",
        "a;b",
        "a\nb",
        "a\rb",
        "a\0b",
        "é",
        "ключ",
        "名前",
        "k-1",
        "1k",
        "k.x",
        ".entry",
        "ret",
        "add",
        "reg",
        "param",
        "global",
        "shared",
        "func",
        "entry",
        "version",
        "target",
        "__",
        "_1",
        "a$",
        "x//y",
        "x/*",
        "{",
        "}",
        "a,b",
        "a(b)",
        "a[0]",
        "a+1",
        "@p",
        "!",
        "\t",
        " ",
        "\u{200b}",
        "\u{feff}k",
        "k\u{7f}",
    ];
    if !hostile(r) {
        return format!("k{}", r.gen::<u32>());
    }
    match r.gen_range(0..6) {
        0 => FIXED[r.gen_range(0..FIXED.len())].to_string(),
        1 => format!("k{}", r.gen::<u32>()),
        2 => (0..r.gen_range(1..20)).map(|_| char::from_u32(r.gen_range(0..0x3000)).unwrap_or('x')).collect(),
        3 => (0..r.gen_range(1..12)).map(|_| r.gen_range(0x20u8..0x7f) as char).collect(),
        4 => "a".repeat(r.gen_range(1..5000)),
        _ => format!("n_{}", r.gen_range(0..4)), // collisions on purpose
    }
}

/// Free text for comments: anything, including line breaks of every kind.
fn text(r: &mut StdRng) -> String {
    const FIXED: &[&str] =
        &["", "*/", "/*", "a\rb", "a\r\nb", "\n\n", "x\u{2028}y", "x\u{85}y", "\0", "ret;", "}\n.entry x(){", "é\u{feff}"];
    if r.gen_bool(0.5) {
        FIXED[r.gen_range(0..FIXED.len())].to_string()
    } else {
        (0..r.gen_range(0..40)).map(|_| char::from_u32(r.gen_range(0..0x2100)).unwrap_or('?')).collect()
    }
}

fn u32_edge(r: &mut StdRng) -> u32 {
    const E: &[u32] = &[
        0,
        1,
        2,
        3,
        7,
        8,
        16,
        24,
        31,
        32,
        33,
        63,
        64,
        127,
        128,
        255,
        256,
        1023,
        1024,
        1025,
        4096,
        65535,
        65536,
        0x7fff_ffff,
        0x8000_0000,
        u32::MAX,
    ];
    if !hostile(r) {
        r.gen_range(1..64)
    } else if r.gen_bool(0.7) {
        E[r.gen_range(0..E.len())]
    } else {
        r.gen()
    }
}

/// An alignment: a power of two, or (in hostile draws) anything.
fn align(r: &mut StdRng) -> u32 {
    if hostile(r) {
        u32_edge(r)
    } else {
        1 << r.gen_range(2..8)
    }
}

fn i64_edge(r: &mut StdRng) -> i64 {
    const E: &[i64] = &[
        0,
        1,
        -1,
        4,
        -4,
        i32::MAX as i64,
        i32::MIN as i64,
        i32::MAX as i64 + 1,
        u32::MAX as i64,
        i64::MAX,
        i64::MIN,
        i64::MAX / 4,
        i64::MIN / 4,
    ];
    if !hostile(r) {
        r.gen_range(-64..64)
    } else if r.gen_bool(0.7) {
        E[r.gen_range(0..E.len())]
    } else {
        r.gen()
    }
}

/// Values that leave the kernel that made them, to be used where they do not belong.
#[derive(Default, Clone)]
struct Stash {
    u: Vec<Reg<U32>>,
    p: Vec<Reg<Pred>>,
    ptr: Vec<GlobalPtr<U32>>,
    sh: Vec<Ptr<ptxkit::ops::m::Shared, U32>>,
    labels: Vec<Label>,
}

type Helper = FuncRef<(Reg<U32>,), Reg<U32>>;

struct Ctx<'a> {
    r: &'a mut StdRng,
    u: Vec<Reg<U32>>,
    p: Vec<Reg<Pred>>,
    ptr: Vec<GlobalPtr<U32>>,
    sh: Vec<Ptr<ptxkit::ops::m::Shared, U32>>,
    labels: Vec<Label>,
    vars: Vec<Var<ptxkit::ops::m::Global, U32>>,
    funcs: Vec<Helper>,
    stash: &'a mut Stash,
}

fn pick<T: Clone>(r: &mut StdRng, v: &[T]) -> Option<T> {
    if v.is_empty() {
        None
    } else {
        Some(v[r.gen_range(0..v.len())].clone())
    }
}

/// One random call on a kernel body.
fn op(k: &mut Kernel, c: &mut Ctx, depth: u32) {
    let a = pick(c.r, &c.u).unwrap_or_else(|| ptx!(k, "mov.u32", sreg::TID_X));
    let b = pick(c.r, &c.u).unwrap_or(a);
    let ptr = pick(c.r, &c.ptr);
    let mut choice = c.r.gen_range(0..42);
    // Calls that are wrong by construction (labels placed twice or never, values of other
    // kernels, immediates outside their sets, framing of raw text) come in hostile draws.
    if [15, 16, 17, 18, 24, 25, 27, 30].contains(&choice) && !hostile(c.r) {
        choice = 0;
    }
    match choice {
        0 => c.u.push(ptx!(k, "add.u32", a, b)),
        1 => c.u.push(ptx!(k, "shl.b32", a, u32_edge(c.r)).bitcast()),
        2 => c.u.push(ptx!(k, "add.u32", a, u32_edge(c.r))),
        3 => {
            // Immediates of every type, at and beyond their ranges, through the typed API.
            let v = i64_edge(c.r);
            c.u.push(ptx!(k, "cvt.u32.s64", ptx!(k, "add.s64", ptx!(k, "cvt.s64.u32", a), v)));
        }
        4 => c.p.push(ptx!(k, "setp.lt.u32", a, b)),
        5 => {
            if let Some(p) = ptr {
                c.u.push(k.ld(p.at(a)));
            }
        }
        6 => {
            if let Some(p) = ptr {
                k.st(p.offset(i64_edge(c.r)), b);
            }
        }
        7 => {
            if let Some(p) = ptr {
                k.st(p.byte_offset(i64_edge(c.r)).offset(i64_edge(c.r)), a);
            }
        }
        8 => {
            if let Some(p) = ptr {
                let i: u64 = if hostile(c.r) { u64::MAX - c.r.gen_range(0..4) } else { c.r.gen_range(0..1 << 40) };
                c.u.push(k.ld(p.at(i)));
            }
        }
        9 => {
            let len = u32_edge(c.r);
            let al = align(c.r);
            let nm = name(c.r);
            let s = k.shared_array::<U32>(&nm, len, al);
            c.sh.push(s);
            c.stash.sh.push(s);
        }
        10 => {
            if let Some(s) = pick(c.r, &c.sh) {
                if c.r.gen_bool(0.5) {
                    k.st(s.at(a), b);
                } else {
                    c.u.push(k.ld(s.offset(i64_edge(c.r))));
                }
            }
        }
        11 => {
            let nm = name(c.r);
            let l = k.local_array::<U32>(&nm, u32_edge(c.r), align(c.r));
            k.st(l.at(a), b);
        }
        12 => {
            let d = if c.r.gen_bool(0.5) {
                k.dynamic_shared::<U32>()
            } else {
                k.dynamic_shared_aligned::<U32>(if hostile(c.r) { u32_edge(c.r) } else { 1 << c.r.gen_range(4..11) })
            };
            k.st(d.at(a), b);
        }
        13 => {
            let l = k.label();
            c.labels.push(l);
            c.stash.labels.push(l);
        }
        14 => {
            let nm = name(c.r);
            let l = k.named_label(&nm);
            c.labels.push(l);
            c.stash.labels.push(l);
        }
        15 | 16 => {
            // Placed once, twice, or never; labels of other kernels too.
            if let Some(l) = pick(c.r, &c.labels) {
                k.place(l);
            }
        }
        17 => {
            if let Some(l) = pick(c.r, &c.labels) {
                k.bra(l);
            }
        }
        18 => {
            if let (Some(l), Some(p)) = (pick(c.r, &c.labels), pick(c.r, &c.p)) {
                k.bra_if(p, l);
            }
        }
        19 if depth < 6 => {
            if let Some(p) = pick(c.r, &c.p) {
                let n = c.r.gen_range(0..4);
                k.if_(p, |k| (0..n).for_each(|_| op(k, c, depth + 1)));
            }
        }
        20 if depth < 6 => {
            if let Some(p) = pick(c.r, &c.p) {
                let (n, m) = (c.r.gen_range(0..3), c.r.gen_range(0..3));
                let neg = c.r.gen_bool(0.5);
                let body = |k: &mut Kernel| {
                    (0..n).for_each(|_| op(k, c, depth + 1));
                    if let Some(q) = pick(c.r, &c.p) {
                        k.if_else(
                            q,
                            |k| (0..m).for_each(|_| op(k, c, depth + 1)),
                            |k| {
                                let _ = ptx!(k, "add.u32", a, b);
                            },
                        );
                    }
                };
                if neg {
                    k.guarded(!p, body)
                } else {
                    k.guarded(p, body)
                }
            }
        }
        21 if depth < 6 => {
            let step = if hostile(c.r) { 0 } else { u32_edge(c.r) };
            let n = c.r.gen_range(0..3);
            let start = u32_edge(c.r);
            k.for_range(start, b, step, |k, i| {
                c.u.push(i);
                (0..n).for_each(|_| op(k, c, depth + 1));
                c.u.retain(|x| *x != i);
            });
        }
        22 if depth < 6 => {
            let n = c.r.gen_range(0..3);
            k.loop_(|k, ll| {
                c.labels.push(ll.brk);
                (0..n).for_each(|_| op(k, c, depth + 1));
                let p = ptx!(k, "setp.eq.u32", a, 0u32);
                k.bra_if(p, ll.brk);
                c.labels.retain(|l| *l != ll.brk);
            });
        }
        23 if depth < 6 => {
            let limit = u32_edge(c.r);
            k.while_(
                |k| ptx!(k, "setp.lt.u32", a, limit),
                |k| {
                    if c.r.gen_bool(0.5) {
                        op(k, c, depth + 1)
                    }
                },
            );
        }
        24 => match c.r.gen_range(0..7) {
            0 => k.maxntid(u32_edge(c.r), u32_edge(c.r), u32_edge(c.r)),
            1 => k.reqntid(u32_edge(c.r), u32_edge(c.r), u32_edge(c.r)),
            2 => k.minnctapersm(u32_edge(c.r)),
            3 => k.maxnreg(u32_edge(c.r)),
            4 => k.reqnctapercluster(u32_edge(c.r), u32_edge(c.r), u32_edge(c.r)),
            5 => k.explicitcluster(),
            _ => k.maxclusterrank(u32_edge(c.r)),
        },
        25 => {
            // Immediates from legal sets, given any value.
            let v = u32_edge(c.r);
            match c.r.gen_range(0..5) {
                0 => ptx!(k, "setmaxnreg.inc.sync.aligned.u32", v),
                1 => ptx!(k, "wgmma.wait_group.sync.aligned", v as i64),
                2 => ptx!(k, "bar.sync", v),
                3 => ptx!(k, "bar.sync" as counted, v % 20, u32_edge(c.r)),
                _ => ptx!(k, "barrier.sync.aligned", v),
            }
        }
        26 => {
            let t = text(c.r);
            k.comment(&t);
        }
        27 => {
            // Raw text is the unchecked escape hatch: only its framing is checked (one
            // instruction, no `;` or line break), so only text ptxas knows in any body goes
            // in here (a register such as `%p1` is declared only where the builder made one).
            let t = ["membar.gl", "a;b", "x\ny", "membar.cta", "nanosleep.u32 1"][c.r.gen_range(0..5)];
            k.raw(t);
        }
        28 => {
            if let Some(f) = pick(c.r, &c.funcs) {
                let v = match c.r.gen_range(0..3) {
                    0 => k.call(&f, (a,)),
                    1 => k.call_uni(&f, (a,)),
                    // Through its address: a `.reg`-ABI function has none to call through.
                    _ if f.abi() == Abi::Param || hostile(c.r) => {
                        let p = k.func_addr(&f);
                        k.call_indirect(p, (a,))
                    }
                    _ => k.call(&f, (a,)),
                };
                c.u.push(v);
            }
        }
        29 => {
            if let Some(v) = pick(c.r, &c.vars) {
                k.st(v.ptr().at(a), b);
            }
        }
        30 => {
            // Values of other kernels and modules.
            match c.r.gen_range(0..4) {
                0 => {
                    if let Some(x) = pick(c.r, &c.stash.u) {
                        c.u.push(x)
                    }
                }
                1 => {
                    if let Some(x) = pick(c.r, &c.stash.p) {
                        c.p.push(x)
                    }
                }
                2 => {
                    if let Some(x) = pick(c.r, &c.stash.ptr) {
                        c.ptr.push(x)
                    }
                }
                _ => {
                    if let Some(x) = pick(c.r, &c.stash.labels) {
                        c.labels.push(x)
                    }
                }
            }
        }
        31 => {
            if let Some(p) = ptr {
                let e = ptx!(k, "mul.wide.u32", a, 4u32);
                let v = k.vload::<4, _>(
                    p.at(e),
                    [Align::Aligned, Align::Unknown, Align::Offset(if hostile(c.r) { u32_edge(c.r) } else { c.r.gen_range(0..4) })]
                        [c.r.gen_range(0..3)],
                );
                c.u.extend(v);
            }
        }
        32 => {
            let d = c.r.gen_range(0..u32::MAX);
            let x = ptx!(k, "mov.u32", d);
            k.assign(a, x);
        }
        33 => k.ret(),
        34 => {
            c.stash.u.push(a);
            if let Some(p) = pick(c.r, &c.p) {
                c.stash.p.push(p);
            }
        }
        35 => c.p.push(ptx!(k, "setp.ne.u32", b, u32_edge(c.r))),
        36 => {
            let (leader, is) = ptx!(k, "elect.sync", u32_edge(c.r));
            c.u.push(leader.bitcast());
            c.p.push(is);
        }
        37 => c.u.push(ptx!(k, "redux.sync.add.u32", a, u32_edge(c.r))),
        38 => {
            let v = ptx!(k, "cvt.rn.f32.u32", a);
            let w = ptx!(k, "fma.rn.f32", v, f32::from_bits(c.r.gen()), f32::from_bits(c.r.gen()));
            c.u.push(ptx!(k, "cvt.rzi.u32.f32", w));
        }
        // Jump tables: a switch of any number of cases (none or past 4,096 is an error),
        // and `brx.idx` through a list of the labels at hand (foreign or never placed ones
        // in hostile draws).
        39 if depth < 6 => {
            let n = if hostile(c.r) { [0, 1, 4_096, 4_097, usize::MAX][c.r.gen_range(0..5)] } else { c.r.gen_range(1..5) };
            k.switch_(a, n, |k, i| {
                if i < 3 {
                    op(k, c, depth + 1)
                }
            });
        }
        40 => {
            let mut labels: Vec<Label> = c.labels.clone();
            if hostile(c.r) {
                labels.extend(c.stash.labels.iter().copied());
            }
            if !labels.is_empty() {
                let list = k.branch_targets(&labels);
                ptx!(k, "brx.idx", a, list);
            }
        }
        _ => c.u.push(ptx!(k, "mul.hi.u32", a, b)),
    }
}

/// Builds one random module from `seed` with arbitrary calls: its target, the result of
/// printing it, and the kernels that the case expects an error from.
fn case(seed: u64) -> (Target, Result<String, Error>) {
    let mut r = StdRng::seed_from_u64(seed);
    HOSTILE.with(|h| h.set([0.0, 0.005, 0.03, 0.3][(seed % 4) as usize]));
    let target = Target::ALL[r.gen_range(0..Target::ALL.len())];
    let mut stash = Stash::default();
    // Another module, whose values may leak into this one.
    let mut other = Module::new(target);
    let other_f: Option<Helper> = other.func("other_helper", |k, (x,): (Reg<U32>,)| ptx!(k, "add.u32", x, 1u32)).ok();
    let _ = other.kernel("other", |k, (x,): (GlobalPtr<U32>,)| {
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let p = ptx!(k, "setp.eq.u32", t, 0u32);
        stash.u.push(t);
        stash.p.push(p);
        stash.ptr.push(x);
        stash.labels.push(k.label());
    });
    let other_var = other.global::<U32>("other_var", 4).ok();

    let mut m = Module::new(target);
    if hostile(&mut r) {
        // Versions up to the default limit, which CUDA 13.0's ptxas takes: a target or form
        // needing a newer one is then an error (`NeedsNewerIsa`, `VersionTooOld`).
        let upto = Version::ALL.iter().filter(|v| **v <= Version::MAX).count();
        m.set_version(Version::ALL[r.gen_range(0..upto)]);
    }
    let mut funcs: Vec<Helper> = other_f.into_iter().filter(|_| hostile(&mut r)).collect();
    let mut vars: Vec<_> = other_var.into_iter().filter(|_| hostile(&mut r)).collect();
    let mut failed_build = None;
    for _ in 0..r.gen_range(1..8) {
        match r.gen_range(0..6) {
            0 => {
                let nm = name(&mut r);
                match m.global::<U32>(&nm, u32_edge(&mut r)) {
                    Ok(v) => vars.push(v),
                    Err(e) => failed_build = Some(e),
                }
            }
            1 => {
                let nm = name(&mut r);
                let lo = if hostile(&mut r) { 0 } else { 1 };
                let init: Vec<u32> = (0..r.gen_range(lo..5)).map(|_| r.gen()).collect();
                if let Err(e) = m.constant::<U32>(&nm, &init) {
                    failed_build = Some(e);
                }
            }
            2 => {
                let nm = name(&mut r);
                let n = r.gen_range(0..10);
                let abi = if r.gen_bool(0.5) { Abi::Reg } else { Abi::Param };
                let res = m.func_with(&nm, abi, |k, (x,): (Reg<U32>,)| {
                    let mut c = Ctx {
                        r: &mut r,
                        u: vec![x],
                        p: vec![],
                        ptr: vec![],
                        sh: vec![],
                        labels: vec![],
                        vars: vars.clone(),
                        funcs: vec![],
                        stash: &mut stash,
                    };
                    (0..n).for_each(|_| op(k, &mut c, 0));
                    *c.u.last().unwrap()
                });
                match res {
                    Ok(f) => funcs.push(f),
                    Err(e) => failed_build = Some(e),
                }
            }
            _ => {
                let nm = name(&mut r);
                let n = r.gen_range(0..40);
                let res = m.kernel(&nm, |k, (x, s): (GlobalPtr<U32>, Reg<U32>)| {
                    let mut c = Ctx {
                        r: &mut r,
                        u: vec![s],
                        p: vec![],
                        ptr: vec![x],
                        sh: vec![],
                        labels: vec![],
                        vars: vars.clone(),
                        funcs: funcs.clone(),
                        stash: &mut stash,
                    };
                    if !hostile(c.r) && c.r.gen_bool(0.3) {
                        k.reqntid(128, 1, 1);
                        k.minnctapersm(c.r.gen_range(1..5));
                        k.maxnreg(c.r.gen_range(24..=255));
                    }
                    let t = ptx!(k, "mov.u32", sreg::TID_X);
                    c.u.push(t);
                    c.p.push(ptx!(k, "setp.lt.u32", t, s));
                    (0..n).for_each(|_| op(k, &mut c, 0));
                    stash.ptr.push(x);
                });
                if let Err(e) = res {
                    failed_build = Some(e);
                }
            }
        }
    }
    match failed_build {
        // An error from a build step; printing must then work or fail cleanly too.
        Some(e) => {
            let _ = m.to_ptx();
            (target, Err(e))
        }
        None => (target, m.to_ptx()),
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|s| s.parse().unwrap_or_else(|_| panic!("{name}={s} is not a number")))
}

/// Runs `f` on a thread with a large stack, failing if it runs past `limit` (a hang).
fn bounded<T: Send + 'static>(what: &str, limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let h = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    match rx.recv_timeout(limit) {
        Ok(v) => {
            let _ = h.join();
            v
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: still running after {limit:?}"),
        // The thread ended without a value: it panicked.
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match h.join() {
            Err(p) => std::panic::resume_unwind(p),
            Ok(()) => unreachable!("the thread sends before it ends"),
        },
    }
}

/// Every error names its problem in words.
fn check_err(seed: u64, e: &Error) {
    let msg = e.to_string();
    assert!(msg.len() > 10, "seed {seed}: error without words: {e:?}");
}

fn random_calls_never_panic() {
    let first = env_u64("PTXKIT_SEED").unwrap_or_else(rand::random);
    let cases = env_u64("PTXKIT_FUZZ_CASES").unwrap_or(300);
    println!("fuzz_builder seeds {first}.. ({cases} cases; PTXKIT_SEED={first} PTXKIT_FUZZ_CASES={cases} replays them)");
    let (mut ok, mut err, mut ptxas_runs) = (0u64, 0u64, 0u64);
    let mut kinds = std::collections::BTreeMap::<String, u64>::new();
    let mut batch: Vec<(u64, Target, String)> = vec![];
    let started = Instant::now();
    for i in 0..cases {
        let seed = first.wrapping_add(i);
        let res = catch_unwind(AssertUnwindSafe(|| bounded(&format!("seed {seed}"), Duration::from_secs(60), move || case(seed))));
        let (target, res) = match res {
            Ok(v) => v,
            Err(p) => {
                let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                panic!("seed {seed}: the builder panicked: {}", msg.unwrap_or_default());
            }
        };
        match res {
            Ok(text) => {
                ok += 1;
                batch.push((seed, target, text));
            }
            Err(e) => {
                err += 1;
                check_err(seed, &e);
                if std::env::var("PTXKIT_FUZZ_SHOW").is_ok() {
                    println!("seed {seed}: {e}");
                }
                let kind = format!("{e:?}");
                *kinds.entry(kind[..kind.find([' ', '{', '(']).unwrap_or(kind.len())].to_string()).or_default() += 1;
            }
        }
    }
    // ptxas on every Ok text, one process per module (the builder's part ran either way).
    let px = common::ptxas("random_calls_never_panic");
    for (seed, target, text) in &batch {
        ptxas_runs += 1;
        if let Err(log) = ptxkit::ptxas::check_clean(&px, text, *target, ptxkit::ptxas::Mode::Assemble) {
            let path = std::env::temp_dir().join(format!("ptxkit-fuzz-{seed}.ptx"));
            std::fs::write(&path, text).ok();
            panic!("seed {seed}: the builder printed text that ptxas refuses for {target} (saved to {}):\n{log}", path.display());
        }
    }
    println!(
        "fuzz_builder: {cases} cases in {:.1} s: {ok} Ok (all {ptxas_runs} accepted by ptxas), {err} Err {kinds:?}",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(ok + err, cases);
}

/// Nesting thousands deep: `if_`, `guarded` scopes (each conjoining its guard with the
/// enclosing one), loops and labels, in a kernel that must print and assemble.
fn nesting_thousands_deep() {
    fn nest_if(k: &mut Kernel, p: Reg<Pred>, x: Reg<U32>, d: u32) {
        if d == 0 {
            return;
        }
        k.if_(p, |k| {
            let y = ptx!(k, "add.u32", x, 1u32);
            nest_if(k, p, y, d - 1)
        });
    }
    fn nest_guard(k: &mut Kernel, ps: &[Reg<Pred>], x: Reg<U32>, d: usize) {
        if d == 0 {
            return;
        }
        k.guarded(ps[d % ps.len()], |k| {
            let y = ptx!(k, "add.u32", x, 1u32);
            nest_guard(k, ps, y, d - 1)
        });
    }
    fn nest_loop(k: &mut Kernel, x: Reg<U32>, d: u32) {
        if d == 0 {
            return;
        }
        k.for_range(0u32, x, 1, |k, i| nest_loop(k, i, d - 1));
    }
    let text = bounded("nesting", Duration::from_secs(300), || {
        let mut m = Module::new(Target::SM_90);
        m.kernel("deep", |k, (x, n): (GlobalPtr<U32>, Reg<U32>)| {
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let p = ptx!(k, "setp.lt.u32", t, n);
            let q = ptx!(k, "setp.ne.u32", t, 3u32);
            nest_if(k, p, t, 5000);
            nest_guard(k, &[p, q], t, 2000);
            nest_loop(k, n, 1000);
            k.st(x.at(t), t);
        })
        .expect("deep nesting builds");
        m.to_ptx().expect("deep nesting prints")
    });
    assert!(text.matches("bra").count() >= 5000 + 2 * 1000, "every level branches");
    let px = common::ptxas("nesting_thousands_deep");
    ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("ptxas: {e}"));
}

/// A module of a million instructions, 100 kernels of 10,000, builds, prints and is
/// assembled by ptxas (about 45 s on one core); a single kernel of a million instructions
/// builds and prints, and with `PTXKIT_FUZZ_HUGE=1` ptxas assembles it too (ptxas 13.0 had
/// not finished after 48 minutes and 3 GB on a 2-core machine).
fn a_million_instructions() {
    let text = bounded("a module of a million instructions", Duration::from_secs(300), || {
        let mut m = Module::new(Target::SM_90);
        for i in 0..100 {
            m.kernel(&format!("part{i}"), |k, (x,): (GlobalPtr<U32>,)| {
                let t = ptx!(k, "mov.u32", sreg::TID_X);
                let mut v = t;
                while k.len() < 10_000 - 2 {
                    v = ptx!(k, "mad.lo.u32", v, 3u32 + i, t);
                }
                k.st(x.at(t), v);
            })
            .expect("a 10,000-instruction kernel builds");
        }
        m.to_ptx().expect("a module of a million instructions prints")
    });
    assert!(text.matches("mad.lo.u32").count() >= 100 * (10_000 - 10), "every kernel is whole");
    let px = common::ptxas("a_million_instructions");
    ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("ptxas: {e}"));

    let text = bounded("a million instructions", Duration::from_secs(300), || {
        let mut m = Module::new(Target::SM_90);
        m.kernel("big", |k, (x,): (GlobalPtr<U32>,)| {
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let mut v = t;
            while k.len() < 1_000_000 - 2 {
                v = ptx!(k, "mad.lo.u32", v, 3u32, t);
            }
            k.st(x.at(t), v);
        })
        .expect("a million instructions build");
        m.to_ptx().expect("a million instructions print")
    });
    assert!(text.lines().count() > 1_000_000);
    if std::env::var("PTXKIT_FUZZ_HUGE").as_deref() == Ok("1") {
        let px = common::ptxas("a_million_instructions");
        ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("ptxas: {e}"));
    }
}

/// `KernelRef::from_ptx` on malformed text: truncated, mutated, random, hostile names.
fn from_ptx_never_panics() {
    let mut m = Module::new(Target::SM_90);
    m.kernel("good", |k, (x, n): (GlobalPtr<F32>, Reg<U32>)| {
        let t = ptx!(k, "mov.u32", sreg::TID_X);
        let p = ptx!(k, "setp.lt.u32", t, n);
        k.if_(p, |k| k.st(x.at(t), 1.0f32));
    })
    .unwrap();
    let good = m.to_ptx().unwrap();
    type P = (GlobalPtr<F32>, Reg<U32>);
    assert!(KernelRef::<P>::from_ptx(&good, "good").is_ok());
    let seed: u64 = rand::random();
    println!("from_ptx seed {seed}");
    let mut r = StdRng::seed_from_u64(seed);
    let (mut ok, mut err) = (0, 0);
    for i in 0..20_000 {
        let mut t: Vec<char> = good.chars().collect();
        match i % 5 {
            0 => t.truncate(r.gen_range(0..t.len())),
            1 => {
                for _ in 0..r.gen_range(1..8) {
                    let at = r.gen_range(0..t.len());
                    t[at] = char::from_u32(r.gen_range(0..0x800)).unwrap_or('(');
                }
            }
            2 => {
                let at = r.gen_range(0..t.len());
                t.insert(at, ['(', ')', ',', '\0', 'é', '\n'][r.gen_range(0..6)]);
            }
            3 => t = text(&mut r).chars().collect(),
            _ => {
                let at = r.gen_range(0..t.len());
                let end = r.gen_range(at..t.len());
                t.drain(at..end);
            }
        }
        let t: String = t.into_iter().collect();
        let nm = if r.gen_bool(0.8) { "good".to_string() } else { name(&mut r) };
        match catch_unwind(|| KernelRef::<P>::from_ptx(&t, &nm).map(|_| ())) {
            Ok(Ok(())) => ok += 1,
            Ok(Err(e)) => {
                check_err(seed, &e);
                err += 1
            }
            Err(_) => panic!("seed {seed}: from_ptx panicked on {t:?} / {nm:?}"),
        }
    }
    println!("from_ptx: 20000 malformed texts: {ok} Ok, {err} Err");
    assert!(err > 10_000, "most mutations break the declaration");
}

/// Each input the fuzz test found mishandled, as a fixed case: the text ptxas accepts, or
/// the error.
fn regressions_found_by_fuzzing() {
    type P = (GlobalPtr<U32>,);
    let build = |f: fn(&mut Kernel, GlobalPtr<U32>)| {
        let mut m = Module::new(Target::SM_90);
        m.kernel("k", |k, (x,): P| f(k, x)).and_then(|_| m.to_ptx())
    };
    let err = |f: fn(&mut Kernel, GlobalPtr<U32>), what: &str| {
        let e = build(f).expect_err(what);
        assert!(matches!(e, Error::InvalidArgument { .. }), "{what}: {e:?}");
    };
    // Negative constant offsets: `[%rd1+-8]`, which ptxas reads (it refuses `[%rd1-8]`).
    let text = build(|k, x| {
        let v = k.ld(x.offset(-2));
        k.st(x.byte_offset(-12), v);
        k.comment("ünïcödé\rsecond line\u{2028}third \\");
    })
    .unwrap();
    assert!(text.contains("+-8]") && text.contains("+-12]"), "{text}");
    let glued = text.match_indices('-').any(|(i, _)| text[..i].ends_with(|c: char| c.is_ascii_alphanumeric()));
    assert!(!glued, "a minus sign glued to a register or symbol:\n{text}");
    assert!(text.is_ascii() && text.contains("// third \\u{5c}"), "{text}");
    let px = common::ptxas("regressions_found_by_fuzzing");
    ptxkit::ptxas::check_clean(&px, &text, Target::SM_90, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}\n{text}"));
    // Offsets beyond the address space are errors, not overflows.
    err(|k, x| k.st(x.offset(i64::MAX), 1u32), "offset(i64::MAX)");
    err(|k, x| k.st(x.byte_offset(i64::MIN).byte_offset(-1), 1u32), "byte_offset below i64::MIN");
    err(
        |k, x| {
            let _ = k.ld(x.at(u64::MAX));
        },
        "at(u64::MAX)",
    );
    // Directives ptxas would warn about and ignore.
    err(|k, _| k.reqntid(2000, 1, 1), "2000 threads");
    err(|k, _| k.maxntid(u32::MAX, u32::MAX, u32::MAX), "a product beyond u64");
    err(
        |k, _| {
            let _ = k.local_array::<U32>("deep", 4, 1 << 24);
        },
        "a .local array aligned to 16 MiB",
    );
    err(|k, _| k.maxnreg(4), ".maxnreg 4");
    err(|k, _| k.minnctapersm(2), ".minnctapersm alone");
    err(
        |k, _| {
            k.maxntid(128, 1, 1);
            k.reqntid(128, 1, 1);
        },
        ".maxntid with .reqntid",
    );
    // setmaxnreg on sm_90 is refused for the target first; on sm_90a for the register count.
    assert!(matches!(build(|k, _| ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<240>)), Err(Error::Unsupported { .. })));
    let mut m = Module::new(Target::SM_90A);
    let e = m.kernel("k", |k, (_x,): P| ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<240>)).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "setmaxnreg, register count at entry unknown: {e:?}");
    // Barrier numbers and thread counts ptxas refuses.
    err(|k, _| ptx!(k, "bar.sync", 39u32), "bar.sync 39");
    err(|k, _| ptx!(k, "bar.sync" as counted, 1u32, 33u32), "33 threads");
    // Static shared memory beyond 48 KiB, and empty arrays.
    err(
        |k, _| {
            let _ = k.shared_array::<U32>("a", 8192, 16);
            let _ = k.shared_array::<U32>("b", 8192, 16);
        },
        "64 KiB of static shared memory",
    );
    err(
        |k, _| {
            let _ = k.local_array::<U32>("a", 0, 4);
        },
        "an empty array",
    );
}

fn main() {
    common::harness::main(&[&[
        host!(random_calls_never_panic),
        host!(nesting_thousands_deep),
        host!(a_million_instructions),
        host!(from_ptx_never_panics),
        host!(regressions_found_by_fuzzing),
    ]]);
}
