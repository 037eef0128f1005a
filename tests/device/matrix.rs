//! ldmatrix, stmatrix and movmatrix on the GPU: 8x8 b16 matrices whose rows sit at random
//! places in shared memory (every lane names its own row's address), loaded to fragments,
//! stored from fragments, and transposed in registers, against a CPU model of the fragment
//! layout (lane l holds row l/4, columns 2(l%4) and 2(l%4)+1, the even column in the low
//! half; `.trans` holds the transposed matrix the same way).

use super::*;
use rand::seq::SliceRandom;
use rand::Rng;

type P = (GlobalPtr<U16>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

/// Element (row, col) of matrix `j` when lane `8j + row` names tile row `rows[8j + row]`.
fn elem(tile: &[u16], rows: &[u32], j: usize, row: usize, col: usize) -> u16 {
    tile[rows[8 * j + row] as usize * 8 + col]
}

/// The fragment register `j` of lane `l` for matrices `m(j, row, col)`.
fn frag(m: impl Fn(usize, usize, usize) -> u16, j: usize, l: usize, trans: bool) -> u32 {
    let (r, c) = (l / 4, 2 * (l % 4));
    let (lo, hi) = if trans { (m(j, c, r), m(j, c + 1, r)) } else { (m(j, r, c), m(j, r, c + 1)) };
    lo as u32 | (hi as u32) << 16
}

/// One warp: copy the 32 tile rows into shared memory, then `body` with the tile, the row
/// address of this lane and the lane.
fn run(
    gpu: &Gpu,
    name: &str,
    tile: &[u16],
    rows: &[u32],
    regs_in: &[u32],
    body: impl FnOnce(&mut Kernel, SharedPtr<B16>, Reg<U32>, GlobalPtr<U32>, GlobalPtr<U32>),
) -> (Vec<u32>, Vec<u16>) {
    let mut m = Module::new(target(gpu));
    let kr = m
        .kernel(name, |k, (input, rowidx, regs, out): P| {
            let lane = ptx!(k, "mov.u32", sreg::LANEID);
            let sm = k.shared_array::<B16>("tile", 256, 16);
            let first = ptx!(k, "mul.wide.u32", lane, 8u32);
            let v = k.vload::<8, _>(input.at(first), ptxkit::intrinsics::vector::Align::Aligned);
            let words: [Reg<B32>; 4] =
                std::array::from_fn(|i| ptx!(k, "mov.b32" as pack, [v[2 * i].bitcast::<B16>(), v[2 * i + 1].bitcast::<B16>()]));
            let off = ptx!(k, "mul.lo.u32", lane, 8u32);
            ptx!(k, "st.shared.v4.b32", sm.cast::<B32>().at(ptx!(k, "shr.u32", off, 1u32)), words);
            ptx!(k, "bar.warp.sync", 0xffff_ffffu32);
            let r = k.ld(rowidx.at(lane));
            let row = ptx!(k, "mul.lo.u32", r, 8u32);
            body(k, sm, row, regs, out);
            ptx!(k, "bar.warp.sync", 0xffff_ffffu32);
            // The tile back, so stores into it can be read.
            let back: [Reg<B32>; 4] = ptx!(k, "ld.shared.v4.b32", sm.cast::<B32>().at(ptx!(k, "shr.u32", off, 1u32)));
            ptx!(k, "st.global.v4.b32", out.cast::<B32>().offset(128).at(ptx!(k, "mul.lo.u32", lane, 4u32)), back);
        })
        .unwrap();
    let module = load(gpu, &m);
    let kern = module.kernel(&kr).unwrap();
    let (din, drows, dregs) = (gpu.upload(tile).unwrap(), gpu.upload(rows).unwrap(), gpu.upload(regs_in).unwrap());
    let mut out = poisoned::<u32>(gpu, 128 + 128).unwrap();
    kern.launch(&Launch::new(1, 32), (&din, &drows, &dregs, &mut out)).unwrap();
    let all = gpu.download(&out).unwrap();
    let back: Vec<u16> = all[128..].iter().flat_map(|w| [*w as u16, (*w >> 16) as u16]).collect();
    (all[..128].to_vec(), back)
}

fn ldmatrix_stmatrix_movmatrix_layouts(gpu: Gpu) {
    let mut g = rng("ldmatrix_stmatrix_movmatrix_layouts");
    let mut cases = 0;
    for trans in [false, true] {
        for n in [1usize, 2, 4] {
            let tile: Vec<u16> = (0..256).map(|_| g.gen()).collect();
            let mut rows: Vec<u32> = (0..32).collect();
            rows.shuffle(&mut g);
            let regs_in: Vec<u32> = (0..128).map(|_| g.gen()).collect();
            let name = format!("m_{n}_{trans}");
            // ldmatrix: lane l's register j is fragment j of lane l.
            let (got, _) = run(&gpu, &name, &tile, &rows, &regs_in, |k, sm, row, _regs, out| {
                let lane = ptx!(k, "mov.u32", sreg::LANEID);
                let at = sm.at(row);
                let base = ptx!(k, "mul.lo.u32", lane, 4u32);
                macro_rules! ld {
                    ($chain:literal, $n:literal) => {{
                        let f: [Reg<B32>; $n] = ptx!(k, $chain, at);
                        for (j, r) in f.iter().enumerate() {
                            ptx!(k, "st.global.b32", out.cast::<B32>().at(base).offset(j as i64), *r);
                        }
                    }};
                }
                match (n, trans) {
                    (1, false) => ld!("ldmatrix.sync.aligned.m8n8.x1.shared.b16", 1),
                    (2, false) => ld!("ldmatrix.sync.aligned.m8n8.x2.shared.b16", 2),
                    (4, false) => ld!("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4),
                    (1, true) => ld!("ldmatrix.sync.aligned.m8n8.x1.trans.shared::cta.b16", 1),
                    (2, true) => ld!("ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16", 2),
                    _ => ld!("ldmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16", 4),
                }
            });
            for l in 0..32 {
                for j in 0..n {
                    let want = frag(|j, r, c| elem(&tile, &rows, j, r, c), j, l, trans);
                    assert_eq!(got[4 * l + j], want, "ldmatrix x{n} trans={trans}: lane {l} register {j}");
                }
            }
            // stmatrix: the inverse; the tile read back holds the matrices.
            let (_, back) = run(&gpu, &format!("s_{n}_{trans}"), &tile, &rows, &regs_in, |k, sm, row, regs, _out| {
                let lane = ptx!(k, "mov.u32", sreg::LANEID);
                let at = sm.at(row);
                let base = ptx!(k, "mul.lo.u32", lane, 4u32);
                macro_rules! st {
                    ($chain:literal, $n:literal) => {{
                        let f: [Reg<B32>; $n] =
                            std::array::from_fn(|j| ptx!(k, "ld.global.b32", regs.cast::<B32>().at(base).offset(j as i64)));
                        ptx!(k, $chain, at, f);
                    }};
                }
                match (n, trans) {
                    (1, false) => st!("stmatrix.sync.aligned.m8n8.x1.shared.b16", 1),
                    (2, false) => st!("stmatrix.sync.aligned.m8n8.x2.shared.b16", 2),
                    (4, false) => st!("stmatrix.sync.aligned.m8n8.x4.shared.b16", 4),
                    (1, true) => st!("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", 1),
                    (2, true) => st!("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", 2),
                    _ => st!("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 4),
                }
            });
            // Expected tile: rows of matrices 0..n replaced, the rest as loaded.
            let mut want = tile.clone();
            for j in 0..n {
                for r in 0..8 {
                    for c in 0..8 {
                        // The value at (r, c) of matrix j, from the fragment registers (the
                        // transposed matrix's layout under `.trans`).
                        let (fr, fc) = if trans { (c, r) } else { (r, c) };
                        let lane = fr * 4 + fc / 2;
                        let w = regs_in[4 * lane + j];
                        let v = if fc % 2 == 0 { w as u16 } else { (w >> 16) as u16 };
                        want[rows[8 * j + r] as usize * 8 + c] = v;
                    }
                }
            }
            assert_eq!(back, want, "stmatrix x{n} trans={trans}");
            cases += 2;
        }
    }
    // movmatrix: register 0 of each lane as a row-major fragment, transposed.
    let tile: Vec<u16> = (0..256).map(|_| g.gen()).collect();
    let rows: Vec<u32> = (0..32).collect();
    let regs_in: Vec<u32> = (0..128).map(|_| g.gen()).collect();
    let (got, _) = run(&gpu, "mov", &tile, &rows, &regs_in, |k, _sm, _row, regs, out| {
        let lane = ptx!(k, "mov.u32", sreg::LANEID);
        let base = ptx!(k, "mul.lo.u32", lane, 4u32);
        let a = ptx!(k, "ld.global.b32", regs.cast::<B32>().at(base));
        let d = ptx!(k, "movmatrix.sync.aligned.m8n8.trans.b16", a);
        ptx!(k, "st.global.b32", out.cast::<B32>().at(base), d);
    });
    let a = |_: usize, r: usize, c: usize| {
        let w = regs_in[4 * (r * 4 + c / 2)];
        if c % 2 == 0 {
            w as u16
        } else {
            (w >> 16) as u16
        }
    };
    for l in 0..32 {
        assert_eq!(got[4 * l], frag(a, 0, l, true), "movmatrix: lane {l}");
    }
    println!("{} ldmatrix/stmatrix cases and movmatrix matched the fragment model", cases);
}

pub const TESTS: &[Test] = &[gpu!(ldmatrix_stmatrix_movmatrix_layouts)];
