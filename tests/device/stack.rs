//! The thread's stack (`alloca`, `stacksave`, `stackrestore`: per-thread blocks of varying
//! length written and read back, nested frames, the stack pointer restored) and the
//! `.param::entry` window (`cvta.param::entry` and back, reading a kernel parameter through
//! both addresses), against CPU models.

use super::*;
use ptxkit::builder::ParamBytes;
use ptxkit::runtime::HostBytes;
use rand::Rng;

/// Words each thread writes: the sum over its `alloca` block, the sum over the nested
/// block (2 words), the alignment bits, the two stack-pointer checks, the sum over the
/// `.u32` block (2 words).
const REC: u32 = 8;

type StackP = (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>);

/// Thread t with input x: a block of `1 + t % 13` u32 (16-byte aligned) holding `x * (j + 1)`;
/// inside it a nested frame with a block of 4 u64 (32-byte aligned) holding `x << j`, whose
/// release must leave the outer block intact; then, through the `.u32` forms, a block of
/// `1 + t % 13` u64 (8-byte aligned) holding `x + j`.
fn stack_kernel(target: Target) -> (Module, KernelRef<StackP>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("frames", |k, (xs, out, n): StackP| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let x = k.ld(xs.at(i));
                let r = ptx!(k, "rem.u32", i, 13u32);
                let len = ptx!(k, "add.u32", r, 1u32);
                let put = |k: &mut Kernel, w: u32, v: Reg<U32>| {
                    let at = ptx!(k, "mad.lo.u32", i, REC, w);
                    k.st(out.at(at), v);
                };
                let sp0 = ptx!(k, "stacksave.u64");
                let (sum, inner, align) = k.stack_frame(|k| {
                    let a: LocalPtr<U32> = k.alloca(len, 16);
                    k.for_range(0u32, len, 1, |k, j| {
                        let j1 = ptx!(k, "add.u32", j, 1u32);
                        let v = ptx!(k, "mul.lo.u32", x, j1);
                        k.st(a.at(j), v);
                    });
                    let (inner, b_addr) = k.stack_frame(|k| {
                        let b: LocalPtr<U64> = k.alloca(4u32, 32);
                        let x64 = ptx!(k, "cvt.u64.u32", x);
                        let s = ptx!(k, "mov.u64", 0u64);
                        for j in 0..4 {
                            let v = ptx!(k, "shl.b64", x64, j as u32);
                            k.st(b.offset(j), v.bitcast::<U64>());
                        }
                        for j in (0..4).rev() {
                            let v = k.ld(b.offset(j));
                            let t = ptx!(k, "add.u64", s, v);
                            k.assign(s, t);
                        }
                        (s, b.addr(k))
                    });
                    let sum = ptx!(k, "mov.u32", 0u32);
                    k.for_range(0u32, len, 1, |k, j| {
                        let v = k.ld(a.at(j));
                        let t = ptx!(k, "add.u32", sum, v);
                        k.assign(sum, t);
                    });
                    // The low address bits of both blocks: 0 where the alignment held.
                    let a_addr = a.addr(k);
                    let bits = ptx!(k, "and.b64", a_addr, 15u64);
                    let bbits = ptx!(k, "and.b64", b_addr, 31u64);
                    let both = ptx!(k, "or.b64", bits, bbits);
                    (sum, inner, ptx!(k, "cvt.u32.u64", both.bitcast::<U64>()))
                });
                let sp1 = ptx!(k, "stacksave.u64");
                put(k, 0, sum);
                let [lo, hi] = ptx!(k, "mov.b64" as unpack, inner);
                put(k, 1, lo.bitcast::<U32>());
                put(k, 2, hi.bitcast::<U32>());
                let same = ptx!(k, "setp.eq.u64", sp0, sp1);
                let flag = ptx!(k, "selp.u32", 1u32, 0u32, same);
                put(k, 4, flag);

                // The `.u32` forms by hand: a 32-bit local address, widened for `ld`/`st`.
                let sp32 = ptx!(k, "stacksave.u32");
                let bytes = ptx!(k, "shl.b32", len, 3u32);
                let raw = ptx!(k, "alloca.u32" as aligned, bytes.bitcast::<U32>(), Const::<8>);
                let c = ptx!(k, "cvt.u64.u32", raw);
                let c: LocalPtr<U64> = Ptr::from_reg(c);
                let x64 = ptx!(k, "cvt.u64.u32", x);
                k.for_range(0u32, len, 1, |k, j| {
                    let j64 = ptx!(k, "cvt.u64.u32", j);
                    let v = ptx!(k, "add.u64", x64, j64);
                    k.st(c.at(j), v);
                });
                let s64 = ptx!(k, "mov.u64", 0u64);
                k.for_range(0u32, len, 1, |k, j| {
                    let v = k.ld(c.at(j));
                    let t = ptx!(k, "add.u64", s64, v);
                    k.assign(s64, t);
                });
                let low = ptx!(k, "and.b32", raw, 7u32);
                let all = ptx!(k, "or.b32", align.bitcast::<B32>(), low);
                put(k, 3, all.bitcast::<U32>());
                ptx!(k, "stackrestore.u32", sp32);
                let sp32b = ptx!(k, "stacksave.u32");
                let same32 = ptx!(k, "setp.eq.u32", sp32, sp32b);
                let flag = ptx!(k, "selp.u32", 1u32, 0u32, same32);
                put(k, 5, flag);
                let [lo, hi] = ptx!(k, "mov.b64" as unpack, s64);
                put(k, 6, lo.bitcast::<U32>());
                put(k, 7, hi.bitcast::<U32>());
            });
        })
        .unwrap();
    (m, kr)
}

