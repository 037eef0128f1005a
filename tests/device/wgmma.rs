//! wgmma on the GPU against a CPU GEMM: every dtype family at N = 8, 64, 128, 256, bf16 at
//! every N, A and B from shared-memory descriptors (SS) or A from registers (RS), K-major
//! and MN-major (the transposes f16/bf16 allow), every swizzle mode, several k-steps
//! accumulated in place, random ±1 scales, and an accumulator full of junk that the first
//! k-step (scale-d false) must ignore. The tiles get into shared memory by ordinary stores
//! of an image laid out on the host by `descriptors::TileLayout`; the kernel takes their
//! descriptors with `DescriptorOps::gmma_desc`.

use super::*;
use ptxkit::descriptors::{AtomOrder, ElemBytes, Major, Swizzle, TileLayout};
use ptxkit::ops::Acc;
use rand::Rng;

/// Element types of A and B.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Bf16,
    F16,
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
    /// Single bits, stored eight to a byte: a unit is a byte.
    B1,
}

impl Ty {
    /// Bytes per storage unit.
    fn unit(self) -> u32 {
        match self {
            Ty::Bf16 | Ty::F16 => 2,
            Ty::Tf32 => 4,
            _ => 1,
        }
    }
    fn elem(self) -> ElemBytes {
        match self.unit() {
            2 => ElemBytes::B2,
            4 => ElemBytes::B4,
            _ => ElemBytes::B1,
        }
    }
    /// A random unit: values in [-1, 1] for the floats, any code for the integers.
    fn random(self, g: &mut StdRng) -> u32 {
        let x: f32 = g.gen_range(-1.0..1.0);
        match self {
            Ty::Bf16 => half::bf16::from_f32(x).to_bits() as u32,
            Ty::F16 => half::f16::from_f32(x).to_bits() as u32,
            Ty::Tf32 => x.to_bits() & !0x1fff,
            // Codes of magnitude at most 1 (finite, so no NaN or infinity either).
            Ty::E4m3 | Ty::E5m2 => loop {
                let c = g.gen::<u8>() as u32;
                if self.value(c).abs() <= 1.0 {
                    break c;
                }
            },
            Ty::S8 | Ty::U8 | Ty::B1 => g.gen::<u8>() as u32,
        }
    }
    fn value(self, c: u32) -> f64 {
        match self {
            Ty::Bf16 => half::bf16::from_bits(c as u16).to_f64(),
            Ty::F16 => half::f16::from_bits(c as u16).to_f64(),
            Ty::Tf32 => f32::from_bits(c) as f64,
            Ty::E4m3 => minifloat(c, 4, 3, 7),
            Ty::E5m2 => minifloat(c, 5, 2, 15),
            Ty::S8 => c as u8 as i8 as f64,
            Ty::U8 => c as u8 as f64,
            Ty::B1 => unreachable!("single bits are summed as popcounts"),
        }
    }
}

