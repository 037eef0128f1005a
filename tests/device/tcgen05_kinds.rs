//! `tcgen05.mma` kinds other than `kind::f16` (which the GEMM covers) on one 128 × N tile, on
//! sm_100a/sm_103a, against an f64 CPU product: `kind::tf32`, `kind::f8f6f4` (e4m3 × e4m3,
//! e5m2 × e2m1, e2m3 × e3m2, e2m1 × e2m1), `kind::i8` (s8 × u8, u8 × s8) and the block-scaled
//! `kind::mxf8f6f4` with ue8m0 scale vectors (e4m3 × e4m3, e2m1 × e3m2).
//!
//! A and B (K-major, 128 bytes of K a row, 128-byte swizzle) are laid out on the host by
//! `descriptors::TileLayout` over random bytes and copied into shared memory by the threads;
//! one thread issues four multiplies (32 bytes of K each, the descriptors from `k.tcgen05_desc`
//! and `k.tcgen05_desc_k` as the GEMM takes them, the instruction descriptors from
//! `MmaParams`) into a tensor-memory accumulator full of random words that the first multiply
//! (enable-input-d false) must ignore, commits to an mbarrier, and the warps read D back with
//! `tcgen05.ld.32x32b` (M = 128 on one CTA: row `i` is lane `i`, column `j` column `j`, PTX ISA
//! 9.0 9.7.16.10.5.4).
//!
//! FP6 and FP4 operands in shared memory (9.7.16.10.4.4, "Packing format used for matrix A
//! and B by .kind::mxf8f6f4 in Shared Memory", which CUTLASS's sm100 builders apply to
//! `kind::f8f6f4` too): each 16-byte unit along K holds 16 elements packed contiguously, then
//! padding: 16 × 6 bits and 4 bytes, or 16 × 4 bits and 8 bytes, as the `.b6x16_p32` and
//! `.b4x16_p64` tensor copies write them from packed global memory (5.5.1.1.1), element `e`
//! of a unit in bits `w·e .. w·e + w` of it (little-endian). So an element takes one byte of
//! the layout, K = 32 a multiply as for 8-bit types, and the padding is left random: the
//! multiply must not read it.
//!
//! Scales (9.7.16.10.7): `scale_vec::1X` gives one ue8m0 per row of A and per column of B for
//! each 32 elements of K, chosen by the instruction descriptor's scale-factor IDs (a byte of
//! the tensor-memory word). The four multiplies of a tile take IDs 0–3, so byte `s` of a word
//! scales K block `s`. Where the words sit: row `i` of A (column `j` of B) at lane `i % 32`,
//! column `i / 32` from the scale address, in every lane quarter ("Scale factors for A and B
//! matrices need to be duplicated to all 32 lane partitions"); the figures give the rest, so
//! this placement follows CUTLASS's scale-factor atom (32 × 4 rows by 4 K blocks in 512
//! bytes) copied by `tcgen05.cp.32x128b.warpx4`. Scales are 2^-6 .. 2^6.
//!
//! Comparison: `kind::i8` bit for bit; the float kinds within `tol · Σ|a·b|` of the f64 sum
//! (the products are exact, the accumulation is not specified): 1e-5 for tf32 into f32, 2^-9
//! for the 8/6/4-bit kinds (Hopper's FP8 accumulation was measured at 2e-4 of that sum, see
//! `wgmma.rs`); a misplaced element moves a sum by a whole product, far more.

use super::tcgen05_alloc::{allocate, commit_barrier, fill_rows, free, issue_and_wait, read_rows, tcgen05_target, thread_sync, warp_lane};
use super::tcgen05_alloc::{tmem_at, THREADS};
use super::*;
use ptxkit::descriptors::{ElemBytes, F8f6f4Type, FloatAccum, I8Type, Major, MmaIssue, MmaKind, MmaParams, Swizzle, TileLayout};
use ptxkit::regs::TmemAddr;
use ptxkit::types::minifloat::{Format, E2M1, E2M3, E3M2, E4M3, E5M2, UE8M0};
use rand::Rng;

/// Rows of A and D.
const M: u32 = 128;
/// Bytes of K a row (one 128-byte swizzle row): 128 elements of 8/6/4 bits, 32 of tf32.
const ROW_BYTES: u32 = 128;
/// Multiplies per tile, 32 bytes of K each.
const STEPS: u32 = 4;
/// Tensor-memory columns: D from column 0 (up to 256), the scales of A and B.
const SFA_COL: u32 = 256;
const SFB_COL: u32 = 288;

