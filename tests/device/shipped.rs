//! The library's own kernels (`ptxkit::kernels`) against CPU references, at sizes with odd
//! tails: the copies, vector add and saxpy bit for bit; the two-pass sum and the three-phase
//! scan exactly on integer-valued inputs (whose sums f32 holds exactly) and within a bound
//! from their error model on random floats. Outputs are poisoned first; writes past `n`
//! are caught by a poisoned guard region after the output.

use super::*;
use ptxkit::kernels::{self, BLOCK, SCAN_BLOCK, SCAN_TILE, SUM_BLOCK};
use rand::Rng;

/// Sizes with every kind of tail: below one vector, below one block, one past a tile, and
/// large with a remainder of 1, 2 and 3 elements past a multiple of 4.
const SIZES: &[usize] = &[1, 3, 4, 5, 255, 1000, 4095, 4097, 65_537, 100_003, (1 << 20) + 2, (1 << 22) + 7];
/// Elements of poisoned guard after each output.
const GUARD: usize = 64;

fn under_sanitizer(n: usize) -> bool {
    sanitizing() && n > 1 << 16
}

/// `x` uploaded, and a poisoned output of `n + GUARD` elements.
fn io<T: Elem + Copy>(gpu: &Gpu, x: &[T]) -> (CudaSlice<T>, CudaSlice<T>) {
    (gpu.upload(x).unwrap(), poisoned::<T>(gpu, x.len() + GUARD).unwrap())
}

fn guard_untouched<T: Exact>(what: &str, out: &[T], n: usize, poison: T) {
    assert!(out[n..].iter().all(|v| v.same(&poison)), "{what}: a thread wrote past n = {n}");
}

fn copies_are_exact(gpu: Gpu) {
    let mut m = Module::new(target(&gpu));
    let (ks, kv) = (kernels::copy_scalar(&mut m).unwrap(), kernels::copy_v4(&mut m).unwrap());
    let module = load(&gpu, &m);
    let (ks, kv) = (module.kernel(&ks).unwrap(), module.kernel(&kv).unwrap());
    let mut g = rng("copies_are_exact");
    for &n in SIZES.iter().filter(|&&n| !under_sanitizer(n)) {
        let x: Vec<u32> = (0..n).map(|_| g.gen()).collect();
        for (name, k, blocks) in [("copy_scalar", &ks, n.div_ceil(256) as u32), ("copy_v4", &kv, kernels::blocks_for_copy_v4(n as u32))] {
            let (dx, mut dy) = io(&gpu, &x);
            let threads = if name == "copy_scalar" { 256 } else { BLOCK };
            k.launch(&Launch::new(blocks, threads), (&dx, &mut dy, n as u32)).unwrap();
            let y = gpu.download(&dy).unwrap();
            check(&format!("{name}, n = {n}"), |i| x[i], &y[..n], &x);
            guard_untouched(name, &y, n, u32::MAX);
        }
    }
}

fn vector_add_and_saxpy_are_exact(gpu: Gpu) {
    let mut m = Module::new(target(&gpu));
    let (ka, ks) = (kernels::vector_add(&mut m).unwrap(), kernels::saxpy(&mut m).unwrap());
    let module = load(&gpu, &m);
    let (ka, ks) = (module.kernel(&ka).unwrap(), module.kernel(&ks).unwrap());
    let mut g = rng("vector_add_and_saxpy_are_exact");
    for &n in SIZES.iter().filter(|&&n| !under_sanitizer(n)) {
        let a: Vec<f32> = (0..n).map(|_| g.gen_range(-1e3f32..1e3)).collect();
        let b: Vec<f32> = (0..n).map(|_| g.gen_range(-1e3f32..1e3)).collect();
        let alpha: f32 = g.gen_range(-4f32..4.0);
        let blocks = kernels::blocks_for_v4(n as u32);
        // c = a + b (add.rn.f32: the IEEE sum, as the CPU's).
        let (da, mut dc) = io(&gpu, &a);
        let db = gpu.upload(&b).unwrap();
        ka.launch(&Launch::new(blocks, BLOCK), (&da, &db, &mut dc, n as u32)).unwrap();
        let c = gpu.download(&dc).unwrap();
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        check(&format!("vector_add, n = {n}"), |i| (a[i], b[i]), &c[..n], &want);
        guard_untouched("vector_add", &c, n, f32::from_bits(u32::MAX));
        // y = alpha * x + y (fma.rn.f32: one rounding, as f32::mul_add).
        let mut yb = b.clone();
        yb.extend(std::iter::repeat_n(f32::from_bits(u32::MAX), GUARD));
        let mut dy = gpu.upload(&yb).unwrap();
        ks.launch(&Launch::new(blocks, BLOCK), (&da, &mut dy, alpha, n as u32)).unwrap();
        let y = gpu.download(&dy).unwrap();
        let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| alpha.mul_add(*x, *y)).collect();
        check(&format!("saxpy, n = {n}, alpha = {alpha}"), |i| (a[i], b[i]), &y[..n], &want);
        guard_untouched("saxpy", &y, n, f32::from_bits(u32::MAX));
    }
}

/// The error model of a float sum of `terms` values, in any order with every addition
/// rounded to nearest (`u = 2^-24`): |computed - exact| <= gamma(terms - 1) * sum |x|, with
/// gamma(k) = k u / (1 - k u) (Higham, Accuracy and Stability of Numerical Algorithms, 4.2).
/// It bounds the rounding of random floats; it is far too loose to notice an element
/// missed or counted twice, which the integer-valued inputs do.
fn sum_bound(terms: usize, abs_sum: f64) -> f64 {
    let ku = (terms.saturating_sub(1)) as f64 * f64::powi(2.0, -24);
    ku / (1.0 - ku) * abs_sum
}

