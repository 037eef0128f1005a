//! Bit operations against the PTX ISA's semantics, written out on the CPU.

use super::*;
use rand::Rng;

fn bfe_u32(a: u32, b: u32, c: u32) -> u32 {
    let (pos, len) = (b & 0xff, c & 0xff);
    (0..32).filter(|&i| i < len && pos + i <= 31 && a >> (pos + i) & 1 == 1).fold(0, |d, i| d | 1 << i)
}
fn bfe_s32(a: i32, b: u32, c: u32) -> i32 {
    let (pos, len) = (b & 0xff, c & 0xff);
    let sbit = if len == 0 { 0 } else { (a as u32 >> (pos + len - 1).min(31)) & 1 };
    (0..32).fold(0u32, |d, i| {
        let bit = if i < len && pos + i <= 31 { (a as u32 >> (pos + i)) & 1 } else { sbit };
        d | bit << i
    }) as i32
}
fn bfi(a: u32, b: u32, c: u32, d: u32) -> u32 {
    let (pos, len) = (c & 0xff, d & 0xff);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= 31 {
        f = (f & !(1 << (pos + i))) | ((a >> i) & 1) << (pos + i);
        i += 1;
    }
    f
}
fn bfind_s32(a: i32) -> u32 {
    let a = if a < 0 { !a } else { a } as u32;
    if a == 0 {
        u32::MAX
    } else {
        31 - a.leading_zeros()
    }
}
fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (b as u64) << 32 | a as u64;
    (0..4).fold(0, |d, k| {
        let sel = (c >> (4 * k)) & 0xf;
        let byte = (bytes >> (8 * (sel & 7))) as u8;
        let out = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        d | (out as u32) << (8 * k)
    })
}
fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    (0..32).fold(0, |d, i| {
        let idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d | (((lut >> idx) & 1) as u32) << i
    })
}
fn shf(a: u32, b: u32, n: u32, left: bool, clamp: bool) -> u32 {
    let n = if clamp { n.min(32) } else { n & 31 };
    let cat = (b as u64) << 32 | a as u64;
    if left {
        ((cat << n) >> 32) as u32
    } else {
        (cat >> n) as u32
    }
}
fn bmsk(a: u32, b: u32, clamp: bool) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0 = u32::MAX << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1 = if sum >= 32 { 0 } else { u32::MAX << sum };
    let (mut pos_over, mut width_over) = (false, false);
    if clamp {
        if a >= 32 {
            pos_over = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_over = true;
        }
    }
    if sum >= 32 || pos_over || width_over {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = u32::MAX;
    }
    mask0 & !mask1
}

