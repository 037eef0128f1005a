//! `tcgen05.cp` (shared memory to tensor memory) and `tcgen05.shift` on sm_100a/sm_103a,
//! against a CPU model, over a background of random words that every cell the instruction
//! does not write must keep.
//!
//! `tcgen05.cp` reads its source through a shared-memory descriptor (PTX ISA 9.0, 9.7.16.9.2)
//! laid out as the K-major canonical layout of 9.7.16.3.3: row `r` of the source is TMEM lane
//! `r` and its 32-bit words (8 of a 256-bit row, 4 of a 128-bit one) are consecutive columns
//! from the address. Unswizzled, a row's 16-byte chunks are LBO apart and 8-row groups SBO
//! apart (`((8,m),(T,2k)):((1T,SBO),(1,LBO))`); the 32-byte swizzle case uses
//! `descriptors::TileLayout`. Shapes: 128x256b (unswizzled and 32-byte swizzled), 128x128b,
//! and the multicast ones: 32x128b.warpx4 (every row to its lane in each of the four lane
//! quarters), 64x128b.warpx2::02_13 (warps 0 and 2 take rows 0–31, warps 1 and 3 rows 32–63:
//! row `r` to lanes `r` and `r + 64`) and ::01_23 (warps 0 and 1 take rows 0–31, 2 and 3 rows
//! 32–63: row `r` to lanes `64·(r/32) + r%32` and 32 lanes on). The decompressing forms
//! (`.b8x16.b6x16_p32`, `.b4x16_p64`) and 4x256b are not run: their placement is given by
//! figures only.
//!
//! `tcgen05.shift.down` (9.7.16.9.3) moves the 32-byte elements of 31 rows of a 32-lane
//! matrix down one lane ("all the rows, except the last"): lane `l + 1` takes lane `l`'s 8
//! columns at the address, for `l` from the address's lane to 30 past it. The first lane's new
//! contents are not defined there and are not compared.

use super::tcgen05_alloc::{allocate, commit_barrier, fill_rows, free, issue_and_wait, read_rows, tcgen05_target, thread_sync, THREADS};
use super::*;
use ptxkit::descriptors::{ElemBytes, LboMode, Major, Swizzle, Tcgen05SmemDesc, Tcgen05Swizzle, TileLayout};
use ptxkit::regs::TmemAddr;
use rand::Rng;

/// Columns each copy kernel reads back (its background): the copies land at [`CP_COL`].
const COLS: u32 = 64;
const CP_COL: u32 = 16;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Cp {
    /// 128 rows of 32 bytes, in a layout with this swizzle.
    S128x256b(Swizzle),
    S128x128b,
    S32x128bWarpx4,
    S64x128bWarpx2_02_13,
    S64x128bWarpx2_01_23,
}

impl Cp {
    const ALL: [Cp; 6] = [
        Cp::S128x256b(Swizzle::None),
        Cp::S128x256b(Swizzle::B32),
        Cp::S128x128b,
        Cp::S32x128bWarpx4,
        Cp::S64x128bWarpx2_02_13,
        Cp::S64x128bWarpx2_01_23,
    ];

    fn rows(self) -> u32 {
        match self {
            Cp::S128x256b(_) | Cp::S128x128b => 128,
            Cp::S32x128bWarpx4 => 32,
            Cp::S64x128bWarpx2_02_13 | Cp::S64x128bWarpx2_01_23 => 64,
        }
    }
    fn row_bytes(self) -> u32 {
        match self {
            Cp::S128x256b(_) => 32,
            _ => 16,
        }
    }
    /// The TMEM lanes source row `r` goes to.
    fn lanes(self, r: u32) -> Vec<u32> {
        match self {
            Cp::S128x256b(_) | Cp::S128x128b => vec![r],
            Cp::S32x128bWarpx4 => (0..4).map(|q| 32 * q + r).collect(),
            Cp::S64x128bWarpx2_02_13 => vec![r, r + 64],
            Cp::S64x128bWarpx2_01_23 => vec![64 * (r / 32) + r % 32, 64 * (r / 32) + r % 32 + 32],
        }
    }
    /// Byte offset of byte `b` of row `r` in the source: unswizzled K-major canonical layout
    /// (SBO 128 between 8-row groups, LBO `rows·16` between a row's 16-byte chunks), or the
    /// 32-byte swizzled tile of `TileLayout`.
    fn offset(self, r: u32, b: u32) -> u32 {
        match self {
            Cp::S128x256b(Swizzle::B32) => self.layout().expect("a swizzled tile").offset(r, b),
            _ => canonical_offset(self.rows(), r, b),
        }
    }
    fn layout(self) -> Option<TileLayout> {
        match self {
            Cp::S128x256b(s) if s != Swizzle::None => Some(TileLayout::new_tcgen05(ElemBytes::B1, 128, 32, Major::K, s).unwrap()),
            _ => None,
        }
    }
}