/// An A or B element type.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Tf32,
    E4m3,
    E5m2,
    E3m2,
    E2m3,
    E2m1,
    S8,
    U8,
}

impl Ty {
    /// Bits an element takes in shared memory (the padded 6- and 4-bit ones as packed).
    fn bits(self) -> u32 {
        match self {
            Ty::Tf32 => 32,
            Ty::E3m2 | Ty::E2m3 => 6,
            Ty::E2m1 => 4,
            _ => 8,
        }
    }
    fn elem(self) -> ElemBytes {
        if self == Ty::Tf32 {
            ElemBytes::B4
        } else {
            ElemBytes::B1
        }
    }
    /// Elements of K a row holds.
    fn k(self) -> u32 {
        ROW_BYTES / self.elem().bytes()
    }
    fn format(self) -> Option<Format> {
        match self {
            Ty::E4m3 => Some(E4M3),
            Ty::E5m2 => Some(E5M2),
            Ty::E3m2 => Some(E3M2),
            Ty::E2m3 => Some(E2M3),
            Ty::E2m1 => Some(E2M1),
            _ => None,
        }
    }
    fn f8(self) -> F8f6f4Type {
        match self {
            Ty::E4m3 => F8f6f4Type::E4m3,
            Ty::E5m2 => F8f6f4Type::E5m2,
            Ty::E3m2 => F8f6f4Type::E3m2,
            Ty::E2m3 => F8f6f4Type::E2m3,
            Ty::E2m1 => F8f6f4Type::E2m1,
            other => panic!("{other:?} is not an f8f6f4 type"),
        }
    }
    fn value(self, code: u32) -> f64 {
        match self {
            Ty::Tf32 => f32::from_bits(code) as f64,
            Ty::S8 => code as u8 as i8 as f64,
            Ty::U8 => code as u8 as f64,
            _ => self.format().unwrap().decode(code as u8) as f64,
        }
    }
    /// A random code: tf32 in [-1, 1) (low 13 bits clear), FP8 finite with |x| <= 8, every
    /// FP6/FP4 code, every integer.
    fn random(self, g: &mut StdRng) -> u32 {
        match self {
            Ty::Tf32 => g.gen_range(-1.0f32..1.0).to_bits() & !0x1fff,
            Ty::E4m3 | Ty::E5m2 => loop {
                let c = g.gen::<u8>() as u32;
                let v = self.value(c);
                if v.is_finite() && v.abs() <= 8.0 {
                    break c;
                }
            },
            _ => g.gen::<u32>() & ((1 << self.bits()) - 1),
        }
    }
}

type Issue = fn(&mut Kernel, TmemAddr, Reg<Gdesc>, Reg<Gdesc>, Reg<B32>, bool, TmemAddr, TmemAddr);

/// One tile: the kind (its descriptor parameters and the chain's call), N and the types.
struct Case {
    name: &'static str,
    kind: MmaKind,
    a: Ty,
    b: Ty,
    n: u32,
    /// D is s32 (else f32).
    int: bool,
    scaled: bool,
    issue: Issue,
}

impl Case {
    /// The instruction descriptor of multiply `s` (block-scaled: scale-factor IDs `s`).
    fn idesc(&self, s: u32) -> u32 {
        let kind = match self.kind {
            MmaKind::Mxf8f6f4 { a, b, .. } => MmaKind::Mxf8f6f4 { a, b, sfa_id: s as u8, sfb_id: s as u8 },
            k => k,
        };
        MmaParams::new(kind, MmaIssue::Cta1, M, self.n).encode().unwrap_or_else(|e| panic!("{}: {e}", self.name)).bits()
    }
    fn layout(&self, ty: Ty, rows: u32) -> TileLayout {
        TileLayout::new_tcgen05(ty.elem(), rows, ty.k(), Major::K, Swizzle::B128).unwrap()
    }
    /// Where B starts in shared memory: after A, on a 1024-byte boundary (A is 16 KiB).
    fn b_base(&self) -> u32 {
        M * ROW_BYTES
    }
    fn smem_bytes(&self) -> u32 {
        self.b_base() + self.n * ROW_BYTES
    }
    /// The dynamic shared memory of the launch: the tiles and a spare KiB, so that a 48 KiB
    /// pair of tiles is a request past the default 48 KiB (which the runtime then opts in to)
    /// and the static words (the tensor-memory slot, the mbarrier) fit beside it.
    fn launch_bytes(&self) -> u32 {
        self.smem_bytes() + 1024
    }
    /// Columns of D read back: N rounded up to the 32 columns of a load.
    fn d_cols(&self) -> u32 {
        self.n.div_ceil(32) * 32
    }
}