/// The two kinds of inputs: nonzero small integers, whose every partial sum (below 2^24 in
/// size) is exact in f32, so the result must equal the exact sum and an element missed or
/// added shows; and random floats in [-1, 1), checked against [`sum_bound`].
fn inputs(g: &mut impl Rng, n: usize, integers: bool) -> Vec<f32> {
    if integers {
        (0..n).map(|_| [-2f32, -1.0, 1.0, 2.0][g.gen_range(0..4)]).collect()
    } else {
        (0..n).map(|_| g.gen_range(-1f32..1.0)).collect()
    }
}

fn two_pass_sum_is_exact_or_within_its_error_bound(gpu: Gpu) {
    let mut m = Module::new(target(&gpu));
    let (kp, kf) = (kernels::sum_partials(&mut m).unwrap(), kernels::sum_final(&mut m).unwrap());
    let module = load(&gpu, &m);
    let (kp, kf) = (module.kernel(&kp).unwrap(), module.kernel(&kf).unwrap());
    let blocks = gpu.multiprocessors() * (2048 / SUM_BLOCK as u32);
    let mut g = rng("two_pass_sum_is_exact_or_within_its_error_bound");
    for &n in SIZES.iter().filter(|&&n| !under_sanitizer(n)) {
        for integers in [true, false] {
            let x = inputs(&mut g, n, integers);
            let dx = gpu.upload(&x).unwrap();
            let mut partials = poisoned::<f32>(&gpu, blocks as usize).unwrap();
            let mut total = poisoned::<f32>(&gpu, 1).unwrap();
            kp.launch(&Launch::new(blocks, SUM_BLOCK as u32), (&dx, &mut partials, n as u32)).unwrap();
            kf.launch(&Launch::new(1, 1024), (&partials, &mut total, blocks)).unwrap();
            let got = gpu.download(&total).unwrap()[0] as f64;
            let exact: f64 = x.iter().map(|&v| v as f64).sum();
            let abs: f64 = x.iter().map(|&v| (v as f64).abs()).sum();
            // n values and `blocks` partials: at most n + blocks terms.
            let bound = if integers { 0.0 } else { sum_bound(n + blocks as usize, abs) };
            let err = (got - exact).abs();
            assert!(err <= bound, "sum of {n} (integers: {integers}): GPU {got}, exact {exact}, error {err:.3e} > bound {bound:.3e}");
            if integers && n > 1 {
                // The check sees one element left out (none is zero).
                kp.launch(&Launch::new(blocks, SUM_BLOCK as u32), (&dx, &mut partials, n as u32 - 1)).unwrap();
                kf.launch(&Launch::new(1, 1024), (&partials, &mut total, blocks)).unwrap();
                let short = gpu.download(&total).unwrap()[0] as f64;
                assert_eq!(short, exact - x[n - 1] as f64, "sum of the first {} of {n}", n - 1);
            }
        }
    }
}

fn three_phase_scan_is_exact_or_within_its_error_bound(gpu: Gpu) {
    let mut m = Module::new(target(&gpu));
    let (ks, kp, kt) =
        (kernels::scan_tile_sums(&mut m).unwrap(), kernels::scan_tile_prefix(&mut m).unwrap(), kernels::scan_tiles(&mut m).unwrap());
    let module = load(&gpu, &m);
    let (ks, kp, kt) = (module.kernel(&ks).unwrap(), module.kernel(&kp).unwrap(), module.kernel(&kt).unwrap());
    let mut g = rng("three_phase_scan_is_exact_or_within_its_error_bound");
    for &n in SIZES.iter().filter(|&&n| !under_sanitizer(n)) {
        for integers in [true, false] {
            let x = inputs(&mut g, n, integers);
            let tiles = (n as u32).div_ceil(SCAN_TILE);
            let (dx, mut dy) = io(&gpu, &x);
            let mut sums = poisoned::<f32>(&gpu, tiles as usize).unwrap();
            let mut prefix = poisoned::<f32>(&gpu, tiles as usize).unwrap();
            ks.launch(&Launch::new(tiles, SCAN_BLOCK as u32), (&dx, &mut sums, n as u32)).unwrap();
            kp.launch(&Launch::new(1, 1024), (&sums, &mut prefix, tiles)).unwrap();
            kt.launch(&Launch::new(tiles, SCAN_BLOCK as u32), (&dx, &mut dy, &prefix, n as u32)).unwrap();
            let y = gpu.download(&dy).unwrap();
            let (mut exact, mut abs) = (0f64, 0f64);
            for i in 0..n {
                exact += x[i] as f64;
                abs += (x[i] as f64).abs();
                // y[i] adds i + 1 values; the tile prefixes add the earlier tiles' sums, at
                // most one more term per tile.
                let bound = if integers { 0.0 } else { sum_bound(i + 1 + tiles as usize, abs) };
                let err = (y[i] as f64 - exact).abs();
                assert!(
                    err <= bound,
                    "scan of {n} (integers: {integers}): y[{i}] = {}, exact {exact}, error {err:.3e} > bound {bound:.3e}",
                    y[i]
                );
            }
            guard_untouched("scan_tiles", &y, n, f32::from_bits(u32::MAX));
        }
    }
}

pub const TESTS: &[Test] = &[
    gpu!(copies_are_exact),
    gpu!(vector_add_and_saxpy_are_exact),
    gpu!(two_pass_sum_is_exact_or_within_its_error_bound),
    gpu!(three_phase_scan_is_exact_or_within_its_error_bound),
];
