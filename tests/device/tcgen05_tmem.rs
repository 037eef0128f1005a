//! Tensor memory on sm_100a/sm_103a: `tcgen05.st` of random registers, `tcgen05.wait::st`,
//! `tcgen05.ld` back, `tcgen05.wait::ld`, for every data movement shape at `.num` x1, x2, x8,
//! x32 and the largest the register count allows (x128, x64 for 16x128b, x32 for 16x256b),
//! plain and with `.unpack::16b`/`.pack::16b`. `tcgen05_alloc.rs` has the allocation and the
//! kernel pieces every tcgen05 test shares, `tcgen05_red.rs` `ld.red`, `tcgen05_copy.rs` `cp`
//! and `shift`, `tcgen05_kinds.rs` the multiplies.
//!
//! Each kernel first fills the warp's 32 lanes × 512 columns with random words through
//! `32x32b.x32` (whose fragment is the identity: thread `i` is lane `i`, register `r` column
//! `r`), stores one shape's registers over it, reads the whole image back through `32x32b`, and
//! loads the shape's registers back. The host predicts the image from [`cell`], the shape's
//! thread/register → lane/column map: a cell it does not name must keep its background word, so
//! a store that lands elsewhere, or too wide, shows. Warps 1 and 3 address the upper 16 lanes
//! of their quarter with the 16-lane shapes, warps 0 and 2 the lower ones.
//!
//! The maps are the figures of PTX ISA 9.0 section 9.7.16.2.3.1 ("Matrix fragments for shape
//! .32x32b" ... ".16x32bx2", Figures 183–187), written as formulas: the figures are pictures,
//! so the formulas are checked on the host against CUTLASS's `Copy_Traits` of the same
//! instructions (`SM100_TMEM_LOAD_16dp64b1x` ..., whose thread/value → bit layouts encode the
//! same figures; their shapes and strides are quoted below as data) and for coverage. Packing
//! (9.7.16.8.2, Figure 193): `.unpack::16b` splits a register into two 16-bit halves in
//! adjacent columns, the low half in the lower column, in the low 16 bits of each cell (as the
//! 16-bit D elements of 9.7.16.10.4.1); the upper 16 bits of those cells are not compared.
//! `.pack::16b` joins the low halves of two adjacent columns, so a shape's column units double.

use super::tcgen05_alloc::{allocate, fill_rows, free, read_rows, tcgen05_target, tmem_at, warp_lane, COLS, THREADS};
use super::*;
use ptxkit::regs::TmemAddr;
use rand::Rng;

// ---- the data movement shapes --------------------------------------------------------------

/// A `tcgen05.ld`/`st` shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    S32x32b,
    S16x64b,
    S16x128b,
    S16x256b,
    S16x32bx2,
}

impl Shape {
    pub(super) const ALL: [Shape; 5] = [Shape::S32x32b, Shape::S16x64b, Shape::S16x128b, Shape::S16x256b, Shape::S16x32bx2];

    /// Lanes one warp's access covers.
    pub(super) fn lanes(self) -> u32 {
        if self == Shape::S32x32b {
            32
        } else {
            16
        }
    }
    /// 32-bit column units per lane at `.x1` (per half for 16x32bx2).
    fn units(self) -> u32 {
        match self {
            Shape::S32x32b | Shape::S16x32bx2 => 1,
            Shape::S16x64b => 2,
            Shape::S16x128b => 4,
            Shape::S16x256b => 8,
        }
    }
    /// Registers per thread at `.num` = `num` (PTX ISA Table 47).
    pub(super) fn regs(self, num: u32) -> u32 {
        match self {
            Shape::S16x128b => 2 * num,
            Shape::S16x256b => 4 * num,
            _ => num,
        }
    }
}