macro_rules! issue {
    ($chain:literal) => {
        |k: &mut Kernel, d: TmemAddr, a: Reg<Gdesc>, b: Reg<Gdesc>, idesc: Reg<B32>, acc: bool, _sfa: TmemAddr, _sfb: TmemAddr| {
            ptx!(k, $chain, d, a, b, idesc, acc);
        }
    };
    (scaled $chain:literal) => {
        |k: &mut Kernel, d: TmemAddr, a: Reg<Gdesc>, b: Reg<Gdesc>, idesc: Reg<B32>, acc: bool, sfa: TmemAddr, sfb: TmemAddr| {
            ptx!(k, $chain, d, a, b, idesc, sfa, sfb, acc);
        }
    };
}

fn cases() -> Vec<Case> {
    let f8 = |a: Ty, b: Ty| MmaKind::F8f6f4 { a: a.f8(), b: b.f8(), d: FloatAccum::F32 };
    let mx = |a: Ty, b: Ty| MmaKind::Mxf8f6f4 { a: a.f8(), b: b.f8(), sfa_id: 0, sfb_id: 0 };
    let plain = |name, kind, a, b, n, int, issue| Case { name, kind, a, b, n, int, scaled: false, issue };
    vec![
        plain("tf32 x tf32, N 64", MmaKind::Tf32, Ty::Tf32, Ty::Tf32, 64, false, issue!("tcgen05.mma.cta_group::1.kind::tf32")),
        plain(
            "e4m3 x e4m3, N 128",
            f8(Ty::E4m3, Ty::E4m3),
            Ty::E4m3,
            Ty::E4m3,
            128,
            false,
            issue!("tcgen05.mma.cta_group::1.kind::f8f6f4"),
        ),
        plain(
            "e5m2 x e2m1, N 128",
            f8(Ty::E5m2, Ty::E2m1),
            Ty::E5m2,
            Ty::E2m1,
            128,
            false,
            issue!("tcgen05.mma.cta_group::1.kind::f8f6f4"),
        ),
        plain(
            "e2m3 x e3m2, N 256",
            f8(Ty::E2m3, Ty::E3m2),
            Ty::E2m3,
            Ty::E3m2,
            256,
            false,
            issue!("tcgen05.mma.cta_group::1.kind::f8f6f4"),
        ),
        plain("e2m1 x e2m1, N 64", f8(Ty::E2m1, Ty::E2m1), Ty::E2m1, Ty::E2m1, 64, false, issue!("tcgen05.mma.cta_group::1.kind::f8f6f4")),
        plain(
            "s8 x u8, N 256",
            MmaKind::I8 { a: I8Type::S8, b: I8Type::U8, saturate: false },
            Ty::S8,
            Ty::U8,
            256,
            true,
            issue!("tcgen05.mma.cta_group::1.kind::i8"),
        ),
        plain(
            "u8 x s8, N 24",
            MmaKind::I8 { a: I8Type::U8, b: I8Type::S8, saturate: false },
            Ty::U8,
            Ty::S8,
            24,
            true,
            issue!("tcgen05.mma.cta_group::1.kind::i8"),
        ),
        Case {
            name: "mxf8f6f4 e4m3 x e4m3, ue8m0, N 256",
            kind: mx(Ty::E4m3, Ty::E4m3),
            a: Ty::E4m3,
            b: Ty::E4m3,
            n: 256,
            int: false,
            scaled: true,
            issue: issue!(scaled "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale"),
        },
        Case {
            name: "mxf8f6f4 e2m1 x e3m2, ue8m0, N 128",
            kind: mx(Ty::E2m1, Ty::E3m2),
            a: Ty::E2m1,
            b: Ty::E3m2,
            n: 128,
            int: false,
            scaled: true,
            issue: issue!(scaled "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale"),
        },
    ]
}