/// The unswizzled K-major canonical layout of `rows` rows: byte `b` of row `r`.
fn canonical_offset(rows: u32, r: u32, b: u32) -> u32 {
    (r / 8) * 128 + (b / 16) * (rows * 16) + (r % 8) * 16 + b % 16
}

/// `desc | (address of smem & 0x3FFFF) >> 4`: the descriptor of a source at `smem`.
fn desc_at(k: &mut Kernel, smem: SharedPtr<U32>, bits: u64) -> Reg<Gdesc> {
    let addr = smem.addr(k);
    let window = ptx!(k, "and.b32", addr, 0x3_FFFFu32);
    let field = ptx!(k, "shr.u32", window, 4u32);
    let wide = ptx!(k, "cvt.u64.u32", field);
    ptx!(k, "or.b64", wide, bits).bitcast()
}

/// (background, source image, its words, image after the copy).
type CpParams = (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>, GlobalPtr<U32>);

fn build_cp(m: &mut Module, name: &str, cp: Cp) -> KernelRef<CpParams> {
    m.kernel(name, move |k, (bg, img, nwords, out): CpParams| {
        k.reqntid(THREADS, 1, 1);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let smem = k.dynamic_shared_aligned::<U32>(1024);
        k.for_range(tid, nwords, THREADS, |k, w| {
            let v = k.ld(img.at(w));
            k.st(smem.at(w), v);
        });
        // The copy reads shared memory through the asynchronous proxy.
        ptx!(k, "fence.proxy.async.shared::cta");
        let bar = commit_barrier(k);
        let (held, base, warp, warp0) = allocate(k, 512);
        fill_rows(k, base, warp, bg, COLS);
        thread_sync(k);
        issue_and_wait(k, bar, |k| {
            let desc = match cp.layout() {
                Some(l) => k.tcgen05_desc(&l, smem),
                None => {
                    let rows = cp.rows();
                    let bits = Tcgen05SmemDesc::new(0, rows * 16, 128, 0, LboMode::Relative, Tcgen05Swizzle::None).unwrap().bits();
                    desc_at(k, smem, bits)
                }
            };
            let at = TmemAddr::from_reg(ptx!(k, "add.u32", base, CP_COL).bitcast::<B32>());
            match cp {
                Cp::S128x256b(_) => ptx!(k, "tcgen05.cp.cta_group::1.128x256b", at, desc),
                Cp::S128x128b => ptx!(k, "tcgen05.cp.cta_group::1.128x128b", at, desc),
                Cp::S32x128bWarpx4 => ptx!(k, "tcgen05.cp.cta_group::1.32x128b.warpx4", at, desc),
                Cp::S64x128bWarpx2_02_13 => ptx!(k, "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13", at, desc),
                Cp::S64x128bWarpx2_01_23 => ptx!(k, "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23", at, desc),
            }
        });
        read_rows(k, base, warp, out, COLS);
        free(k, &held, base, warp0);
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The source rows (row-major bytes) as the shared-memory image (words) of `cp`'s layout.
fn source_image(cp: Cp, rows: &[u8]) -> Vec<u32> {
    let rb = cp.row_bytes();
    let len = (cp.rows() * rb).div_ceil(4) as usize;
    let mut img = vec![0u8; 4 * len];
    for r in 0..cp.rows() {
        for b in 0..rb {
            img[cp.offset(r, b) as usize] = rows[(r * rb + b) as usize];
        }
    }
    img.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The lanes × [`COLS`] image after the copy.
fn expected_cp(cp: Cp, bg: &[u32], rows: &[u8]) -> Vec<u32> {
    let mut out = bg.to_vec();
    let rb = cp.row_bytes();
    for r in 0..cp.rows() {
        for lane in cp.lanes(r) {
            for j in 0..rb / 4 {
                let at = (r * rb + 4 * j) as usize;
                out[(lane * COLS + CP_COL + j) as usize] = u32::from_le_bytes([rows[at], rows[at + 1], rows[at + 2], rows[at + 3]]);
            }
        }
    }
    out
}

fn tcgen05_cp_from_shared_memory(gpu: Gpu) {
    let t = tcgen05_target(&gpu);
    let mut g = rng("tcgen05_cp_from_shared_memory");
    let mut m = Module::new(t);
    let krefs: Vec<KernelRef<CpParams>> = Cp::ALL.iter().enumerate().map(|(i, &cp)| build_cp(&mut m, &format!("cp{i}"), cp)).collect();
    let module = load(&gpu, &m);
    let mut failures = vec![];
    for (&cp, kr) in Cp::ALL.iter().zip(&krefs) {
        let bg: Vec<u32> = (0..THREADS * COLS).map(|_| g.gen()).collect();
        let rows: Vec<u8> = (0..cp.rows() * cp.row_bytes()).map(|_| g.gen()).collect();
        let img = source_image(cp, &rows);
        let (dbg, dimg) = (gpu.upload(&bg).unwrap(), gpu.upload(&img).unwrap());
        let mut out = poisoned::<u32>(&gpu, bg.len()).unwrap();
        module
            .kernel(kr)
            .unwrap()
            .launch(&Launch::new(1u32, THREADS).shared(4 * img.len() as u32), (&dbg, &dimg, img.len() as u32, &mut out))
            .unwrap_or_else(|e| panic!("{cp:?}: {e}"));
        let got = gpu.download(&out).unwrap();
        let want = expected_cp(cp, &bg, &rows);
        let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
        if let Some(&i) = bad.first() {
            failures.push(format!(
                "tcgen05.cp {cp:?}: {} of {} words differ; first at lane {} column {}: GPU {:#010x}, expected {:#010x}",
                bad.len(),
                got.len(),
                i / COLS as usize,
                i % COLS as usize,
                got[i],
                want[i]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- tcgen05.shift ---------------------------------------------------------------------------

/// (background, image after the shift); the lane quarter and column are the kernel's.
type ShiftParams = (GlobalPtr<U32>, GlobalPtr<U32>);

fn build_shift(m: &mut Module, name: &str, quarter: u32, col: u32) -> KernelRef<ShiftParams> {
    m.kernel(name, move |k, (bg, out): ShiftParams| {
        k.reqntid(THREADS, 1, 1);
        let bar = commit_barrier(k);
        let (held, base, warp, warp0) = allocate(k, 512);
        fill_rows(k, base, warp, bg, COLS);
        thread_sync(k);
        issue_and_wait(k, bar, |k| {
            let at = TmemAddr::from_reg(ptx!(k, "add.u32", base, (32 * quarter) << 16 | col).bitcast::<B32>());
            ptx!(k, "tcgen05.shift.cta_group::1.down", at);
        });
        read_rows(k, base, warp, out, COLS);
        free(k, &held, base, warp0);
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The image after shifting 8 columns from `col` down one lane in lanes `32·quarter ..`, and
/// whether each word is defined (the quarter's first lane there is not).
fn expected_shift(bg: &[u32], quarter: u32, col: u32) -> (Vec<u32>, Vec<bool>) {
    let mut out = bg.to_vec();
    let mut defined = vec![true; bg.len()];
    let at = |lane: u32, c: u32| (lane * COLS + c) as usize;
    for c in col..col + 8 {
        for l in (1..32).rev() {
            let lane = 32 * quarter + l;
            out[at(lane, c)] = bg[at(lane - 1, c)];
        }
        defined[at(32 * quarter, c)] = false;
    }
    (out, defined)
}

fn tcgen05_shift_down_one_lane(gpu: Gpu) {
    let t = tcgen05_target(&gpu);
    let mut g = rng("tcgen05_shift_down_one_lane");
    // Every lane quarter, at a column drawn from 0, 8, ..., 48.
    let places: Vec<(u32, u32)> = (0..4).map(|q| (q, 8 * g.gen_range(0..7u32))).collect();
    let mut m = Module::new(t);
    let krefs: Vec<KernelRef<ShiftParams>> = places.iter().map(|&(q, c)| build_shift(&mut m, &format!("shift_q{q}_c{c}"), q, c)).collect();
    let module = load(&gpu, &m);
    for (&(q, c), kr) in places.iter().zip(&krefs) {
        let bg: Vec<u32> = (0..THREADS * COLS).map(|_| g.gen()).collect();
        let dbg = gpu.upload(&bg).unwrap();
        let mut out = poisoned::<u32>(&gpu, bg.len()).unwrap();
        module.kernel(kr).unwrap().launch(&Launch::new(1u32, THREADS), (&dbg, &mut out)).unwrap();
        let got = gpu.download(&out).unwrap();
        let (want, defined) = expected_shift(&bg, q, c);
        let bad: Vec<usize> = (0..got.len()).filter(|&i| defined[i] && got[i] != want[i]).collect();
        if let Some(&i) = bad.first() {
            panic!(
                "tcgen05.shift at lane {} column {c}: {} words differ; first at lane {} column {}: GPU {:#010x}, expected {:#010x}",
                32 * q,
                bad.len(),
                i / COLS as usize,
                i % COLS as usize,
                got[i],
                want[i]
            );
        }
    }
}

// ---- host checks ---------------------------------------------------------------------------

/// The unswizzled canonical layout of the copies is `TileLayout`'s for a K-major tile of
/// 32-byte rows (LBO and SBO too), and every layout places each source byte once.
fn copy_layouts_match_tile_layout() {
    let t = TileLayout::new_tcgen05(ElemBytes::B1, 128, 32, Major::K, Swizzle::None).unwrap();
    assert_eq!((t.lbo(), t.sbo()), (128 * 16, 128));
    for r in 0..128 {
        for b in 0..32 {
            assert_eq!(canonical_offset(128, r, b), t.offset(r, b), "row {r} byte {b}");
        }
    }
    for cp in Cp::ALL {
        let mut seen = vec![false; (cp.rows() * cp.row_bytes()) as usize];
        for r in 0..cp.rows() {
            for b in 0..cp.row_bytes() {
                let o = cp.offset(r, b) as usize;
                assert!(o < seen.len() && !seen[o], "{cp:?}: row {r} byte {b} at {o}");
                seen[o] = true;
            }
        }
        // Every destination lane once.
        let mut lanes: Vec<u32> = (0..cp.rows()).flat_map(|r| cp.lanes(r)).collect();
        lanes.sort();
        let n = lanes.len();
        lanes.dedup();
        assert_eq!(lanes.len(), n, "{cp:?}: a lane written twice");
        assert!(lanes.iter().all(|&l| l < 128));
    }
    // The model of the shift moves 31 rows and leaves other quarters alone.
    let bg: Vec<u32> = (0..THREADS * COLS).collect();
    let (out, defined) = expected_shift(&bg, 2, 8);
    assert_eq!(out[(65 * COLS + 8) as usize], bg[(64 * COLS + 8) as usize]);
    assert_eq!(out[(95 * COLS + 15) as usize], bg[(94 * COLS + 15) as usize]);
    assert_eq!(out[(96 * COLS + 8) as usize], bg[(96 * COLS + 8) as usize]);
    assert_eq!(out[(65 * COLS + 16) as usize], bg[(65 * COLS + 16) as usize]);
    assert_eq!(defined.iter().filter(|d| !**d).count(), 8);
}

/// The copy and shift kernels, assembled by ptxas for sm_100a.
fn tcgen05_copy_kernels_assemble() {
    let mut m = Module::new(Target::SM_100A);
    for (i, cp) in Cp::ALL.iter().enumerate() {
        build_cp(&mut m, &format!("cp{i}"), *cp);
    }
    build_shift(&mut m, "shift", 3, 48);
    let text = common::assemble("tcgen05 cp/shift", &m);
    assert_eq!(text.matches("tcgen05.cp.").count(), Cp::ALL.len());
    assert_eq!(text.matches("tcgen05.shift.").count(), 1);
}

pub const TESTS: &[Test] = &[
    gpu!(tcgen05_cp_from_shared_memory),
    gpu!(tcgen05_shift_down_one_lane),
    host!(copy_layouts_match_tile_layout),
    host!(tcgen05_copy_kernels_assemble),
];
