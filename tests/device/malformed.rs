//! Module loading on malformed PTX: truncated, mutated and foreign text, interior NULs,
//! a kernel name the module lacks. Every load ends in `Ok` or in an error carrying the
//! driver's call and code (and its JIT log where it wrote one), never a panic; and the
//! context still runs a kernel correctly afterwards.

use super::*;
use rand::Rng;

type P = (GlobalPtr<U32>, Reg<U32>);

fn good(target: Target) -> (Module, KernelRef<P>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("fill", |k, (out, n): P| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let v = ptx!(k, "mul.lo.u32", i, 3u32);
                k.st(out.at(i), v);
            });
        })
        .unwrap();
    (m, kr)
}

fn malformed_ptx_is_refused_cleanly(gpu: Gpu) {
    let mut g = rng("malformed_ptx_is_refused_cleanly");
    let (m, kr) = good(target(&gpu));
    let text = m.to_ptx().unwrap();
    let cases = sized(300, 60);
    let (mut ok, mut refused) = (0, 0);
    for i in 0..cases {
        let mut t: Vec<u8> = text.clone().into_bytes();
        match i % 6 {
            0 => t.truncate(g.gen_range(0..t.len())),
            1 => {
                for _ in 0..g.gen_range(1..6) {
                    let at = g.gen_range(0..t.len());
                    t[at] = g.gen_range(0x20..0x7f);
                }
            }
            2 => {
                let at = g.gen_range(0..t.len());
                t.insert(at, 0);
            }
            3 => t = (0..g.gen_range(0..2000)).map(|_| g.gen_range(0x09..0x7f)).collect(),
            4 => {
                let at = g.gen_range(0..t.len());
                let end = g.gen_range(at..t.len());
                t.drain(at..end);
            }
            _ => t.splice(0..0, b".version 99.9\n".iter().copied()).for_each(drop),
        }
        let t = String::from_utf8(t).expect("ASCII mutations");
        match gpu.load(&t) {
            Ok(module) => {
                ok += 1;
                // A surviving module may or may not still have the kernel; asking is clean.
                let _ = module.kernel(&kr);
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    println!("malformed_ptx_is_refused_cleanly: {cases} malformed modules: {ok} loaded, {refused} refused");
    assert!(refused > cases / 3, "most mutations break the module");
    // A kernel name the module lacks is an error, not a panic.
    let module = load(&gpu, &m);
    let mut other = Module::new(target(&gpu));
    let missing = other.kernel("not_in_the_module", |_, (_, _): P| {}).unwrap();
    assert!(module.kernel(&missing).is_err());
    // The context is intact: the good kernel runs and is right.
    let n = 1000u32;
    let mut out = poisoned::<u32>(&gpu, n as usize).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(n, 128), (&mut out, n)).unwrap();
    let want: Vec<u32> = (0..n).map(|i| i * 3).collect();
    check("fill after malformed loads", |i| i, &gpu.download(&out).unwrap(), &want);
}

pub const TESTS: &[Test] = &[gpu!(malformed_ptx_is_refused_cleanly)];