fn alloca_blocks_per_thread(gpu: Gpu) {
    let mut g = rng("alloca_blocks_per_thread");
    let n = sized(1usize << 14, 1 << 10);
    let xs: Vec<u32> = (0..n).map(|_| g.gen()).collect();
    let (m, kr) = stack_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let dx = gpu.upload(&xs).unwrap();
    let mut out = poisoned::<u32>(&gpu, n * REC as usize).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(n as u32, 128), (&dx, &mut out, n as u32)).unwrap();
    let got = gpu.download(&out).unwrap();
    let mut want = Vec::with_capacity(got.len());
    for (t, &x) in xs.iter().enumerate() {
        let len = 1 + t as u32 % 13;
        let sum = (0..len).fold(0u32, |s, j| s.wrapping_add(x.wrapping_mul(j + 1)));
        let inner = (0..4).fold(0u64, |s, j| s.wrapping_add((x as u64) << j));
        let wide = (0..len as u64).fold(0u64, |s, j| s.wrapping_add(x as u64 + j));
        want.extend([sum, inner as u32, (inner >> 32) as u32, 0, 1, 1, wide as u32, (wide >> 32) as u32]);
    }
    let what = |i: usize| {
        let part = [
            "sum over the u32 block",
            "nested u64 block (low)",
            "nested u64 block (high)",
            "address bits under the alignments",
            "stack pointer restored (u64)",
            "stack pointer restored (u32)",
            "u32-form block (low)",
            "u32-form block (high)",
        ];
        format!("thread {}: {}", i / REC as usize, part[i % REC as usize])
    };
    check("alloca blocks written and read back", what, &got, &want);
}

type ParamP = (ParamBytes<128>, GlobalPtr<U32>);

/// Thread t < 32 reads word t of the parameter through its generic address
/// (`cvta.param::entry.u64`) and through that address converted back
/// (`cvta.to.param::entry.u64`, then `ld.param`), and whether the round trip gave the
/// address it started from.
fn param_window_kernel(target: Target) -> (Module, KernelRef<ParamP>) {
    let mut m = Module::new(target);
    let kr = m
        .kernel("param_window", |k, (bytes, out): ParamP| {
            let t = ptx!(k, "mov.u32", sreg::TID_X);
            let sym = bytes.ptr::<U32>().addr(k);
            let gen = ptx!(k, "cvta.param::entry.u64", sym);
            let v = k.ld(GenericPtr::<U32>::from_reg(gen).at(t));
            k.st(out.at(t), v);
            let back = ptx!(k, "cvta.to.param::entry.u64", gen);
            let w = ptx!(k, "ld.param.u32", ParamPtr::<U32>::from_reg(back).at(t));
            let at = ptx!(k, "add.u32", t, 32u32);
            k.st(out.at(at), w);
            let same = ptx!(k, "setp.eq.u64", back, sym);
            let at = ptx!(k, "add.u32", t, 64u32);
            let flag = ptx!(k, "selp.u32", 1u32, 0u32, same);
            k.st(out.at(at), flag);
        })
        .unwrap();
    (m, kr)
}

fn param_entry_cvta_round_trip(gpu: Gpu) {
    let mut g = rng("param_entry_cvta_round_trip");
    let (m, kr) = param_window_kernel(target(&gpu));
    let module = load(&gpu, &m);
    let mut host = HostBytes([0u8; 128]);
    g.fill(&mut host.0[..]);
    let mut out = poisoned::<u32>(&gpu, 96).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::new(1, 32), (&host, &mut out)).unwrap();
    let words: Vec<u32> = host.0.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let want: Vec<u32> = words.iter().chain(&words).copied().chain([1; 32]).collect();
    let what = |i: usize| {
        ["generic load after cvta.param::entry", "ld.param after cvta.to.param::entry", "the round trip's address"][i / 32].to_string()
            + &format!(", word {}", i % 32)
    };
    check("a kernel parameter through the .param::entry window", what, &gpu.download(&out).unwrap(), &want);
}

/// Without a GPU: both kernels assemble for sm_90.
fn stack_kernels_assemble() {
    let t = Target::SM_90;
    for (name, text) in [("frames", stack_kernel(t).0.to_ptx()), ("param window", param_window_kernel(t).0.to_ptx())] {
        let text = text.unwrap_or_else(|e| panic!("{name}: {e}"));
        let px = ptxas(name);
        ptxkit::ptxas::check_clean(&px, &text, t, ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    }
}

pub const TESTS: &[Test] = &[host!(stack_kernels_assemble), gpu!(alloca_blocks_per_thread), gpu!(param_entry_cvta_round_trip)];