/// Where register `r` of the thread in `lane` (0..32) goes: (lane offset from the address's
/// lane, 32-bit column unit from the address's column, in the second access of 16x32bx2).
///
/// - 32x32b: thread `i` is lane `i`, register `r` is column `r`.
/// - 16x64b: lane `lane/4 + 8·(lane%2)`, unit `(lane/2)%2 + 2r`: a lane's 64 bits per `.x1`
///   are two threads' registers, lanes 0–7 from even threads and 8–15 from odd ones.
/// - 16x128b: lane `lane/4 + 8·(r%2)`, unit `lane%4 + 4·(r/2)`: four threads share a lane,
///   even registers in lanes 0–7, odd ones in lanes 8–15.
/// - 16x256b: lane `lane/4 + 8·((r/2)%2)`, unit `2·(lane%4) + r%2 + 8·(r/4)`.
/// - 16x32bx2: threads 0–15 are lanes 0–15 at the address, threads 16–31 the same lanes at
///   the address plus the immediate; register `r` is unit `r`.
pub(super) fn cell(shape: Shape, lane: u32, r: u32) -> (u32, u32, bool) {
    match shape {
        Shape::S32x32b => (lane, r, false),
        Shape::S16x64b => (lane / 4 + 8 * (lane % 2), (lane / 2) % 2 + 2 * r, false),
        Shape::S16x128b => (lane / 4 + 8 * (r % 2), lane % 4 + 4 * (r / 2), false),
        Shape::S16x256b => (lane / 4 + 8 * ((r / 2) % 2), 2 * (lane % 4) + r % 2 + 8 * (r / 4), false),
        Shape::S16x32bx2 => (lane % 16, r, lane >= 16),
    }
}

// ---- one store/load pair -------------------------------------------------------------------

type StFn = fn(&mut Kernel, TmemAddr, u32, &[Reg<B32>]);
type LdFn = fn(&mut Kernel, TmemAddr, u32) -> Vec<Reg<B32>>;

/// A shape at one `.num`, plain or 16-bit (un)packing: its store and load.
struct Case {
    shape: Shape,
    num: u32,
    pack: bool,
    st: StFn,
    ld: LdFn,
}

impl Case {
    fn regs(&self) -> u32 {
        self.shape.regs(self.num)
    }
    fn name(&self) -> String {
        format!("{:?}.x{}{}", self.shape, self.num, if self.pack { " (un)pack::16b" } else { "" })
    }
}

/// Rows `shape num registers pack "st chain" "ld chain";`.
macro_rules! cases {
    ($( $shape:ident $num:literal $regs:literal $pack:literal $st:literal $ld:literal; )*) => {
        vec![$( Case {
            shape: Shape::$shape,
            num: $num,
            pack: $pack,
            st: cases!(@st $shape $regs $st),
            ld: cases!(@ld $shape $ld),
        } ),*]
    };
    (@st S16x32bx2 $regs:literal $c:literal) => {
        |k: &mut Kernel, t: TmemAddr, split: u32, v: &[Reg<B32>]| {
            ptx!(k, $c, t, split, <[Reg<B32>; $regs]>::try_from(v).expect("register count"));
        }
    };
    (@st $shape:ident $regs:literal $c:literal) => {
        |k: &mut Kernel, t: TmemAddr, _split: u32, v: &[Reg<B32>]| {
            ptx!(k, $c, t, <[Reg<B32>; $regs]>::try_from(v).expect("register count"));
        }
    };
    (@ld S16x32bx2 $c:literal) => { |k: &mut Kernel, t: TmemAddr, split: u32| ptx!(k, $c, t, split).to_vec() };
    (@ld $shape:ident $c:literal) => { |k: &mut Kernel, t: TmemAddr, _split: u32| ptx!(k, $c, t).to_vec() };
}