// ---- the host side: operands, scales, the reference ----------------------------------------

/// Writes `codes` (rows × `ty.k()`, row-major) into `img` at `base` in the tile's layout:
/// tf32 as 4 bytes, 8-bit types a byte each, 6- and 4-bit types 16 to a 16-byte unit, packed
/// from its start (the rest of the unit keeps what `img` held).
fn write_operand(img: &mut [u8], base: u32, layout: &TileLayout, ty: Ty, codes: &[u32], rows: u32) {
    let k = ty.k();
    for r in 0..rows {
        let code = |kk: u32| codes[(r * k + kk) as usize];
        match ty.bits() {
            32 => {
                for kk in 0..k {
                    let at = (base + layout.offset(r, kk)) as usize;
                    img[at..at + 4].copy_from_slice(&code(kk).to_le_bytes());
                }
            }
            8 => {
                for kk in 0..k {
                    img[(base + layout.offset(r, kk)) as usize] = code(kk) as u8;
                }
            }
            w => {
                for unit in 0..k / 16 {
                    let bits = (0..16).fold(0u128, |acc, e| acc | (code(16 * unit + e) as u128) << (w * e));
                    // The unit's 16 bytes are contiguous under the swizzle (it moves 16-byte chunks).
                    let at = (base + layout.offset(r, 16 * unit)) as usize;
                    img[at..at + (2 * w) as usize].copy_from_slice(&bits.to_le_bytes()[..(2 * w) as usize]);
                }
            }
        }
    }
}

/// Reads an operand back out of an image: the inverse of [`write_operand`], for the host test.
fn read_operand(img: &[u8], base: u32, layout: &TileLayout, ty: Ty, rows: u32) -> Vec<u32> {
    let k = ty.k();
    let mut out = vec![0; (rows * k) as usize];
    for r in 0..rows {
        for kk in 0..k {
            let v = match ty.bits() {
                32 => {
                    let at = (base + layout.offset(r, kk)) as usize;
                    u32::from_le_bytes([img[at], img[at + 1], img[at + 2], img[at + 3]])
                }
                8 => img[(base + layout.offset(r, kk)) as usize] as u32,
                w => {
                    let at = (base + layout.offset(r, 16 * (kk / 16))) as usize;
                    let unit = u128::from_le_bytes(img[at..at + 16].try_into().unwrap());
                    (unit >> (w * (kk % 16))) as u32 & ((1 << w) - 1)
                }
            };
            out[(r * k + kk) as usize] = v;
        }
    }
    out
}

/// One tile's inputs.
struct Tile {
    a: Vec<u32>,
    b: Vec<u32>,
    /// ue8m0 codes: `sfa[i * STEPS + s]` scales row `i` of A in K block `s`, `sfb` column `j` of B.
    sfa: Vec<u8>,
    sfb: Vec<u8>,
}

