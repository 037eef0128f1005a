//! `wmma` from memory to memory against a CPU GEMM: per case, one kernel in which each of
//! [`WARPS`] warps loads its own A, B and C tiles from global memory (`wmma.load`, with the
//! stride operand or packed), runs `wmma.mma` and stores D (`wmma.store.d`), for every
//! data-type group sm_90 runs: f16 into f32 and into f16 (and the mixed f16/f32 C and D), bf16,
//! tf32, f64 with each rounding mode, u8/s8 (`.satfinite` too), u4/s4 and b1 (`.xor.popc`,
//! `.and.popc`), every matrix row- and column-major across each group's cases.
//!
//! The fragments are opaque (which thread holds which element is unspecified), so the check
//! goes through memory only: the host lays each warp's tiles out in the case's layout and
//! leading dimension (the stride, in elements, 32 bytes past the tile's own, or the tile's own
//! when packed), fills the gap between rows or columns with all-one bytes (a NaN or -1 that
//! would spoil any result that read it), and reads D back from a buffer poisoned first,
//! whose gaps must still hold the poison. Sub-byte elements are packed from the low bits of
//! each byte up; A is row-major and B column-major there, both contiguous along K, so the
//! products do not depend on the order of the elements within a byte.
//!
//! Inputs are exact in their format (random significands of the format's width, `|x| < 4`;
//! integers over their whole range, s32 C within ±2^20). Integer and b1 results are compared
//! bit for bit (with `.satfinite` also on inputs whose sums run past the s32 range, every
//! product of a tile of one sign so the clamp is the same whatever the order). Floating
//! results: `|D - ref| <= 2 (K + 1) u (sum_k |a_ik b_kj| + |c_ij|)`, `ref` the f64 sum and `u`
//! the unit roundoff of D's type (f32 2^-24, f16 2^-11, f64 2^-53), the factor 2 for adders
//! that truncate (and the directed f64 roundings).

use super::mma::{El, Major, Sign};
use super::*;
use ptxkit::ops::wmma;
use rand::rngs::StdRng;
use rand::Rng;

/// Warps per launch, each with its own tiles.
const WARPS: usize = 4;

/// A strided tile's rows (columns) start this many bytes apart at least past their own
/// length, at a multiple of it.
const GAP_BYTES: usize = 32;

/// `b1` products: `.and.popc` or `.xor.popc`; the rest multiply.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Mul,
    And,
    Xor,
}

/// One matrix in memory: `rows`×`cols` elements of `el`, `major`, `ld` elements between the
/// starts of consecutive rows (row-major) or columns, one tile per warp.
#[derive(Clone, Copy, Debug)]
struct Mat {
    rows: usize,
    cols: usize,
    el: El,
    major: Major,
    ld: usize,
}

impl Mat {
    fn new(rows: usize, cols: usize, el: El, major: Major, strided: bool) -> Mat {
        let own = if major == Major::Row { cols } else { rows };
        let step = GAP_BYTES * 8 / el.bits();
        let ld = if strided { (own + step).div_ceil(step) * step } else { own };
        Mat { rows, cols, el, major, ld }
    }
    /// Elements per warp's tile, gaps included.
    fn tile_len(&self) -> usize {
        self.ld * if self.major == Major::Row { self.rows } else { self.cols }
    }
    fn tile_bytes(&self) -> usize {
        self.tile_len() * self.el.bits() / 8
    }
    /// Element index (from the start of the buffer) of (row, col) of warp `w`'s tile.
    fn index(&self, w: usize, row: usize, col: usize) -> usize {
        w * self.tile_len() + if self.major == Major::Row { row * self.ld + col } else { col * self.ld + row }
    }
    fn words(&self) -> usize {
        WARPS * self.tile_bytes() / 4
    }
    /// The buffer of every warp's tile (row-major codes per warp), gaps all ones.
    fn pack(&self, tiles: &[Vec<u64>]) -> Vec<u32> {
        let mut out = vec![u32::MAX; self.words()];
        for (w, tile) in tiles.iter().enumerate() {
            for row in 0..self.rows {
                for col in 0..self.cols {
                    put(&mut out, self.el, self.index(w, row, col), tile[row * self.cols + col]);
                }
            }
        }
        out
    }
    /// Warp `w`'s tile from a buffer, row-major codes.
    fn unpack(&self, words: &[u32], w: usize) -> Vec<u64> {
        (0..self.rows * self.cols).map(|i| get(words, self.el, self.index(w, i / self.cols, i % self.cols))).collect()
    }
    /// Whether element `i` of the buffer lies in a gap between rows or columns.
    fn in_gap(&self, i: usize) -> bool {
        let own = if self.major == Major::Row { self.cols } else { self.rows };
        i % self.tile_len() % self.ld >= own
    }
}