fn cases() -> Vec<Case> {
    cases! {
        S32x32b 1 1 false "tcgen05.st.sync.aligned.32x32b.x1.b32" "tcgen05.ld.sync.aligned.32x32b.x1.b32";
        S32x32b 1 1 true "tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32" "tcgen05.ld.sync.aligned.32x32b.x1.pack::16b.b32";
        S32x32b 2 2 false "tcgen05.st.sync.aligned.32x32b.x2.b32" "tcgen05.ld.sync.aligned.32x32b.x2.b32";
        S32x32b 2 2 true "tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32" "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32";
        S32x32b 8 8 false "tcgen05.st.sync.aligned.32x32b.x8.b32" "tcgen05.ld.sync.aligned.32x32b.x8.b32";
        S32x32b 8 8 true "tcgen05.st.sync.aligned.32x32b.x8.unpack::16b.b32" "tcgen05.ld.sync.aligned.32x32b.x8.pack::16b.b32";
        S32x32b 32 32 false "tcgen05.st.sync.aligned.32x32b.x32.b32" "tcgen05.ld.sync.aligned.32x32b.x32.b32";
        S32x32b 32 32 true "tcgen05.st.sync.aligned.32x32b.x32.unpack::16b.b32" "tcgen05.ld.sync.aligned.32x32b.x32.pack::16b.b32";
        S32x32b 128 128 false "tcgen05.st.sync.aligned.32x32b.x128.b32" "tcgen05.ld.sync.aligned.32x32b.x128.b32";
        S32x32b 128 128 true "tcgen05.st.sync.aligned.32x32b.x128.unpack::16b.b32" "tcgen05.ld.sync.aligned.32x32b.x128.pack::16b.b32";
        S16x64b 1 1 false "tcgen05.st.sync.aligned.16x64b.x1.b32" "tcgen05.ld.sync.aligned.16x64b.x1.b32";
        S16x64b 1 1 true "tcgen05.st.sync.aligned.16x64b.x1.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x64b.x1.pack::16b.b32";
        S16x64b 2 2 false "tcgen05.st.sync.aligned.16x64b.x2.b32" "tcgen05.ld.sync.aligned.16x64b.x2.b32";
        S16x64b 2 2 true "tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x64b.x2.pack::16b.b32";
        S16x64b 8 8 false "tcgen05.st.sync.aligned.16x64b.x8.b32" "tcgen05.ld.sync.aligned.16x64b.x8.b32";
        S16x64b 8 8 true "tcgen05.st.sync.aligned.16x64b.x8.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x64b.x8.pack::16b.b32";
        S16x64b 32 32 false "tcgen05.st.sync.aligned.16x64b.x32.b32" "tcgen05.ld.sync.aligned.16x64b.x32.b32";
        S16x64b 32 32 true "tcgen05.st.sync.aligned.16x64b.x32.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x64b.x32.pack::16b.b32";
        S16x64b 128 128 false "tcgen05.st.sync.aligned.16x64b.x128.b32" "tcgen05.ld.sync.aligned.16x64b.x128.b32";
        S16x64b 128 128 true "tcgen05.st.sync.aligned.16x64b.x128.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x64b.x128.pack::16b.b32";
        S16x128b 1 2 false "tcgen05.st.sync.aligned.16x128b.x1.b32" "tcgen05.ld.sync.aligned.16x128b.x1.b32";
        S16x128b 1 2 true "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x128b.x1.pack::16b.b32";
        S16x128b 2 4 false "tcgen05.st.sync.aligned.16x128b.x2.b32" "tcgen05.ld.sync.aligned.16x128b.x2.b32";
        S16x128b 2 4 true "tcgen05.st.sync.aligned.16x128b.x2.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x128b.x2.pack::16b.b32";
        S16x128b 8 16 false "tcgen05.st.sync.aligned.16x128b.x8.b32" "tcgen05.ld.sync.aligned.16x128b.x8.b32";
        S16x128b 8 16 true "tcgen05.st.sync.aligned.16x128b.x8.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x128b.x8.pack::16b.b32";
        S16x128b 32 64 false "tcgen05.st.sync.aligned.16x128b.x32.b32" "tcgen05.ld.sync.aligned.16x128b.x32.b32";
        S16x128b 32 64 true "tcgen05.st.sync.aligned.16x128b.x32.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x128b.x32.pack::16b.b32";
        S16x128b 64 128 false "tcgen05.st.sync.aligned.16x128b.x64.b32" "tcgen05.ld.sync.aligned.16x128b.x64.b32";
        S16x128b 64 128 true "tcgen05.st.sync.aligned.16x128b.x64.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x128b.x64.pack::16b.b32";
        S16x256b 1 4 false "tcgen05.st.sync.aligned.16x256b.x1.b32" "tcgen05.ld.sync.aligned.16x256b.x1.b32";
        S16x256b 1 4 true "tcgen05.st.sync.aligned.16x256b.x1.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x256b.x1.pack::16b.b32";
        S16x256b 2 8 false "tcgen05.st.sync.aligned.16x256b.x2.b32" "tcgen05.ld.sync.aligned.16x256b.x2.b32";
        S16x256b 2 8 true "tcgen05.st.sync.aligned.16x256b.x2.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x256b.x2.pack::16b.b32";
        S16x256b 8 32 false "tcgen05.st.sync.aligned.16x256b.x8.b32" "tcgen05.ld.sync.aligned.16x256b.x8.b32";
        S16x256b 8 32 true "tcgen05.st.sync.aligned.16x256b.x8.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x256b.x8.pack::16b.b32";
        S16x256b 32 128 false "tcgen05.st.sync.aligned.16x256b.x32.b32" "tcgen05.ld.sync.aligned.16x256b.x32.b32";
        S16x256b 32 128 true "tcgen05.st.sync.aligned.16x256b.x32.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x256b.x32.pack::16b.b32";
        S16x32bx2 1 1 false "tcgen05.st.sync.aligned.16x32bx2.x1.b32" "tcgen05.ld.sync.aligned.16x32bx2.x1.b32";
        S16x32bx2 1 1 true "tcgen05.st.sync.aligned.16x32bx2.x1.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x32bx2.x1.pack::16b.b32";
        S16x32bx2 2 2 false "tcgen05.st.sync.aligned.16x32bx2.x2.b32" "tcgen05.ld.sync.aligned.16x32bx2.x2.b32";
        S16x32bx2 2 2 true "tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32";
        S16x32bx2 8 8 false "tcgen05.st.sync.aligned.16x32bx2.x8.b32" "tcgen05.ld.sync.aligned.16x32bx2.x8.b32";
        S16x32bx2 8 8 true "tcgen05.st.sync.aligned.16x32bx2.x8.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x32bx2.x8.pack::16b.b32";
        S16x32bx2 32 32 false "tcgen05.st.sync.aligned.16x32bx2.x32.b32" "tcgen05.ld.sync.aligned.16x32bx2.x32.b32";
        S16x32bx2 32 32 true "tcgen05.st.sync.aligned.16x32bx2.x32.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x32bx2.x32.pack::16b.b32";
        S16x32bx2 128 128 false "tcgen05.st.sync.aligned.16x32bx2.x128.b32" "tcgen05.ld.sync.aligned.16x32bx2.x128.b32";
        S16x32bx2 128 128 true "tcgen05.st.sync.aligned.16x32bx2.x128.unpack::16b.b32" "tcgen05.ld.sync.aligned.16x32bx2.x128.pack::16b.b32";
    }
}