impl Tile {
    fn random(c: &Case, g: &mut StdRng) -> Tile {
        let (ka, kb) = (c.a.k(), c.b.k());
        let scale = |g: &mut StdRng| (127 + g.gen_range(-6i32..=6)) as u8;
        Tile {
            a: (0..M * ka).map(|_| c.a.random(g)).collect(),
            b: (0..c.n * kb).map(|_| c.b.random(g)).collect(),
            sfa: (0..M * STEPS).map(|_| scale(g)).collect(),
            sfb: (0..c.n * STEPS).map(|_| scale(g)).collect(),
        }
    }
    /// The shared-memory image: random bytes, A at 0 and B at `b_base`.
    fn image(&self, c: &Case, g: &mut StdRng) -> Vec<u32> {
        let mut img: Vec<u8> = (0..c.smem_bytes()).map(|_| g.gen()).collect();
        write_operand(&mut img, 0, &c.layout(c.a, M), c.a, &self.a, M);
        write_operand(&mut img, c.b_base(), &c.layout(c.b, c.n), c.b, &self.b, c.n);
        img.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
    }
    /// The scale words each lane stores: for A, `32 × 4` (lane `l`, column `c`: rows
    /// `l + 32c`); for B, `32 × N/32`; byte `s` of a word is K block `s`.
    fn scale_words(sf: &[u8], rows: u32) -> Vec<u32> {
        let cols = rows / 32;
        (0..32 * cols)
            .map(|i| {
                let (lane, c) = (i / cols, i % cols);
                let row = lane + 32 * c;
                (0..STEPS).fold(0u32, |w, s| w | (sf[(row * STEPS + s) as usize] as u32) << (8 * s))
            })
            .collect()
    }
    /// D[i][j] in f64 and Σ|a·b| (scaled), from the codes.
    fn reference(&self, c: &Case, i: u32, j: u32) -> (f64, f64) {
        let k = c.a.k();
        let block = k / STEPS;
        let (mut sum, mut mag) = (0.0, 0.0);
        for kk in 0..k {
            let s = kk / block;
            let scale = if c.scaled {
                UE8M0.decode(self.sfa[(i * STEPS + s) as usize]) as f64 * UE8M0.decode(self.sfb[(j * STEPS + s) as usize]) as f64
            } else {
                1.0
            };
            let p = c.a.value(self.a[(i * k + kk) as usize]) * c.b.value(self.b[(j * k + kk) as usize]) * scale;
            sum += p;
            mag += p.abs();
        }
        (sum, mag)
    }
    /// Compares D (lane-major, `d_cols` words a lane) with the reference.
    fn check(&self, c: &Case, d: &[u32]) -> Result<(), String> {
        let tol = match (c.int, c.a) {
            (true, _) => 0.0,
            (_, Ty::Tf32) => 1e-5,
            _ => 2f64.powi(-9),
        };
        let mut bad = vec![];
        for i in 0..M {
            for j in 0..c.n {
                let w = d[(i * c.d_cols() + j) as usize];
                let got = if c.int { w as i32 as f64 } else { f32::from_bits(w) as f64 };
                let (want, mag) = self.reference(c, i, j);
                if !((got - want).abs() <= tol * mag) {
                    bad.push(format!("D[{i}][{j}]: GPU {got:e}, CPU {want:e} (tolerance {:e})", tol * mag));
                }
            }
        }
        if bad.is_empty() {
            return Ok(());
        }
        let n = bad.len();
        bad.truncate(4);
        Err(format!("tcgen05.mma {}: {n} of {} elements differ; first:\n    {}", c.name, M * c.n, bad.join("\n    ")))
    }
}

// ---- the kernel ----------------------------------------------------------------------------