fn bit_operations(gpu: Gpu) {
    let mut g = rng("bit_operations");
    let a: Vec<u32> = (0..N).map(|_| g.gen()).collect();
    let b: Vec<u32> = (0..N).map(|_| g.gen()).collect();
    let sh: Vec<u32> = (0..N).map(|_| g.gen_range(0..40)).collect();
    let small: Vec<u32> = (0..N).map(|_| g.gen_range(0..48)).collect();
    let inp = |i: usize| (a[i], b[i], sh[i], small[i]);
    let v = |f: &dyn Fn(usize) -> u32| (0..N).map(f).collect::<Vec<u32>>();
    let bt = |x: Reg<B32>| x.bitcast::<U32>();
    check("and", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| bt(ptx!(k, "and.b32", x, y))), &v(&|i| a[i] & b[i]));
    check("or", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| bt(ptx!(k, "or.b32", x, y))), &v(&|i| a[i] | b[i]));
    check("xor", inp, &map2::<U32, U32, U32>(&gpu, &a, &b, |k, x, y| bt(ptx!(k, "xor.b32", x, y))), &v(&|i| a[i] ^ b[i]));
    check("not", inp, &map1::<U32, U32>(&gpu, &a, |k, x| bt(ptx!(k, "not.b32", x))), &v(&|i| !a[i]));
    check("cnot", inp, &map1::<U32, U32>(&gpu, &sh, |k, x| bt(ptx!(k, "cnot.b32", x))), &v(&|i| (sh[i] == 0) as u32));
    check(
        "shl",
        inp,
        &map2::<U32, U32, U32>(&gpu, &a, &sh, |k, x, y| bt(ptx!(k, "shl.b32", x, y))),
        &v(&|i| a[i].checked_shl(sh[i]).unwrap_or(0)),
    );
    check(
        "shr.u32",
        inp,
        &map2::<U32, U32, U32>(&gpu, &a, &sh, |k, x, y| ptx!(k, "shr.u32", x, y)),
        &v(&|i| a[i].checked_shr(sh[i]).unwrap_or(0)),
    );
    let sa: Vec<i32> = a.iter().map(|x| *x as i32).collect();
    let want: Vec<i32> = (0..N).map(|i| sa[i] >> sh[i].min(31)).collect();
    check("shr.s32", inp, &map2::<S32, U32, S32>(&gpu, &sa, &sh, |k, x, y| ptx!(k, "shr.s32", x, y)), &want);
    for (left, clamp) in [(true, false), (true, true), (false, false), (false, true)] {
        let got = map3::<U32, U32>(&gpu, &a, &b, &sh, |k, x, y, z| {
            let (x, y, z) = (x.bitcast::<B32>(), y.bitcast::<B32>(), z);
            bt(match (left, clamp) {
                (true, false) => ptx!(k, "shf.l.wrap.b32", x, y, z),
                (true, true) => ptx!(k, "shf.l.clamp.b32", x, y, z),
                (false, false) => ptx!(k, "shf.r.wrap.b32", x, y, z),
                (false, true) => ptx!(k, "shf.r.clamp.b32", x, y, z),
            })
        });
        check(&format!("shf left={left} clamp={clamp}"), inp, &got, &v(&|i| shf(a[i], b[i], sh[i], left, clamp)));
    }
    let lut: u8 = g.gen();
    let c: Vec<u32> = (0..N).map(|_| g.gen()).collect();
    check(
        &format!("lop3 {lut:#x}"),
        inp,
        &map3::<U32, U32>(&gpu, &a, &b, &c, |k, x, y, z| bt(ptx!(k, "lop3.b32", x, y, z, lut))),
        &v(&|i| lop3(a[i], b[i], c[i], lut)),
    );
    check(
        "prmt",
        inp,
        &map3::<U32, U32>(&gpu, &a, &b, &c, |k, x, y, z| bt(ptx!(k, "prmt.b32", x, y, z))),
        &v(&|i| prmt(a[i], b[i], c[i] & 0xffff)),
    );
    check(
        "bfe.u32",
        inp,
        &map3::<U32, U32>(&gpu, &a, &small, &sh, |k, x, y, z| ptx!(k, "bfe.u32", x, y, z)),
        &v(&|i| bfe_u32(a[i], small[i], sh[i])),
    );
    let got = map3::<U32, U32>(&gpu, &a, &small, &sh, |k, x, y, z| ptx!(k, "bfe.s32", x.bitcast::<S32>(), y, z).bitcast());
    check("bfe.s32", inp, &got, &v(&|i| bfe_s32(sa[i], small[i], sh[i]) as u32));
    let d: Vec<u32> = (0..N).map(|_| g.gen_range(0..40)).collect();
    let mut m = Module::new(target(&gpu));
    let kr = m
        .kernel("bfi", |k, (x, y, z, w, out): (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>)| {
            let i = k.global_thread_index_x();
            let (p, q, r, s) = (k.ld(x.at(i)), k.ld(y.at(i)), k.ld(z.at(i)), k.ld(w.at(i)));
            let f = ptx!(k, "bfi.b32", p, q, r, s);
            k.st(out.cast::<B32>().at(i), f);
        })
        .unwrap();
    let module = load(&gpu, &m);
    let bufs: Vec<_> = [&a, &b, &small, &d].iter().map(|v| gpu.upload(v).unwrap()).collect();
    let mut out = poisoned::<u32>(&gpu, N).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(N as u32, 256), (&bufs[0], &bufs[1], &bufs[2], &bufs[3], &mut out)).unwrap();
    check("bfi.b32", inp, &gpu.download(&out).unwrap(), &v(&|i| bfi(a[i], b[i], small[i], d[i])));
    check("brev", inp, &map1::<U32, U32>(&gpu, &a, |k, x| bt(ptx!(k, "brev.b32", x))), &v(&|i| a[i].reverse_bits()));
    let sparse: Vec<u32> = (0..N).map(|i| a[i] >> (i % 33).min(31) >> ((i % 33) / 32)).collect();
    check("popc", inp, &map1::<U32, U32>(&gpu, &sparse, |k, x| ptx!(k, "popc.b32", x)), &v(&|i| sparse[i].count_ones()));
    check("clz", inp, &map1::<U32, U32>(&gpu, &sparse, |k, x| ptx!(k, "clz.b32", x)), &v(&|i| sparse[i].leading_zeros()));
    check(
        "bfind.u32",
        inp,
        &map1::<U32, U32>(&gpu, &sparse, |k, x| ptx!(k, "bfind.u32", x)),
        &v(&|i| if sparse[i] == 0 { u32::MAX } else { 31 - sparse[i].leading_zeros() }),
    );
    let ss: Vec<i32> = sparse.iter().enumerate().map(|(i, x)| if i % 2 == 0 { *x as i32 } else { !(*x as i32) }).collect();
    check("bfind.s32", inp, &map1::<S32, U32>(&gpu, &ss, |k, x| ptx!(k, "bfind.s32", x)), &v(&|i| bfind_s32(ss[i])));
    check(
        "bfind.shiftamt.u32",
        inp,
        &map1::<U32, U32>(&gpu, &sparse, |k, x| ptx!(k, "bfind.shiftamt.u32", x)),
        &v(&|i| if sparse[i] == 0 { u32::MAX } else { sparse[i].leading_zeros() }),
    );
    check(
        "bmsk.clamp",
        inp,
        &map2::<U32, U32, U32>(&gpu, &small, &sh, |k, x, y| bt(ptx!(k, "bmsk.clamp.b32", x, y))),
        &v(&|i| bmsk(small[i], sh[i], true)),
    );
    check(
        "bmsk.wrap",
        inp,
        &map2::<U32, U32, U32>(&gpu, &small, &sh, |k, x, y| bt(ptx!(k, "bmsk.wrap.b32", x, y))),
        &v(&|i| bmsk(small[i], sh[i], false)),
    );
}

pub const TESTS: &[Test] = &[gpu!(bit_operations)];