/// An 8-bit float: sign, `e` exponent bits with `bias`, `m` mantissa bits (finite codes).
fn minifloat(c: u32, e: u32, m: u32, bias: i32) -> f64 {
    let s = if c >> 7 & 1 == 1 { -1.0 } else { 1.0 };
    let ex = (c >> m & ((1 << e) - 1)) as i32;
    let man = (c & ((1 << m) - 1)) as f64;
    if ex == 0 {
        s * man / (1 << m) as f64 * 2f64.powi(1 - bias)
    } else {
        s * (1.0 + man / (1 << m) as f64) * 2f64.powi(ex - bias)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum AccTy {
    F32,
    F16,
    S32,
}

type Ss = Box<dyn Fn(&mut Kernel, &[Reg<B32>], Reg<Gdesc>, Reg<Gdesc>, bool, i32, i32, u32, u32)>;
type Rs = Box<dyn Fn(&mut Kernel, &[Reg<B32>], [Reg<B32>; 4], Reg<Gdesc>, bool, i32, i32, u32)>;

/// One wgmma form (both its SS and RS variants).
struct Form {
    chain: &'static str,
    a: Ty,
    b: Ty,
    acc: AccTy,
    n: u32,
    /// The form takes the transpose immediates (f16/bf16).
    trans: bool,
    ss: Ss,
    rs: Rs,
}

/// Rows `(operands, A, B, accumulator, N, "chain")`; `operands` is `tr` (scale and transpose
/// immediates), `sc` (scale only) or `no` (neither).
macro_rules! forms {
    ($( $ops:ident $a:ident $b:ident $acc:ident $n:literal $chain:literal; )*) => {
        vec![$( forms!(@one $ops $a $b $acc $n $chain) ),*]
    };
    (@one $ops:ident $a:ident $b:ident $acc:ident $n:literal $chain:literal) => {
        Form {
            chain: $chain,
            a: Ty::$a,
            b: Ty::$b,
            acc: AccTy::$acc,
            n: $n,
            trans: forms!(@trans $ops),
            ss: Box::new(|k: &mut Kernel, acc: &[Reg<B32>], da: Reg<Gdesc>, db: Reg<Gdesc>, sd: bool, sa: i32, sb: i32, ta: u32, tb: u32| {
                let acc = forms!(@acc $acc $n acc);
                let _ = (sa, sb, ta, tb);
                forms!(@ss $ops k $chain acc da db sd sa sb ta tb);
            }),
            rs: Box::new(|k: &mut Kernel, acc: &[Reg<B32>], fa: [Reg<B32>; 4], db: Reg<Gdesc>, sd: bool, sa: i32, sb: i32, tb: u32| {
                let acc = forms!(@acc $acc $n acc);
                let _ = (sa, sb, tb);
                forms!(@rs $ops k $chain acc fa db sd sa sb tb);
            }),
        }
    };
    (@trans tr) => { true };
    (@trans $o:ident) => { false };
    (@acc F32 $n:literal $acc:ident) => { Acc::from(<[Reg<B32>; $n / 2]>::try_from($acc).expect("accumulator length").map(|r| r.bitcast::<F32>())) };
    (@acc S32 $n:literal $acc:ident) => { Acc::from(<[Reg<B32>; $n / 2]>::try_from($acc).expect("accumulator length").map(|r| r.bitcast::<S32>())) };
    (@acc F16 $n:literal $acc:ident) => { Acc::from(<[Reg<B32>; $n / 4]>::try_from($acc).expect("accumulator length").map(|r| r.bitcast::<F16x2>())) };
    (@ss tr $k:ident $c:literal $acc:ident $a:ident $b:ident $sd:ident $sa:ident $sb:ident $ta:ident $tb:ident) => { ptx!($k, $c => $acc, $a, $b, $sd, $sa, $sb, $ta, $tb) };
    (@ss sc $k:ident $c:literal $acc:ident $a:ident $b:ident $sd:ident $sa:ident $sb:ident $ta:ident $tb:ident) => { ptx!($k, $c => $acc, $a, $b, $sd, $sa, $sb) };
    (@ss no $k:ident $c:literal $acc:ident $a:ident $b:ident $sd:ident $sa:ident $sb:ident $ta:ident $tb:ident) => { ptx!($k, $c => $acc, $a, $b, $sd) };
    (@rs tr $k:ident $c:literal $acc:ident $a:ident $b:ident $sd:ident $sa:ident $sb:ident $tb:ident) => { ptx!($k, $c as rs => $acc, $a, $b, $sd, $sa, $sb, $tb) };
    (@rs sc $k:ident $c:literal $acc:ident $a:ident $b:ident $sd:ident $sa:ident $sb:ident $tb:ident) => { ptx!($k, $c as rs => $acc, $a, $b, $sd, $sa, $sb) };
    (@rs no $k:ident $c:literal $acc:ident $a:ident $b:ident $sd:ident $sa:ident $sb:ident $tb:ident) => { ptx!($k, $c as rs => $acc, $a, $b, $sd) };
}

/// bf16 at every N.
fn bf16_every_n() -> Vec<Form> {
    forms! {
        tr Bf16 Bf16 F32 8 "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 16 "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 24 "wgmma.mma_async.sync.aligned.m64n24k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 32 "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 40 "wgmma.mma_async.sync.aligned.m64n40k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 48 "wgmma.mma_async.sync.aligned.m64n48k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 56 "wgmma.mma_async.sync.aligned.m64n56k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 64 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 72 "wgmma.mma_async.sync.aligned.m64n72k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 80 "wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 88 "wgmma.mma_async.sync.aligned.m64n88k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 96 "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 104 "wgmma.mma_async.sync.aligned.m64n104k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 112 "wgmma.mma_async.sync.aligned.m64n112k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 120 "wgmma.mma_async.sync.aligned.m64n120k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 128 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 136 "wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 144 "wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 152 "wgmma.mma_async.sync.aligned.m64n152k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 160 "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 168 "wgmma.mma_async.sync.aligned.m64n168k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 176 "wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 184 "wgmma.mma_async.sync.aligned.m64n184k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 192 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 200 "wgmma.mma_async.sync.aligned.m64n200k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 208 "wgmma.mma_async.sync.aligned.m64n208k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 216 "wgmma.mma_async.sync.aligned.m64n216k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 224 "wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 232 "wgmma.mma_async.sync.aligned.m64n232k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 240 "wgmma.mma_async.sync.aligned.m64n240k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 248 "wgmma.mma_async.sync.aligned.m64n248k16.f32.bf16.bf16";
        tr Bf16 Bf16 F32 256 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16";
    }
}

/// Every other family at N = 8, 64, 128, 256.
fn families() -> Vec<Form> {
    forms! {
        tr F16 F16 F32 8 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16";
        tr F16 F16 F32 64 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16";
        tr F16 F16 F32 128 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16";
        tr F16 F16 F32 256 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16";
        tr F16 F16 F16 8 "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16";
        tr F16 F16 F16 64 "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16";
        tr F16 F16 F16 128 "wgmma.mma_async.sync.aligned.m64n128k16.f16.f16.f16";
        tr F16 F16 F16 256 "wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16";
        sc Tf32 Tf32 F32 8 "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32";
        sc Tf32 Tf32 F32 64 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32";
        sc Tf32 Tf32 F32 128 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32";
        sc Tf32 Tf32 F32 256 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32";
        sc E4m3 E4m3 F32 8 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3";
        sc E4m3 E5m2 F32 64 "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2";
        sc E5m2 E4m3 F32 128 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3";
        sc E5m2 E5m2 F32 256 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2";
        sc E4m3 E4m3 F32 256 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3";
        sc E5m2 E5m2 F32 8 "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2";
        sc E4m3 E5m2 F16 8 "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2";
        sc E5m2 E4m3 F16 64 "wgmma.mma_async.sync.aligned.m64n64k32.f16.e5m2.e4m3";
        sc E4m3 E4m3 F16 128 "wgmma.mma_async.sync.aligned.m64n128k32.f16.e4m3.e4m3";
        sc E5m2 E5m2 F16 256 "wgmma.mma_async.sync.aligned.m64n256k32.f16.e5m2.e5m2";
        no S8 S8 S32 8 "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8";
        no S8 U8 S32 64 "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.u8";
        no U8 S8 S32 128 "wgmma.mma_async.sync.aligned.m64n128k32.s32.u8.s8";
        no U8 U8 S32 256 "wgmma.mma_async.sync.aligned.m64n256k32.s32.u8.u8";
        no S8 S8 S32 256 "wgmma.mma_async.sync.aligned.m64n256k32.satfinite.s32.s8.s8";
        no U8 U8 S32 8 "wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.u8.u8";
        no S8 U8 S32 128 "wgmma.mma_async.sync.aligned.m64n128k32.satfinite.s32.s8.u8";
        no U8 S8 S32 64 "wgmma.mma_async.sync.aligned.m64n64k32.satfinite.s32.u8.s8";
        no B1 B1 S32 8 "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc";
        no B1 B1 S32 64 "wgmma.mma_async.sync.aligned.m64n64k256.s32.b1.b1.and.popc";
        no B1 B1 S32 128 "wgmma.mma_async.sync.aligned.m64n128k256.s32.b1.b1.and.popc";
        no B1 B1 S32 256 "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc";
    }
}

/// How one run lays A and B out and feeds them.
#[derive(Clone, Copy, Debug)]
struct Setup {
    /// A from registers.
    rs: bool,
    a_major: Major,
    b_major: Major,
    swizzle: Swizzle,
    /// wgmma instructions accumulated in place.
    ksteps: u32,
    /// How the atoms of both tiles follow each other.
    order: AtomOrder,
}

/// A matrix of `rows` × `k` units (K-major as data), placed in shared memory by tiles.
struct Placed {
    layout: TileLayout,
    /// Units of K per tile and tiles along K.
    tile_k: u32,
    tiles: u32,
}

impl Placed {
    fn new(ty: Ty, rows: u32, k: u32, major: Major, swizzle: Swizzle, order: AtomOrder) -> Result<Placed, String> {
        // A K-major swizzled tile is one swizzle row of K; otherwise one tile holds all of K.
        let tile_k = if major == Major::K && swizzle != Swizzle::None { swizzle.bytes() / ty.unit() } else { k };
        let layout = TileLayout::new(ty.elem(), rows, tile_k, major, swizzle).map_err(|e| e.to_string())?.with_order(order);
        if k % tile_k != 0 {
            return Err(format!("{k} units of K do not fill whole {tile_k}-unit tiles"));
        }
        Ok(Placed { layout, tile_k, tiles: k / tile_k })
    }
    fn bytes(&self) -> u32 {
        self.tiles * self.layout.bytes()
    }
    /// Writes unit (row, k) of `data` (rows × k) into the image at `base`.
    fn write(&self, img: &mut [u8], base: u32, ty: Ty, data: &[u32], k: u32) {
        for (i, v) in data.iter().enumerate() {
            let (row, kk) = (i as u32 / k, i as u32 % k);
            let (t, col) = (kk / self.tile_k, kk % self.tile_k);
            let at = (base + t * self.layout.bytes() + self.layout.offset(row, col)) as usize;
            img[at..at + ty.unit() as usize].copy_from_slice(&v.to_le_bytes()[..ty.unit() as usize]);
        }
    }
    /// The descriptor of K-slice `s` (a register), for the placement at `base`.
    fn desc(&self, k: &mut Kernel, smem: SharedPtr<U32>, base: u32, s: u32) -> Reg<Gdesc> {
        let per = self.layout.k_steps();
        let t = s / per;
        let d = k.gmma_desc(&self.layout, smem.byte_offset((base + t * self.layout.bytes()) as i64));
        k.gmma_desc_k(d, &self.layout, s % per)
    }
}

/// Register `r` of the RS A fragment of K-slice `s` for thread `tid`: the layout of the
/// m16 A fragments of mma, one warp per 16 rows.
fn a_fragment(a: &[u32], k: u32, ty: Ty, s: u32, tid: u32, r: u32) -> u32 {
    let (w, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let row = 16 * w + g + 8 * (r % 2);
    let unit = |row: u32, col: u32| a[(row * k + col) as usize];
    match ty.unit() {
        2 => {
            let c = s * 16 + 2 * t + 8 * (r / 2);
            unit(row, c) | unit(row, c + 1) << 16
        }
        4 => unit(row, s * 8 + t + 4 * (r / 2)),
        _ => {
            let c = s * 32 + 4 * t + 16 * (r / 2);
            (0..4).map(|i| unit(row, c + i) << (8 * i)).fold(0, |x, y| x | y)
        }
    }
}

/// (row, column, half) of accumulator register `j` of thread `tid`: half is the f16 in an
/// f16x2 register, 0 otherwise.
fn d_coords(acc: AccTy, tid: u32, j: u32) -> Vec<(u32, u32)> {
    let (w, lane) = (tid / 32, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    match acc {
        AccTy::F16 => {
            let (i, h) = (j / 2, j % 2);
            let row = 16 * w + g + 8 * h;
            vec![(row, 8 * i + 2 * t), (row, 8 * i + 2 * t + 1)]
        }
        _ => {
            let (i, q) = (j / 4, j % 4);
            vec![(16 * w + g + 8 * (q / 2), 8 * i + 2 * t + q % 2)]
        }
    }
}

/// Runs one form under one setup; `Err` describes the first wrong element.
fn run(gpu: &Gpu, g: &mut StdRng, f: &Form, s: Setup) -> Result<(), String> {
    let ku = 32 / f.a.unit(); // units per K-slice
                              // A K-major swizzled tile is a whole swizzle row of K: round the k-steps up to it.
    let per_row = (s.swizzle.bytes() / 32).max(1);
    let s = Setup { ksteps: s.ksteps.div_ceil(per_row) * per_row, ..s };
    let k = s.ksteps * ku;
    let (m, n) = (64u32, f.n);
    let pa = Placed::new(f.a, m, k, s.a_major, s.swizzle, s.order)?;
    let pb = Placed::new(f.b, n, k, s.b_major, s.swizzle, s.order)?;
    let a: Vec<u32> = (0..m * k).map(|_| f.a.random(g)).collect();
    let bt: Vec<u32> = (0..n * k).map(|_| f.b.random(g)).collect();
    let b_base = pa.bytes().div_ceil(1024) * 1024;
    let total = b_base + pb.bytes();
    let mut img = vec![0u8; total as usize];
    pa.write(&mut img, 0, f.a, &a, k);
    pb.write(&mut img, b_base, f.b, &bt, k);
    let words: Vec<u32> = img.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let nregs = match f.acc {
        AccTy::F16 => n / 4,
        _ => n / 2,
    };
    let junk: Vec<u32> = (0..128 * nregs).map(|_| g.gen()).collect();
    let frags: Vec<u32> = (0..128)
        .flat_map(|tid| (0..s.ksteps).flat_map(move |st| (0..4).map(move |r| (tid, st, r))))
        .map(|(tid, st, r)| a_fragment(&a, k, f.a, st, tid, r))
        .collect();
    let (sa, sb): (i32, i32) = if f.acc == AccTy::S32 { (1, 1) } else { (if g.gen() { 1 } else { -1 }, if g.gen() { 1 } else { -1 }) };
    let (ta, tb) = (u32::from(s.a_major == Major::MN), u32::from(s.b_major == Major::MN));

    let mut module = Module::new(Target::SM_90A);
    let kr = module
        .kernel(
            "wgmma_case",
            |kk, (img, nwords, frag, junk, out): (GlobalPtr<U32>, Reg<U32>, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>)| {
                let tid = ptx!(kk, "mov.u32", sreg::TID_X);
                let smem = kk.dynamic_shared_aligned::<U32>(1024);
                kk.for_range(tid, nwords, 128, |kk, w| {
                    let v = kk.ld(img.at(w));
                    kk.st(smem.at(w), v);
                });
                ptx!(kk, "fence.proxy.async.shared::cta");
                ptx!(kk, "bar.sync", 0u32);
                let base = ptx!(kk, "mul.lo.u32", tid, nregs);
                let acc: Vec<Reg<B32>> =
                    (0..nregs).map(|j| ptx!(kk, "ld.global.b32", junk.cast::<B32>().at(base).offset(j as i64))).collect();
                let fbase = ptx!(kk, "mul.lo.u32", tid, 4 * s.ksteps);
                let fa: Vec<[Reg<B32>; 4]> = (0..s.ksteps)
                    .map(|st| {
                        std::array::from_fn(|r| ptx!(kk, "ld.global.b32", frag.cast::<B32>().at(fbase).offset((4 * st + r as u32) as i64)))
                    })
                    .collect();
                let descs: Vec<(Reg<Gdesc>, Reg<Gdesc>)> =
                    (0..s.ksteps).map(|st| (pa.desc(kk, smem, 0, st), pb.desc(kk, smem, b_base, st))).collect();
                ptx!(kk, "wgmma.fence.sync.aligned");
                for st in 0..s.ksteps {
                    let (da, db) = descs[st as usize];
                    if s.rs {
                        (f.rs)(kk, &acc, fa[st as usize], db, st > 0, sa, sb, tb);
                    } else {
                        (f.ss)(kk, &acc, da, db, st > 0, sa, sb, ta, tb);
                    }
                }
                ptx!(kk, "wgmma.commit_group.sync.aligned");
                ptx!(kk, "wgmma.wait_group.sync.aligned", 0);
                for (j, r) in acc.iter().enumerate() {
                    ptx!(kk, "st.global.b32", out.cast::<B32>().at(base).offset(j as i64), *r);
                }
            },
        )
        .map_err(|e| e.to_string())?;
    let loaded = load(gpu, &module);
    let kern = loaded.kernel(&kr).map_err(|e| e.to_string())?;
    let (dimg, dfrag, djunk) = (gpu.upload(&words).unwrap(), gpu.upload(&frags).unwrap(), gpu.upload(&junk).unwrap());
    let mut out = poisoned::<u32>(gpu, (128 * nregs) as usize).unwrap();
    kern.launch(&Launch::new(1, 128).shared(total), (&dimg, words.len() as u32, &dfrag, &djunk, &mut out)).map_err(|e| e.to_string())?;
    let got = gpu.download(&out).unwrap();

    // The CPU GEMM, with the sum of magnitudes for the tolerance.
    let reference = |row: u32, col: u32| -> (f64, f64) {
        let (ar, br) = (&a[(row * k) as usize..((row + 1) * k) as usize], &bt[(col * k) as usize..((col + 1) * k) as usize]);
        if f.a == Ty::B1 {
            let c: u32 = ar.iter().zip(br).map(|(x, y)| (x & y).count_ones()).sum();
            return (c as f64, 0.0);
        }
        let mut sum = 0.0;
        let mut mag = 0.0;
        for (x, y) in ar.iter().zip(br) {
            let p = f.a.value(*x) * sa as f64 * f.b.value(*y) * sb as f64;
            sum += p;
            mag += p.abs();
        }
        (sum, mag)
    };
    // Relative to the sum of the products' magnitudes: f32 accumulation of exact products;
    // fp8 products summed in an accumulator narrower than f32 (measured: errors up to about
    // 2e-4 of that sum, so 1e-3 leaves a margin); f16 accumulation rounds every partial sum
    // to 11 bits; integers and bits are exact.
    let rel = match (f.acc, f.a) {
        (AccTy::S32, _) => 0.0,
        (AccTy::F16, _) => 1e-2,
        (_, Ty::E4m3 | Ty::E5m2) => 1e-3,
        _ => 1e-5,
    };
    for tid in 0..128 {
        for j in 0..nregs {
            let word = got[(tid * nregs + j) as usize];
            for (h, (row, col)) in d_coords(f.acc, tid, j).into_iter().enumerate() {
                let v = match f.acc {
                    AccTy::F32 => f32::from_bits(word) as f64,
                    AccTy::S32 => word as i32 as f64,
                    AccTy::F16 => half::f16::from_bits((word >> (16 * h)) as u16).to_f64(),
                };
                let (want, mag) = reference(row, col);
                if (v - want).abs() > rel * mag + 1e-6 || v.is_nan() {
                    return Err(format!(
                        "{} {s:?} scales ({sa}, {sb}): D[{row}][{col}] is {v}, the CPU says {want} (thread {tid} register {j}, tolerance {})",
                        f.chain,
                        rel * mag
                    ));
                }
            }
        }
    }
    Ok(())
}

fn wgmma_every_family_against_a_cpu_gemm(gpu: Gpu) {
    if gpu.target() != Some(Target::SM_90) && gpu.compute_capability() != (9, 0) {
        skip(format!("wgmma needs sm_90a, the GPU is {:?}", gpu.compute_capability()));
    }
    let mut g = rng("wgmma_every_family_against_a_cpu_gemm");
    let k_major = |rs, swizzle, ksteps| Setup { rs, a_major: Major::K, b_major: Major::K, swizzle, ksteps, order: AtomOrder::MnFirst };
    let mut runs = 0;
    let mut failures = vec![];
    let mut go = |f: &Form, s: Setup, g: &mut StdRng| {
        runs += 1;
        if let Err(e) = run(&gpu, g, f, s) {
            failures.push(e);
        }
    };
    // bf16 at every N, SS, 128B swizzle, four k-steps.
    for f in &bf16_every_n() {
        go(f, k_major(false, Swizzle::B128, 4), &mut g);
    }
    // Every family at N = 8, 64, 128, 256, SS and RS, 128B swizzle, several k-steps.
    for f in &families() {
        go(f, k_major(false, Swizzle::B128, 4), &mut g);
        go(f, k_major(true, Swizzle::B128, 3), &mut g);
    }
    // Each swizzle mode, K-major and MN-major operands (bf16 and f16), SS and RS.
    let all = bf16_every_n();
    let fam = families();
    let picks: Vec<&Form> = all
        .iter()
        .filter(|f| [8, 64, 128, 256].contains(&f.n))
        .chain(fam.iter().filter(|f| f.a == Ty::F16 && f.acc == AccTy::F32))
        .collect();
    for f in picks {
        for swizzle in Swizzle::ALL {
            for (a_major, b_major) in [(Major::K, Major::K), (Major::MN, Major::K), (Major::K, Major::MN), (Major::MN, Major::MN)] {
                if !f.trans && (a_major == Major::MN || b_major == Major::MN) {
                    continue;
                }
                // B needs N rows to hold whole swizzle atoms when it is MN-major.
                if b_major == Major::MN && f.n * 2 < swizzle.bytes() {
                    continue;
                }
                let order = AtomOrder::MnFirst;
                go(f, Setup { rs: false, a_major, b_major, swizzle, ksteps: 2, order }, &mut g);
                if a_major == Major::K {
                    go(f, Setup { rs: true, a_major, b_major, swizzle, ksteps: 2, order }, &mut g);
                }
                // MN-major tiles with their atoms K-first (as TMA boxes of one swizzle row of
                // M/N write them): LBO and SBO change, the element layout must not.
                if a_major == Major::MN || b_major == Major::MN {
                    go(f, Setup { rs: false, a_major, b_major, swizzle, ksteps: 4, order: AtomOrder::KFirst }, &mut g);
                }
            }
        }
    }
    println!("{runs} wgmma runs, {} wrong", failures.len());
    assert!(failures.is_empty(), "{} of {runs} wgmma runs wrong:\n{}", failures.len(), failures.join("\n"));
}

pub const TESTS: &[Test] = &[gpu!(wgmma_every_family_against_a_cpu_gemm)];