/// Where a case's access sits in the warp's columns.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    /// The column of the address.
    c0: u32,
    /// 16x32bx2's immediate (0 for the other shapes).
    split: u32,
    /// For `.pack::16b`: a second address whose columns hold only background, loaded packed.
    c1: Option<u32>,
}

impl Geometry {
    fn of(c: &Case) -> Geometry {
        let per = if c.pack { 2 } else { 1 };
        // Columns of one access (of each half of 16x32bx2).
        let span = c.shape.units() * c.num * per;
        let (split, width) = if c.shape == Shape::S16x32bx2 {
            // A gap of 8 columns between the halves where it fits.
            let split = if 2 * span + 8 <= 256 { span + 8 } else { span };
            (split, split + span)
        } else {
            (0, span)
        };
        Geometry { c0: if width <= 128 { 128 } else { 0 }, split, c1: (c.pack && width <= 256).then_some(256) }
    }
    /// The column of unit `u` (the lower of the two columns when packed).
    fn column(&self, c: &Case, base: u32, u: u32, second: bool) -> u32 {
        base + if second { self.split } else { 0 } + if c.pack { 2 * u } else { u }
    }
}

/// The TMEM lane where thread `tid`'s access starts: its warp's quarter, and the upper 16
/// lanes of it for warps 1 and 3 with the 16-lane shapes.
pub(super) fn lane_base(shape: Shape, tid: u32) -> u32 {
    let w = tid / 32;
    32 * w + if shape.lanes() == 16 { 16 * (w % 2) } else { 0 }
}