/// Element `i` of `el` codes packed little-endian into 32-bit words.
fn get(words: &[u32], el: El, i: usize) -> u64 {
    let (bits, at) = (el.bits(), i * el.bits());
    if bits == 64 {
        return words[at / 32] as u64 | (words[at / 32 + 1] as u64) << 32;
    }
    (words[at / 32] as u64 >> (at % 32)) & el.mask()
}

fn put(words: &mut [u32], el: El, i: usize, code: u64) {
    let (bits, at) = (el.bits(), i * el.bits());
    if bits == 64 {
        words[at / 32] = code as u32;
        words[at / 32 + 1] = (code >> 32) as u32;
        return;
    }
    let m = (el.mask() as u32) << (at % 32);
    words[at / 32] = (words[at / 32] & !m) | ((code as u32) << (at % 32) & m);
}

/// A case, read from its five chains: load A, load B, load C, mma, store D.
#[derive(Clone, Copy, Debug)]
struct Spec {
    chains: [&'static str; 5],
    strided: bool,
    m: usize,
    n: usize,
    k: usize,
    a: Mat,
    b: Mat,
    c: Mat,
    d: Mat,
    op: Op,
    sat: bool,
}

fn major(p: &str) -> Major {
    match p {
        "row" => Major::Row,
        "col" => Major::Col,
        _ => panic!("`{p}` is not a layout"),
    }
}

impl Spec {
    fn parse(chains: [&'static str; 5], strided: bool) -> Spec {
        let parts: Vec<Vec<&str>> = chains.iter().map(|c| c.split('.').collect()).collect();
        let mma = &parts[3];
        let si = mma.iter().position(|p| p.starts_with('m') && p.contains('n') && p.contains('k')).expect("a shape");
        let dims: Vec<usize> = mma[si][1..].split(['n', 'k']).map(|x| x.parse().unwrap()).collect();
        let (m, n, k) = (dims[0], dims[1], dims[2]);
        let types: Vec<El> = mma.iter().filter_map(|p| is_el(p).then(|| El::parse(p))).collect();
        // f16 products name D and C only; the others D, A, B, C.
        let (td, ta, tb, tc) = match types[..] {
            [d, c] => (d, El::F16, El::F16, c),
            [d, a, b, c] => (d, a, b, c),
            _ => panic!("{}: types {types:?}", chains[3]),
        };
        let op = if mma.contains(&"and") {
            Op::And
        } else if mma.contains(&"xor") {
            Op::Xor
        } else {
            Op::Mul
        };
        // Each memory chain: wmma.load.X.sync.aligned.LAYOUT.SHAPE.global.TYPE.
        let mem = |i: usize, what: &str, t: El| {
            let p = &parts[i];
            assert_eq!((p[1], p[2], p[6], p[7]), (if what == "d" { "store" } else { "load" }, what, mma[si], "global"), "{}", chains[i]);
            assert_eq!(El::parse(p[8]), t, "{}: the element type of {what}", chains[i]);
            major(p[5])
        };
        let (la, lb) = (mem(0, "a", ta), mem(1, "b", tb));
        assert_eq!((la, lb), (major(mma[si - 2]), major(mma[si - 1])), "{}: the layouts of A and B", chains[3]);
        Spec {
            chains,
            strided,
            m,
            n,
            k,
            a: Mat::new(m, k, ta, la, strided),
            b: Mat::new(k, n, tb, lb, strided),
            c: Mat::new(m, n, tc, mem(2, "c", tc), strided),
            d: Mat::new(m, n, td, mem(4, "d", td), strided),
            op,
            sat: mma.contains(&"satfinite"),
        }
    }
    /// Unit roundoff of D's type.
    fn roundoff(&self) -> f64 {
        match self.d.el {
            El::F64 => 2f64.powi(-53),
            El::F16 => 2f64.powi(-11),
            _ => 2f64.powi(-24),
        }
    }
    /// Per-warp element offsets of the four tiles, in elements of the type the kernel casts
    /// each pointer to (8-, 16-, 32- or 64-bit words), and the strides.
    fn kernel_consts(&self, widths: [u32; 4]) -> ([u32; 4], [u32; 4]) {
        let mats = self.mats();
        (std::array::from_fn(|i| (mats[i].tile_bytes() * 8 / widths[i] as usize) as u32), std::array::from_fn(|i| mats[i].ld as u32))
    }
    fn mats(&self) -> [Mat; 4] {
        [self.a, self.b, self.c, self.d]
    }
}

fn is_el(p: &str) -> bool {
    matches!(p, "f16" | "bf16" | "tf32" | "f32" | "f64" | "u8" | "s8" | "u4" | "s4" | "b1" | "s32")
}

// ---- one round -------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Random inputs; integer sums stay inside the s32 range.
    Normal,
    /// `.satfinite` inputs whose sums pass the s32 limits: every product of a tile of one
    /// sign, C near the limit it runs towards.
    Overflow,
}

/// Every warp's A, B and C tiles (row-major codes).
struct Round {
    a: Vec<Vec<u64>>,
    b: Vec<Vec<u64>>,
    c: Vec<Vec<u64>>,
}

impl Round {
    fn random(s: &Spec, g: &mut StdRng, fill: Fill) -> Round {
        let amax = |t: El| if t.signed() { 1i64 << (t.bits() - 1) } else { (1i64 << t.bits()) - 1 };
        let mut r = Round { a: vec![], b: vec![], c: vec![] };
        for w in 0..WARPS {
            let (sa, sb, up) = match fill {
                Fill::Normal => (Sign::Any, Sign::Any, true),
                Fill::Overflow if w % 2 == 0 || !s.b.el.signed() => (Sign::NonNeg, Sign::NonNeg, true),
                Fill::Overflow => (Sign::NonNeg, Sign::NonPos, false),
            };
            r.a.push((0..s.m * s.k).map(|_| s.a.el.random(g, sa)).collect());
            r.b.push((0..s.k * s.n).map(|_| s.b.el.random(g, sb)).collect());
            r.c.push(
                (0..s.m * s.n)
                    .map(|_| match fill {
                        Fill::Normal => s.c.el.random(g, Sign::Any),
                        Fill::Overflow => {
                            let d = g.gen_range(0..=s.k as i64 * amax(s.a.el) * amax(s.b.el) / 2);
                            (if up { i32::MAX as i64 - d } else { i32::MIN as i64 + d }) as i32 as u32 as u64
                        }
                    })
                    .collect(),
            );
        }
        r
    }