/// (shared-memory image, its words, accumulator junk, scale words of A, of B, D).
type KindParams = (GlobalPtr<U32>, Reg<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

fn build(m: &mut Module, name: &str, c: &Case) -> KernelRef<KindParams> {
    let (la, lb) = (c.layout(c.a, M), c.layout(c.b, c.n));
    let (b_base, n, scaled, issue, d_cols) = (c.b_base(), c.n, c.scaled, c.issue, c.d_cols());
    let idesc: Vec<u32> = (0..STEPS).map(|s| c.idesc(s)).collect();
    m.kernel(name, move |k, (img, nwords, junk, sfa, sfb, out): KindParams| {
        k.reqntid(THREADS, 1, 1);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let smem = k.dynamic_shared_aligned::<U32>(1024);
        k.for_range(tid, nwords, THREADS, |k, w| {
            let v = k.ld(img.at(w));
            k.st(smem.at(w), v);
        });
        // The multiplies read shared memory through the asynchronous proxy.
        ptx!(k, "fence.proxy.async.shared::cta");
        let bar = commit_barrier(k);
        let (held, base, warp, warp0) = allocate(k, 512);
        // Junk where D goes; with block scaling, each warp's lanes of the scales.
        fill_rows(k, base, warp, junk, 256);
        if scaled {
            let lane0 = warp_lane(k, warp);
            let lane = ptx!(k, "and.b32", tid, 31u32).bitcast::<U32>();
            let ra = ptx!(k, "mul.lo.u32", lane, 4u32);
            let wa: [Reg<B32>; 4] = std::array::from_fn(|j| ptx!(k, "ld.global.b32", sfa.cast::<B32>().at(ra).offset(j as i64)));
            let at = tmem_at(k, base, lane0, SFA_COL);
            ptx!(k, "tcgen05.st.sync.aligned.32x32b.x4.b32", at, wa);
            let rb = ptx!(k, "mul.lo.u32", lane, n / 32);
            let at = tmem_at(k, base, lane0, SFB_COL);
            if n == 256 {
                let wb: [Reg<B32>; 8] = std::array::from_fn(|j| ptx!(k, "ld.global.b32", sfb.cast::<B32>().at(rb).offset(j as i64)));
                ptx!(k, "tcgen05.st.sync.aligned.32x32b.x8.b32", at, wb);
            } else {
                let wb: [Reg<B32>; 4] = std::array::from_fn(|j| ptx!(k, "ld.global.b32", sfb.cast::<B32>().at(rb).offset(j as i64)));
                ptx!(k, "tcgen05.st.sync.aligned.32x32b.x4.b32", at, wb);
            }
            ptx!(k, "tcgen05.wait::st.sync.aligned");
        }
        thread_sync(k);
        issue_and_wait(k, bar, |k| {
            let da = k.tcgen05_desc(&la, smem);
            let db = k.tcgen05_desc(&lb, smem.byte_offset(b_base as i64));
            let d = TmemAddr::from_reg(base.bitcast::<B32>());
            let at = |k: &mut Kernel, col: u32| TmemAddr::from_reg(ptx!(k, "add.u32", base, col).bitcast::<B32>());
            let (sa_addr, sb_addr) = (at(k, SFA_COL), at(k, SFB_COL));
            for s in 0..STEPS {
                let sa = k.tcgen05_desc_k(da, &la, s);
                let sb = k.tcgen05_desc_k(db, &lb, s);
                let id = ptx!(k, "mov.b32", idesc[s as usize]);
                issue(k, d, sa, sb, id, s > 0, sa_addr, sb_addr);
            }
        });
        read_rows(k, base, warp, out, d_cols);
        free(k, &held, base, warp0);
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn tcgen05_mma_kinds_against_the_cpu(gpu: Gpu) {
    let t = tcgen05_target(&gpu);
    let mut g = rng("tcgen05_mma_kinds_against_the_cpu");
    let all = cases();
    let mut m = Module::new(t);
    let krefs: Vec<KernelRef<KindParams>> = all.iter().enumerate().map(|(i, c)| build(&mut m, &format!("kind{i}"), c)).collect();
    let module = load(&gpu, &m);
    let mut failures = vec![];
    for (c, kr) in all.iter().zip(&krefs) {
        // Two tiles of fresh inputs each.
        for _ in 0..2 {
            let tile = Tile::random(c, &mut g);
            let img = tile.image(c, &mut g);
            let junk: Vec<u32> = (0..THREADS * 256).map(|_| g.gen()).collect();
            let up = |v: &[u32]| gpu.upload(v).unwrap();
            let (dimg, djunk) = (up(&img), up(&junk));
            let (sfa, sfb) =
                if c.scaled { (Tile::scale_words(&tile.sfa, M), Tile::scale_words(&tile.sfb, c.n)) } else { (vec![0], vec![0]) };
            let (dsfa, dsfb) = (up(&sfa), up(&sfb));
            let mut out = poisoned::<u32>(&gpu, (THREADS * c.d_cols()) as usize).unwrap();
            module
                .kernel(kr)
                .unwrap()
                .launch(&Launch::new(1u32, THREADS).shared(c.launch_bytes()), (&dimg, img.len() as u32, &djunk, &dsfa, &dsfb, &mut out))
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
            if let Err(e) = tile.check(c, &gpu.download(&out).unwrap()) {
                failures.push(e);
            }
        }
    }
    println!("{} tcgen05.mma kinds on {t}, {} tiles wrong", all.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- host checks ---------------------------------------------------------------------------

/// The operand images read back to their codes for every type (the padded units included),
/// a 6-bit unit's bytes spelled out, the scale words' bytes, and the reference and its check
/// on a made-up D: the reference rounded (junk in the columns past N) passes, the product of
/// an A with two rows exchanged fails.
fn operand_images_and_the_reference() {
    let mut g = rng("operand_images_and_the_reference");
    for c in cases() {
        let tile = Tile::random(&c, &mut g);
        let img = tile.image(&c, &mut g);
        let bytes: Vec<u8> = img.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(read_operand(&bytes, 0, &c.layout(c.a, M), c.a, M), tile.a, "{}: A", c.name);
        assert_eq!(read_operand(&bytes, c.b_base(), &c.layout(c.b, c.n), c.b, c.n), tile.b, "{}: B", c.name);
        if c.n > 128 {
            continue; // the check itself is the same for wider tiles, and slow unoptimised
        }
        // A made-up D: the reference rounded to f32 (or exact), junk past N.
        let mut d: Vec<u32> = (0..M * c.d_cols()).map(|_| g.gen()).collect();
        for i in 0..M {
            for j in 0..c.n {
                let (v, _) = tile.reference(&c, i, j);
                d[(i * c.d_cols() + j) as usize] = if c.int { v as i32 as u32 } else { (v as f32).to_bits() };
            }
        }
        tile.check(&c, &d).unwrap();
        // A with two rows exchanged (a layout that swaps them) fails.
        let k = c.a.k() as usize;
        let mut swapped = Tile { a: tile.a.clone(), b: tile.b.clone(), sfa: tile.sfa.clone(), sfb: tile.sfb.clone() };
        let (r0, r1) = swapped.a.split_at_mut(k);
        r0.swap_with_slice(&mut r1[..k]);
        for j in 0..c.n {
            for i in 0..2 {
                let (v, _) = swapped.reference(&c, i, j);
                d[(i * c.d_cols() + j) as usize] = if c.int { v as i32 as u32 } else { (v as f32).to_bits() };
            }
        }
        assert!(tile.check(&c, &d).is_err(), "{}: rows 0 and 1 of A exchanged went unnoticed", c.name);
    }
    // A 6-bit unit: elements 0..16 = 1..16 pack into 12 bytes, element e at bits 6e.
    let layout = TileLayout::new_tcgen05(ElemBytes::B1, 8, 128, Major::K, Swizzle::B128).unwrap();
    let codes: Vec<u32> = (0..8 * 128).map(|i| (i % 16 + 1) as u32).collect();
    let mut img = vec![0xEEu8; 1024];
    write_operand(&mut img, 0, &layout, Ty::E3m2, &codes, 8);
    let want: u128 = (0..16).fold(0, |acc, e| acc | ((e + 1) as u128) << (6 * e));
    assert_eq!(&img[..12], &want.to_le_bytes()[..12]);
    assert_eq!(&img[12..16], &[0xEE; 4], "padding untouched");
    // The scale words: lane 3's second word of A holds rows 35's blocks in bytes 0..3.
    let sf: Vec<u8> = (0..M * STEPS).map(|i| i as u8).collect();
    let words = Tile::scale_words(&sf, M);
    assert_eq!(words[3 * 4 + 1], u32::from_le_bytes([140, 141, 142, 143]));
}

/// The descriptors the kernels take: the kind's type fields, N and M, the scale IDs.
fn instruction_descriptors_of_the_cases() {
    for c in cases() {
        for s in 0..STEPS {
            let bits = c.idesc(s);
            assert_eq!((bits >> 17) & 0x3F, c.n >> 3, "{}: N", c.name);
            if c.scaled {
                assert_eq!(((bits >> 29) & 3, (bits >> 4) & 3), (s, s), "{}: scale-factor IDs", c.name);
                assert_eq!((bits >> 27) & 3, M >> 7, "{}: M", c.name);
            } else {
                assert_eq!((bits >> 24) & 0x1F, M >> 4, "{}: M", c.name);
            }
        }
    }
    // e5m2 (1) x e2m1 (5) into f32 (1): A at bits 7-9, B at 10-12, D at 4-5.
    let c = &cases()[2];
    assert_eq!((c.idesc(0) >> 7 & 7, c.idesc(0) >> 10 & 7, c.idesc(0) >> 4 & 3), (1, 5, 1));
}

/// Every kernel of the GPU test, assembled by ptxas for sm_100a.
fn tcgen05_kind_kernels_assemble() {
    let mut m = Module::new(Target::SM_100A);
    for (i, c) in cases().iter().enumerate() {
        build(&mut m, &format!("kind{i}"), c);
    }
    let text = common::assemble("tcgen05.mma kinds", &m);
    assert_eq!(text.matches("\ttcgen05.mma.").count(), cases().len() * STEPS as usize);
}

pub const TESTS: &[Test] = &[
    gpu!(tcgen05_mma_kinds_against_the_cpu),
    host!(operand_images_and_the_reference),
    host!(instruction_descriptors_of_the_cases),
    host!(tcgen05_kind_kernels_assemble),
];