// ---- the store/load kernel and its reference ----------------------------------------------

/// (background, registers to store, image after the store, registers loaded back, packed
/// background loads).
type MoveParams = (GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);

fn build(m: &mut Module, name: &str, c: &Case) -> KernelRef<MoveParams> {
    let geo = Geometry::of(c);
    let (shape, regs, st, ld) = (c.shape, c.regs(), c.st, c.ld);
    m.kernel(name, move |k, (bg, input, image, back, bgpack): MoveParams| {
        k.reqntid(THREADS, 1, 1);
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let (held, base, warp, warp0) = allocate(k, COLS);
        fill_rows(k, base, warp, bg, COLS);
        // The shape's first lane: the warp's quarter, its upper half for odd warps.
        let lane0 = warp_lane(k, warp);
        let lane = if shape.lanes() == 16 {
            let odd = ptx!(k, "and.b32", warp, 1u32).bitcast::<U32>();
            ptx!(k, "mad.lo.u32", odd, 16u32, lane0)
        } else {
            lane0
        };
        let at = tmem_at(k, base, lane, geo.c0);
        let row = ptx!(k, "mul.lo.u32", tid, regs);
        let vals: Vec<Reg<B32>> = (0..regs).map(|r| ptx!(k, "ld.global.b32", input.cast::<B32>().at(row).offset(r as i64))).collect();
        st(k, at, geo.split, &vals);
        ptx!(k, "tcgen05.wait::st.sync.aligned");
        read_rows(k, base, warp, image, COLS);
        let got = ld(k, at, geo.split);
        ptx!(k, "tcgen05.wait::ld.sync.aligned");
        for (r, v) in got.into_iter().enumerate() {
            ptx!(k, "st.global.b32", back.cast::<B32>().at(row).offset(r as i64), v);
        }
        if let Some(c1) = geo.c1 {
            let at1 = tmem_at(k, base, lane, c1);
            let got = ld(k, at1, geo.split);
            ptx!(k, "tcgen05.wait::ld.sync.aligned");
            for (r, v) in got.into_iter().enumerate() {
                ptx!(k, "st.global.b32", bgpack.cast::<B32>().at(row).offset(r as i64), v);
            }
        }
        free(k, &held, base, warp0);
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The image after the store (lane-major, [`COLS`] columns a lane) and, per word, the bits the
/// ISA defines: all of them, or the low 16 of a cell that `.unpack::16b` wrote.
fn expected_image(c: &Case, bg: &[u32], input: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let geo = Geometry::of(c);
    let (mut img, mut mask) = (bg.to_vec(), vec![u32::MAX; bg.len()]);
    let regs = c.regs();
    for tid in 0..THREADS {
        for r in 0..regs {
            let (dl, u, second) = cell(c.shape, tid % 32, r);
            let lane = lane_base(c.shape, tid) + dl;
            let col = geo.column(c, geo.c0, u, second);
            let x = input[(tid * regs + r) as usize];
            let at = (lane * COLS + col) as usize;
            if c.pack {
                img[at] = x & 0xFFFF;
                img[at + 1] = x >> 16;
                mask[at] = 0xFFFF;
                mask[at + 1] = 0xFFFF;
            } else {
                img[at] = x;
            }
        }
    }
    (img, mask)
}

/// What `.pack::16b` loads from the background at `c1`: the low halves of two adjacent columns.
fn expected_packed_background(c: &Case, bg: &[u32], c1: u32) -> Vec<u32> {
    let geo = Geometry::of(c);
    let regs = c.regs();
    (0..THREADS * regs)
        .map(|i| {
            let (tid, r) = (i / regs, i % regs);
            let (dl, u, second) = cell(c.shape, tid % 32, r);
            let lane = lane_base(c.shape, tid) + dl;
            let at = (lane * COLS + geo.column(c, c1, u, second)) as usize;
            (bg[at] & 0xFFFF) | bg[at + 1] << 16
        })
        .collect()
}

pub(super) fn first_difference(
    what: &str,
    got: &[u32],
    want: &[u32],
    mask: impl Fn(usize) -> u32,
    place: impl Fn(usize) -> String,
) -> Option<String> {
    let bad: Vec<usize> = (0..got.len()).filter(|&i| (got[i] ^ want[i]) & mask(i) != 0).collect();
    bad.first().map(|&i| {
        format!("{what}: {} of {} words differ; first {}: GPU {:#010x}, expected {:#010x}", bad.len(), got.len(), place(i), got[i], want[i])
    })
}

fn tcgen05_st_ld_every_shape(gpu: Gpu) {
    let t = tcgen05_target(&gpu);
    let mut g = rng("tcgen05_st_ld_every_shape");
    let all = cases();
    let mut m = Module::new(t);
    let krefs: Vec<KernelRef<MoveParams>> = all.iter().enumerate().map(|(i, c)| build(&mut m, &format!("move{i}"), c)).collect();
    let module = load(&gpu, &m);
    let mut failures = vec![];
    for (c, kr) in all.iter().zip(&krefs) {
        let regs = c.regs() as usize;
        let bg: Vec<u32> = (0..(THREADS * COLS) as usize).map(|_| g.gen()).collect();
        let input: Vec<u32> = (0..THREADS as usize * regs).map(|_| g.gen()).collect();
        let (dbg, din) = (gpu.upload(&bg).unwrap(), gpu.upload(&input).unwrap());
        let mut image = poisoned::<u32>(&gpu, bg.len()).unwrap();
        let mut back = poisoned::<u32>(&gpu, input.len()).unwrap();
        let mut bgpack = poisoned::<u32>(&gpu, input.len()).unwrap();
        module
            .kernel(kr)
            .unwrap()
            .launch(&Launch::new(1u32, THREADS), (&dbg, &din, &mut image, &mut back, &mut bgpack))
            .unwrap_or_else(|e| panic!("{}: {e}", c.name()));
        let (image, back, bgpack) = (gpu.download(&image).unwrap(), gpu.download(&back).unwrap(), gpu.download(&bgpack).unwrap());
        let (want, mask) = expected_image(c, &bg, &input);
        let lane_col = |i: usize| format!("at lane {} column {}", i / COLS as usize, i % COLS as usize);
        let reg_of = |i: usize| format!("thread {} register {}", i / regs, i % regs);
        let name = c.name();
        failures.extend(first_difference(&format!("{name}: tensor memory after the store"), &image, &want, |i| mask[i], lane_col));
        failures.extend(first_difference(&format!("{name}: registers loaded back"), &back, &input, |_| u32::MAX, reg_of));
        if let Some(c1) = Geometry::of(c).c1 {
            let want = expected_packed_background(c, &bg, c1);
            failures.extend(first_difference(&format!("{name}: .pack::16b over plain words"), &bgpack, &want, |_| u32::MAX, reg_of));
        }
    }
    println!("{} store/load cases on {t}, {} failures", all.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- host checks ---------------------------------------------------------------------------

/// A CuTe layout with one flat mode list: `idx` → Σ ((idx / Π earlier shapes) % shape) · stride.
fn cute(shape: &[u32], stride: &[u32], idx: u32) -> u32 {
    let mut rest = idx;
    let mut out = 0;
    for (&s, &d) in shape.iter().zip(stride) {
        out += (rest % s) * d;
        rest /= s;
    }
    out
}

/// [`cell`] against CUTLASS's `Copy_Traits<SM100_TMEM_LOAD_*>` for the same instructions:
/// their `DstLayout` maps (thread, value bit) to a bit of the accessed block, whose row (a
/// TMEM lane) is `row_bits` wide. Quoted as data: (name, shape, num, row bits, thread shape
/// and strides, value shape and strides).
fn layouts_match_cutlass_copy_traits() {
    #[allow(clippy::type_complexity)]
    let traits: &[(&str, Shape, u32, u32, &[u32], &[u32], &[u32], &[u32])] = &[
        ("16dp64b1x", Shape::S16x64b, 1, 64, &[2, 2, 8], &[512, 32, 64], &[32], &[1]),
        ("16dp64b2x", Shape::S16x64b, 2, 128, &[2, 2, 8], &[1024, 32, 128], &[32, 2], &[1, 64]),
        ("16dp128b1x", Shape::S16x128b, 1, 128, &[4, 8], &[32, 128], &[32, 2], &[1, 1024]),
        ("16dp128b2x", Shape::S16x128b, 2, 256, &[4, 8], &[32, 256], &[32, 2, 2], &[1, 2048, 128]),
        ("16dp256b1x", Shape::S16x256b, 1, 256, &[4, 8], &[64, 256], &[64, 2], &[1, 2048]),
        ("16dp256b2x", Shape::S16x256b, 2, 512, &[4, 8], &[64, 512], &[64, 2, 2], &[1, 4096, 256]),
        ("16dp32b1x", Shape::S16x32bx2, 1, 64, &[16, 2], &[64, 32], &[32], &[1]),
        ("16dp32b2x", Shape::S16x32bx2, 2, 128, &[16, 2], &[128, 64], &[64], &[1]),
    ];
    for &(name, shape, num, row_bits, ts, td, vs, vd) in traits {
        for lane in 0..32 {
            for r in 0..shape.regs(num) {
                // Bit 0 of register r is value bit 32r.
                let bit = cute(ts, td, lane) + cute(vs, vd, 32 * r);
                let (dp, unit) = (bit / row_bits, bit % row_bits / 32);
                // CUTLASS puts 16x32bx2's second access beside the first in one row.
                let want = if shape == Shape::S16x32bx2 { (dp, unit % num, unit >= num) } else { (dp, unit, false) };
                assert_eq!(cell(shape, lane, r), want, "{name}: thread {lane} register {r}");
            }
        }
    }
}

/// Every shape at every `.num` the table has: the threads' registers cover the shape's
/// lanes × columns exactly once, within them, and the register counts are the table's.
fn layouts_cover_each_cell_once() {
    for shape in Shape::ALL {
        let nums: &[u32] = match shape {
            Shape::S16x128b => &[1, 2, 4, 8, 16, 32, 64],
            Shape::S16x256b => &[1, 2, 4, 8, 16, 32],
            _ => &[1, 2, 4, 8, 16, 32, 64, 128],
        };
        for &num in nums {
            let (lanes, units, halves) = (shape.lanes(), shape.units() * num, if shape == Shape::S16x32bx2 { 2 } else { 1 });
            let mut seen = vec![0u32; (lanes * units * halves) as usize];
            for lane in 0..32 {
                for r in 0..shape.regs(num) {
                    let (dl, u, second) = cell(shape, lane, r);
                    assert!(dl < lanes && u < units, "{shape:?}.x{num}: thread {lane} register {r} outside: ({dl}, {u})");
                    seen[((second as u32 * lanes + dl) * units + u) as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&n| n == 1), "{shape:?}.x{num}: not every cell exactly once");
            // The table's register vector has the same length.
            let chain = format!(
                "tcgen05.ld.sync.aligned.{}.x{num}.b32",
                match shape {
                    Shape::S32x32b => "32x32b",
                    Shape::S16x64b => "16x64b",
                    Shape::S16x128b => "16x128b",
                    Shape::S16x256b => "16x256b",
                    Shape::S16x32bx2 => "16x32bx2",
                }
            );
            let desc =
                ptxkit::ops::tcgen05::forms().iter().find(|f| f.chain == chain).unwrap_or_else(|| panic!("{chain} not in the table"));
            assert_eq!(desc.dst, ptxkit::ops::DstKind::Vec(ptxkit::core::dtype::DType::B32, shape.regs(num) as u16), "{chain}");
        }
    }
    // The ISA's words for 32x32b: thread i is lane i, register r column r. Thread 6's four
    // 16x256b registers: two adjacent columns, in two lanes 8 apart.
    assert_eq!(cell(Shape::S32x32b, 17, 5), (17, 5, false));
    assert_eq!(
        (0..4).map(|r| cell(Shape::S16x256b, 6, r)).collect::<Vec<_>>(),
        [(1, 4, false), (1, 5, false), (9, 4, false), (9, 5, false)]
    );
}

/// The references of the device tests on made-up GPU output: a correct image passes, a word
/// moved or a packed cell's defined half changed fails, the undefined half does not count.
fn references_catch_a_misplaced_word() {
    let mut g = rng("references_catch_a_misplaced_word");
    for c in cases().iter().filter(|c| [1, 8].contains(&c.num)) {
        let bg: Vec<u32> = (0..(THREADS * COLS) as usize).map(|_| g.gen()).collect();
        let input: Vec<u32> = (0..(THREADS * c.regs()) as usize).map(|_| g.gen()).collect();
        let (want, mask) = expected_image(c, &bg, &input);
        let diff = |got: &[u32]| first_difference("image", got, &want, |i| mask[i], |i| i.to_string());
        assert!(diff(&want).is_none());
        // The undefined upper halves of unpacked cells may hold anything.
        let junk: Vec<u32> = want.iter().zip(&mask).map(|(w, m)| if *m == u32::MAX { *w } else { w | 0xABCD_0000 }).collect();
        assert!(diff(&junk).is_none(), "{}", c.name());
        // The first register of thread 5 stored where its neighbour's went.
        let (dl, u, s) = cell(c.shape, 5, 0);
        let at = ((lane_base(c.shape, 5) + dl) * COLS + Geometry::of(c).column(c, Geometry::of(c).c0, u, s)) as usize;
        let mut moved = want.clone();
        moved[at] ^= 1;
        assert!(diff(&moved).is_some(), "{}: a flipped bit went unnoticed", c.name());
    }
}

/// Every store/load kernel of the GPU test, assembled by ptxas for sm_100a.
fn tcgen05_st_ld_kernels_assemble() {
    let mut m = Module::new(Target::SM_100A);
    for (i, c) in cases().iter().enumerate() {
        build(&mut m, &format!("move{i}"), c);
    }
    let text = common::assemble("tcgen05 st/ld", &m);
    assert_eq!(text.matches("tcgen05.alloc.").count(), cases().len());
    assert_eq!(text.matches("tcgen05.st.sync.aligned.32x32b.x32.b32").count(), cases().len() * 16 + 1);
}

pub const TESTS: &[Test] = &[
    gpu!(tcgen05_st_ld_every_shape),
    host!(layouts_match_cutlass_copy_traits),
    host!(layouts_cover_each_cell_once),
    host!(references_catch_a_misplaced_word),
    host!(tcgen05_st_ld_kernels_assemble),
];