    /// D[row][col] of warp `w` in f64 (exact for integers and b1) and the sum of the
    /// magnitudes of its terms.
    fn exact(&self, s: &Spec, w: usize, row: usize, col: usize) -> (f64, f64) {
        let cv = s.c.el.value(self.c[w][row * s.n + col]);
        let (mut sum, mut scale) = (cv, cv.abs());
        for kk in 0..s.k {
            let (x, y) = (s.a.el.value(self.a[w][row * s.k + kk]), s.b.el.value(self.b[w][kk * s.n + col]));
            let term = match s.op {
                Op::Mul | Op::And => x * y,
                Op::Xor => x + y - 2.0 * x * y,
            };
            sum += term;
            scale += term.abs();
        }
        (sum, scale)
    }

    /// Compares D's buffer with the CPU reference of every warp's tile, and its gaps with
    /// the poison.
    fn compare(&self, s: &Spec, out: &[u32], fill: Fill) -> Result<(), String> {
        let d = s.d;
        let tol_k = 2.0 * (s.k + 1) as f64 * s.roundoff();
        let mut bad = vec![];
        for w in 0..WARPS {
            let got = d.unpack(out, w);
            for row in 0..s.m {
                for col in 0..s.n {
                    let (exact, scale) = self.exact(s, w, row, col);
                    let v = d.el.value(got[row * s.n + col]);
                    let (want, ok, tol) = if d.el.is_float() {
                        (exact, (v - exact).abs() <= tol_k * scale, tol_k * scale)
                    } else if s.sat {
                        let want = exact.clamp(i32::MIN as f64, i32::MAX as f64);
                        (want, v == want, 0.0)
                    } else {
                        assert!(exact.abs() < 2f64.powi(31), "{}: the inputs overflow a form that wraps", s.chains[3]);
                        (exact, v == exact, 0.0)
                    };
                    if !ok {
                        bad.push(format!("warp {w} D[{row}][{col}]: GPU {v:e}, CPU {want:e} (tolerance {tol:e})"));
                    }
                }
            }
        }
        let written: Vec<usize> = (0..WARPS * d.tile_len()).filter(|&i| d.in_gap(i) && get(out, d.el, i) != d.el.mask()).collect();
        if let Some(i) = written.first() {
            bad.push(format!("{} gap elements of D were written, the first at element {i}", written.len()));
        }
        if bad.is_empty() {
            return Ok(());
        }
        let n = bad.len();
        bad.truncate(6);
        Err(format!("{} ({fill:?} inputs): {n} mismatches; first:\n    {}", s.chains[3], bad.join("\n    ")))
    }
}

/// A CPU model of the case's kernel on the packed buffers (A, B, C; D poisoned): it checks
/// the host side (layouts, gaps, the reference and the comparison) without a GPU.
fn simulate(s: &Spec, ins: &[Vec<u32>; 3]) -> Vec<u32> {
    let round = Round {
        a: (0..WARPS).map(|w| s.a.unpack(&ins[0], w)).collect(),
        b: (0..WARPS).map(|w| s.b.unpack(&ins[1], w)).collect(),
        c: (0..WARPS).map(|w| s.c.unpack(&ins[2], w)).collect(),
    };
    let mut out = vec![u32::MAX; s.d.words()];
    for w in 0..WARPS {
        for row in 0..s.m {
            for col in 0..s.n {
                let (x, _) = round.exact(s, w, row, col);
                let code = match s.d.el {
                    El::F32 => (x as f32).to_bits() as u64,
                    El::F16 => half::f16::from_f64(x).to_bits() as u64,
                    El::F64 => x.to_bits(),
                    _ if s.sat => x.clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32 as u64,
                    _ => x as i64 as i32 as u32 as u64,
                };
                put(&mut out, s.d.el, s.d.index(w, row, col), code);
            }
        }
    }
    out
}

// ---- kernels ---------------------------------------------------------------------------------

type Params = (GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<B32>, GlobalPtr<B32>);

/// A case's kernel body: the pointers, per-warp tile offsets (in elements of the widths the
/// body casts to) and strides.
type Body = fn(&mut Kernel, Params, [u32; 4], [u32; 4]);

struct Case {
    spec: Spec,
    /// Bits of the element type each pointer is cast to (A, B, C, D).
    widths: [u32; 4],
    body: Body,
}

/// Where a case runs: on the GPU or on the CPU model.
enum Env<'a> {
    Gpu(&'a Gpu),
    Cpu,
}

fn build(m: &mut Module, name: &str, case: &Case) -> KernelRef<Params> {
    let (off, ld) = case.spec.kernel_consts(case.widths);
    let body = case.body;
    m.kernel(name, move |k, p: Params| body(k, p, off, ld)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Two rounds of fresh inputs (three with `.satfinite`: one that overflows).
fn check(env: &mut Env, g: &mut StdRng, case: &Case) -> Result<(), String> {
    let s = &case.spec;
    let mut fills = vec![Fill::Normal, Fill::Normal];
    if s.sat {
        fills.push(Fill::Overflow);
    }
    for fill in fills {
        let round = Round::random(s, g, fill);
        let ins = [s.a.pack(&round.a), s.b.pack(&round.b), s.c.pack(&round.c)];
        let out = match env {
            Env::Gpu(gpu) => {
                let mut m = Module::new(target(gpu));
                let kr = build(&mut m, "wmma", case);
                let module = load(gpu, &m);
                let up = |v: &Vec<u32>| gpu.upload(v).unwrap();
                let (da, db, dc) = (up(&ins[0]), up(&ins[1]), up(&ins[2]));
                let mut dd = poisoned::<u32>(gpu, s.d.words()).unwrap();
                module.kernel(&kr).unwrap().launch(&Launch::new(1u32, (WARPS * 32) as u32), (&da, &db, &dc, &mut dd)).unwrap();
                gpu.download(&dd).unwrap()
            }
            Env::Cpu => simulate(s, &ins),
        };
        round.compare(s, &out, fill)?;
    }
    Ok(())
}

/// Bits of a `B8`..`B64` pointer element.
macro_rules! bits {
    (B8) => {
        8
    };
    (B16) => {
        16
    };
    (B32) => {
        32
    };
    (B64) => {
        64
    };
}

/// A load or store with the stride operand (`strided`) or without (`packed`).
macro_rules! mem {
    (strided, $k:ident, $chain:literal, $($x:expr),+; $ld:expr) => {
        ptx!($k, $chain as strided, $($x),+, $ld)
    };
    (packed, $k:ident, $chain:literal, $($x:expr),+; $ld:expr) => {{
        let _ = $ld;
        ptx!($k, $chain, $($x),+)
    }};
}

/// One case per line: `strided`/`packed`, the element widths A, B, C and D are addressed with
/// (each form's address takes the matrix's type or the `.bN` of its width), then the load A,
/// load B, load C, mma and store D chains.
macro_rules! cases {
    ($($s:ident $ta:ident $tb:ident $tc:ident $td:ident: $a:literal $b:literal $c:literal $mma:literal $d:literal;)*) => {
        vec![$(Case {
            spec: Spec::parse([$a, $b, $c, $mma, $d], stringify!($s) == "strided"),
            widths: [bits!($ta), bits!($tb), bits!($tc), bits!($td)],
            body: |k: &mut Kernel, (pa, pb, pc, pd): Params, off: [u32; 4], ld: [u32; 4]| {
                let tid = ptx!(k, "mov.u32", sreg::TID_X);
                let warp = ptx!(k, "shr.u32", tid, 5u32);
                let i: [Reg<U32>; 4] = std::array::from_fn(|j| ptx!(k, "mul.lo.u32", warp, off[j]));
                let a = mem!($s, k, $a, pa.cast::<$ta>().at(i[0]); ld[0]);
                let b = mem!($s, k, $b, pb.cast::<$tb>().at(i[1]); ld[1]);
                let c = mem!($s, k, $c, pc.cast::<$tc>().at(i[2]); ld[2]);
                let d = ptx!(k, $mma, a, b, c);
                mem!($s, k, $d, pd.cast::<$td>().at(i[3]), d; ld[3]);
            },
        }),*]
    };
}

#[rustfmt::skip]
fn float_cases() -> Vec<Case> {
    cases!(
        // f16 into f32
        strided B16 B16 B32 B32: "wmma.load.a.sync.aligned.row.m16n16k16.global.f16" "wmma.load.b.sync.aligned.col.m16n16k16.global.f16"
            "wmma.load.c.sync.aligned.row.m16n16k16.global.f32" "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32" "wmma.store.d.sync.aligned.col.m16n16k16.global.f32";
        strided B16 B16 B32 B32: "wmma.load.a.sync.aligned.col.m8n32k16.global.f16" "wmma.load.b.sync.aligned.row.m8n32k16.global.f16"
            "wmma.load.c.sync.aligned.col.m8n32k16.global.f32" "wmma.mma.sync.aligned.col.row.m8n32k16.f32.f32" "wmma.store.d.sync.aligned.row.m8n32k16.global.f32";
        strided B16 B16 B32 B32: "wmma.load.a.sync.aligned.row.m32n8k16.global.f16" "wmma.load.b.sync.aligned.row.m32n8k16.global.f16"
            "wmma.load.c.sync.aligned.row.m32n8k16.global.f32" "wmma.mma.sync.aligned.row.row.m32n8k16.f32.f32" "wmma.store.d.sync.aligned.row.m32n8k16.global.f32";
        packed B16 B16 B32 B32: "wmma.load.a.sync.aligned.col.m16n16k16.global.f16" "wmma.load.b.sync.aligned.col.m16n16k16.global.f16"
            "wmma.load.c.sync.aligned.col.m16n16k16.global.f32" "wmma.mma.sync.aligned.col.col.m16n16k16.f32.f32" "wmma.store.d.sync.aligned.col.m16n16k16.global.f32";
        // f16 into f16, and the mixed accumulators
        strided B16 B16 B16 B16: "wmma.load.a.sync.aligned.row.m16n16k16.global.f16" "wmma.load.b.sync.aligned.col.m16n16k16.global.f16"
            "wmma.load.c.sync.aligned.col.m16n16k16.global.f16" "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16" "wmma.store.d.sync.aligned.row.m16n16k16.global.f16";
        strided B16 B16 B16 B16: "wmma.load.a.sync.aligned.col.m8n32k16.global.f16" "wmma.load.b.sync.aligned.row.m8n32k16.global.f16"
            "wmma.load.c.sync.aligned.row.m8n32k16.global.f16" "wmma.mma.sync.aligned.col.row.m8n32k16.f16.f16" "wmma.store.d.sync.aligned.col.m8n32k16.global.f16";
        packed B16 B16 B16 B16: "wmma.load.a.sync.aligned.col.m32n8k16.global.f16" "wmma.load.b.sync.aligned.col.m32n8k16.global.f16"
            "wmma.load.c.sync.aligned.col.m32n8k16.global.f16" "wmma.mma.sync.aligned.col.col.m32n8k16.f16.f16" "wmma.store.d.sync.aligned.col.m32n8k16.global.f16";
        strided B16 B16 B16 B32: "wmma.load.a.sync.aligned.col.m16n16k16.global.f16" "wmma.load.b.sync.aligned.col.m16n16k16.global.f16"
            "wmma.load.c.sync.aligned.row.m16n16k16.global.f16" "wmma.mma.sync.aligned.col.col.m16n16k16.f32.f16" "wmma.store.d.sync.aligned.col.m16n16k16.global.f32";
        strided B16 B16 B32 B16: "wmma.load.a.sync.aligned.row.m32n8k16.global.f16" "wmma.load.b.sync.aligned.col.m32n8k16.global.f16"
            "wmma.load.c.sync.aligned.col.m32n8k16.global.f32" "wmma.mma.sync.aligned.row.col.m32n8k16.f16.f32" "wmma.store.d.sync.aligned.row.m32n8k16.global.f16";
        // bf16
        strided B16 B16 B32 B32: "wmma.load.a.sync.aligned.row.m16n16k16.global.bf16" "wmma.load.b.sync.aligned.col.m16n16k16.global.bf16"
            "wmma.load.c.sync.aligned.col.m16n16k16.global.f32" "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32" "wmma.store.d.sync.aligned.row.m16n16k16.global.f32";
        strided B16 B16 B32 B32: "wmma.load.a.sync.aligned.col.m8n32k16.global.bf16" "wmma.load.b.sync.aligned.row.m8n32k16.global.bf16"
            "wmma.load.c.sync.aligned.row.m8n32k16.global.f32" "wmma.mma.sync.aligned.col.row.m8n32k16.f32.bf16.bf16.f32" "wmma.store.d.sync.aligned.col.m8n32k16.global.f32";
        packed B16 B16 B32 B32: "wmma.load.a.sync.aligned.row.m32n8k16.global.bf16" "wmma.load.b.sync.aligned.row.m32n8k16.global.bf16"
            "wmma.load.c.sync.aligned.row.m32n8k16.global.f32" "wmma.mma.sync.aligned.row.row.m32n8k16.f32.bf16.bf16.f32" "wmma.store.d.sync.aligned.row.m32n8k16.global.f32";
        // tf32
        strided B32 B32 B32 B32: "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32" "wmma.load.b.sync.aligned.col.m16n16k8.global.tf32"
            "wmma.load.c.sync.aligned.row.m16n16k8.global.f32" "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32" "wmma.store.d.sync.aligned.col.m16n16k8.global.f32";
        strided B32 B32 B32 B32: "wmma.load.a.sync.aligned.col.m16n16k8.global.tf32" "wmma.load.b.sync.aligned.row.m16n16k8.global.tf32"
            "wmma.load.c.sync.aligned.col.m16n16k8.global.f32" "wmma.mma.sync.aligned.col.row.m16n16k8.f32.tf32.tf32.f32" "wmma.store.d.sync.aligned.row.m16n16k8.global.f32";
        // f64, with each rounding mode
        strided B64 B64 B64 B64: "wmma.load.a.sync.aligned.row.m8n8k4.global.f64" "wmma.load.b.sync.aligned.col.m8n8k4.global.f64"
            "wmma.load.c.sync.aligned.row.m8n8k4.global.f64" "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64" "wmma.store.d.sync.aligned.col.m8n8k4.global.f64";
        strided B64 B64 B64 B64: "wmma.load.a.sync.aligned.col.m8n8k4.global.f64" "wmma.load.b.sync.aligned.row.m8n8k4.global.f64"
            "wmma.load.c.sync.aligned.col.m8n8k4.global.f64" "wmma.mma.sync.aligned.col.row.m8n8k4.rn.f64.f64.f64.f64" "wmma.store.d.sync.aligned.row.m8n8k4.global.f64";
        strided B64 B64 B64 B64: "wmma.load.a.sync.aligned.row.m8n8k4.global.f64" "wmma.load.b.sync.aligned.row.m8n8k4.global.f64"
            "wmma.load.c.sync.aligned.col.m8n8k4.global.f64" "wmma.mma.sync.aligned.row.row.m8n8k4.rz.f64.f64.f64.f64" "wmma.store.d.sync.aligned.row.m8n8k4.global.f64";
        strided B64 B64 B64 B64: "wmma.load.a.sync.aligned.col.m8n8k4.global.f64" "wmma.load.b.sync.aligned.col.m8n8k4.global.f64"
            "wmma.load.c.sync.aligned.row.m8n8k4.global.f64" "wmma.mma.sync.aligned.col.col.m8n8k4.rm.f64.f64.f64.f64" "wmma.store.d.sync.aligned.col.m8n8k4.global.f64";
        packed B64 B64 B64 B64: "wmma.load.a.sync.aligned.row.m8n8k4.global.f64" "wmma.load.b.sync.aligned.col.m8n8k4.global.f64"
            "wmma.load.c.sync.aligned.row.m8n8k4.global.f64" "wmma.mma.sync.aligned.row.col.m8n8k4.rp.f64.f64.f64.f64" "wmma.store.d.sync.aligned.row.m8n8k4.global.f64";
    )
}

#[rustfmt::skip]
fn integer_cases() -> Vec<Case> {
    cases!(
        // u8/s8
        strided B8 B8 B32 B32: "wmma.load.a.sync.aligned.row.m16n16k16.global.u8" "wmma.load.b.sync.aligned.col.m16n16k16.global.u8"
            "wmma.load.c.sync.aligned.row.m16n16k16.global.s32" "wmma.mma.sync.aligned.row.col.m16n16k16.s32.u8.u8.s32" "wmma.store.d.sync.aligned.col.m16n16k16.global.s32";
        strided B8 B8 B32 B32: "wmma.load.a.sync.aligned.col.m8n32k16.global.s8" "wmma.load.b.sync.aligned.row.m8n32k16.global.s8"
            "wmma.load.c.sync.aligned.col.m8n32k16.global.s32" "wmma.mma.sync.aligned.col.row.m8n32k16.s32.s8.s8.s32.satfinite" "wmma.store.d.sync.aligned.row.m8n32k16.global.s32";
        packed B8 B8 B32 B32: "wmma.load.a.sync.aligned.row.m32n8k16.global.s8" "wmma.load.b.sync.aligned.row.m32n8k16.global.s8"
            "wmma.load.c.sync.aligned.row.m32n8k16.global.s32" "wmma.mma.sync.aligned.row.row.m32n8k16.s32.s8.s8.s32" "wmma.store.d.sync.aligned.row.m32n8k16.global.s32";
        strided B8 B8 B32 B32: "wmma.load.a.sync.aligned.col.m16n16k16.global.u8" "wmma.load.b.sync.aligned.col.m16n16k16.global.u8"
            "wmma.load.c.sync.aligned.col.m16n16k16.global.s32" "wmma.mma.sync.aligned.col.col.m16n16k16.s32.u8.u8.s32.satfinite" "wmma.store.d.sync.aligned.col.m16n16k16.global.s32";
        // u4/s4: A row-major, B column-major
        strided B32 B32 B32 B32: "wmma.load.a.sync.aligned.row.m8n8k32.global.s4" "wmma.load.b.sync.aligned.col.m8n8k32.global.s4"
            "wmma.load.c.sync.aligned.row.m8n8k32.global.s32" "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32" "wmma.store.d.sync.aligned.col.m8n8k32.global.s32";
        strided B32 B32 B32 B32: "wmma.load.a.sync.aligned.row.m8n8k32.global.u4" "wmma.load.b.sync.aligned.col.m8n8k32.global.u4"
            "wmma.load.c.sync.aligned.col.m8n8k32.global.s32" "wmma.mma.sync.aligned.row.col.m8n8k32.s32.u4.u4.s32.satfinite" "wmma.store.d.sync.aligned.row.m8n8k32.global.s32";
        packed B32 B32 B32 B32: "wmma.load.a.sync.aligned.row.m8n8k32.global.s4" "wmma.load.b.sync.aligned.col.m8n8k32.global.s4"
            "wmma.load.c.sync.aligned.col.m8n8k32.global.s32" "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32.satfinite" "wmma.store.d.sync.aligned.col.m8n8k32.global.s32";
        // b1
        strided B32 B32 B32 B32: "wmma.load.a.sync.aligned.row.m8n8k128.global.b1" "wmma.load.b.sync.aligned.col.m8n8k128.global.b1"
            "wmma.load.c.sync.aligned.row.m8n8k128.global.s32" "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32" "wmma.store.d.sync.aligned.row.m8n8k128.global.s32";
        strided B32 B32 B32 B32: "wmma.load.a.sync.aligned.row.m8n8k128.global.b1" "wmma.load.b.sync.aligned.col.m8n8k128.global.b1"
            "wmma.load.c.sync.aligned.col.m8n8k128.global.s32" "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32" "wmma.store.d.sync.aligned.col.m8n8k128.global.s32";
    )
}

fn run_all(gpu: Gpu, name: &str, cases: Vec<Case>) {
    let mut g = rng(name);
    let failed: Vec<String> = cases.iter().filter_map(|c| check(&mut Env::Gpu(&gpu), &mut g, c).err()).collect();
    assert!(failed.is_empty(), "{} of {} cases failed:\n{}", failed.len(), cases.len(), failed.join("\n"));
    println!("{name}: {} cases", cases.len());
}

fn wmma_float_cases(gpu: Gpu) {
    run_all(gpu, "wmma_float_cases", float_cases());
}

fn wmma_integer_and_b1_cases(gpu: Gpu) {
    run_all(gpu, "wmma_integer_and_b1_cases", integer_cases());
}

// ---- host-only checks ------------------------------------------------------------------------

fn all_cases() -> Vec<Case> {
    float_cases().into_iter().chain(integer_cases()).collect()
}

/// The data-type group of a case (A's type into D's, and the b1 operation), and its class,
/// over which every matrix must appear in both layouts the ISA allows.
fn group(s: &Spec) -> (String, &'static str) {
    let (a, d) = (s.a.el, s.d.el);
    let op = match s.op {
        Op::Mul => "",
        Op::And => " and",
        Op::Xor => " xor",
    };
    let class = match a {
        El::U8 | El::S8 => "8-bit",
        El::U4 | El::S4 => "4-bit",
        El::B1 => "b1",
        _ => "float",
    };
    (format!("{a:?}->{d:?}{op}"), class)
}

/// Bytes of the fragment a load writes or a store reads, from the table.
fn fragment_bytes(chain: &str) -> usize {
    let f = wmma::forms().iter().find(|f| f.chain == chain).unwrap_or_else(|| panic!("{chain} is not a wmma form"));
    let (t, n) = match (f.dst, f.src.get(1).copied()) {
        (ptxkit::ops::DstKind::Vec(t, n), _) | (_, Some(ptxkit::ops::Kind::Vec(t, n))) => (t, n),
        other => panic!("{chain}: no fragment in {other:?}"),
    };
    n as usize * t.bits() as usize / 8
}

/// Every chain is a form of the table, with the variant the case calls; the groups the
/// module docs name are all there, each group of floats (and each integer class) with every
/// matrix in both layouts where the ISA has them; explicit strides are multiples of 32
/// bytes, tiles 32-byte aligned, and pointers cast to the element's width.
fn cases_cover_every_group() {
    let cases = all_cases();
    let mut layouts: std::collections::BTreeMap<String, std::collections::BTreeSet<(usize, bool)>> = Default::default();
    let mut groups = std::collections::BTreeSet::new();
    for c in &cases {
        let s = &c.spec;
        for (i, chain) in s.chains.iter().enumerate() {
            let variant = if i != 3 && s.strided { "strided" } else { "plain" };
            assert!(wmma::forms().iter().any(|f| f.chain == *chain && f.variant == variant), "{chain} ({variant}) is not a wmma form");
        }
        let (g, class) = group(s);
        let key = if class == "float" { g.clone() } else { class.to_string() };
        groups.insert(g);
        for (i, m) in s.mats().iter().enumerate() {
            layouts.entry(key.clone()).or_default().insert((i, m.major == Major::Row));
            // Each row (column) starts at a multiple of its fragment's size in bytes ("Matrix
            // Storage for WMMA"), which is at most 32: so does each warp's tile.
            let frag = fragment_bytes(s.chains[if i == 3 { 4 } else { i }]);
            assert!(frag <= 32 && m.tile_bytes() % 32 == 0, "{}: matrix {i}", s.chains[3]);
            assert_eq!(m.ld * m.el.bits() / 8 % frag, 0, "{}: matrix {i}: stride {} for a {frag}-byte fragment", s.chains[3], m.ld);
            assert!(!s.strided || m.ld * m.el.bits() % 256 == 0, "{}: matrix {i}: stride {}", s.chains[3], m.ld);
            let width = c.widths[i] as usize;
            assert!(width == m.el.bits() || (m.el.bits() < 8 && width == 32), "{}: matrix {i} addressed as {width} bits", s.chains[3]);
        }
    }
    let groups: Vec<&str> = groups.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        groups,
        [
            "B1->S32 and",
            "B1->S32 xor",
            "Bf16->F32",
            "F16->F16",
            "F16->F32",
            "F64->F64",
            "S4->S32",
            "S8->S32",
            "Tf32->F32",
            "U4->S32",
            "U8->S32"
        ]
    );
    for (key, seen) in &layouts {
        // u4/s4 and b1: A row-major and B column-major only.
        let ab: &[(usize, bool)] =
            if key == "4-bit" || key == "b1" { &[(0, true), (1, false)] } else { &[(0, true), (0, false), (1, true), (1, false)] };
        let cd = [(2, true), (2, false), (3, true), (3, false)];
        assert!(ab.iter().chain(&cd).all(|x| seen.contains(x)), "{key}: layouts {seen:?}");
    }
    for op in ["", ".rn", ".rz", ".rm", ".rp"] {
        let chain = format!("m8n8k4{op}.f64");
        assert!(cases.iter().any(|c| c.spec.chains[3].contains(&chain)), "no f64 case with `{op}`");
    }
    assert!(cases.iter().any(|c| c.spec.sat) && cases.iter().any(|c| !c.spec.strided));
}

/// The host side against the CPU model, and the comparison catching a wrong element and a
/// write into a gap.
fn host_side_round_trips_through_a_cpu_model() {
    let mut g = rng("host_side_round_trips_through_a_cpu_model");
    let failed: Vec<String> = all_cases().iter().filter_map(|c| check(&mut Env::Cpu, &mut g, c).err()).collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    for c in all_cases() {
        let s = &c.spec;
        let round = Round::random(s, &mut g, Fill::Normal);
        let ins = [s.a.pack(&round.a), s.b.pack(&round.b), s.c.pack(&round.c)];
        let good = simulate(s, &ins);
        let mut wrong = good.clone();
        let i = s.d.index(WARPS - 1, s.m - 1, 0);
        put(&mut wrong, s.d.el, i, get(&good, s.d.el, i) ^ 1 << (s.d.el.bits() - 2));
        assert!(round.compare(s, &wrong, Fill::Normal).is_err(), "{}: a wrong element passed", s.chains[3]);
        if s.strided {
            let mut gap = good.clone();
            put(&mut gap, s.d.el, s.d.index(0, 0, 0) + if s.d.major == Major::Row { s.n } else { s.m }, 0);
            assert!(round.compare(s, &gap, Fill::Normal).is_err(), "{}: a written gap passed", s.chains[3]);
        }
    }
}

fn every_device_kernel_assembles() {
    let px = ptxas("every_device_kernel_assembles");
    let mut m = Module::new(Target::SM_90);
    let cases = all_cases();
    for (i, c) in cases.iter().enumerate() {
        build(&mut m, &format!("case{i}"), c);
    }
    let text = m.to_ptx().unwrap();
    ptxkit::ptxas::check_clean(&px, &text, m.target(), ptxkit::ptxas::Mode::Assemble).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text.matches("\twmma.mma.").count(), cases.len());
    assert_eq!(text.matches("\twmma.load.").count(), 3 * cases.len());
    println!("{} kernels assembled for sm_90", cases.len());
}

pub const TESTS: &[Test] = &[
    gpu!(wmma_float_cases),
    gpu!(wmma_integer_and_b1_cases),
    host!(cases_cover_every_group),
    host!(host_side_round_trips_through_a_cpu_model),
    host!(every_device_kernel_assembles),
];
