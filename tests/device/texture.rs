//! Textures and surfaces on the GPU against CPU models, on fresh random data with poisoned
//! outputs:
//!
//! - a 37 x 23 texture of four-channel f32 texels read with `tex.2d` with point filtering:
//!   at integer and fractional float coordinates with the clamp address mode (unnormalised
//!   coordinates; with a random offset, `as offset`, and the residency predicate), at
//!   normalised coordinates with the wrap mode, and at integer (`.s32`) coordinates inside
//!   the texture;
//! - the same texture with linear filtering against a CPU bilinear model. The hardware
//!   keeps the weights α and β in 9-bit fixed point with 8 fractional bits, so each may
//!   differ from the exact one by up to 1/256. The blend is bilinear in (α, β): moving α by
//!   `da` and β by `db` moves it by `da·∂α + db·∂β + da·db·(T11 - T10 - T01 + T00)`, with
//!   `|∂α| <= max(|T10 - T00|, |T11 - T01|)` and `|∂β| <= max(|T01 - T00|, |T11 - T10|)`.
//!   So each sample's tolerance is `max(|T10 - T00|, |T11 - T01|)/256 + max(|T01 - T00|,
//!   |T11 - T10|)/256 + |T11 - T10 - T01 + T00|/65536`, plus 1e-6 for the float arithmetic;
//! - `tex.a2d` lookups in a three-layer array (the layer index first in the coordinates,
//!   the list padded for PTX);
//! - `tld4` gathers of each component of the 2 x 2 footprint;
//! - `txq` width and height;
//! - `suld`/`sust` round trips over a 2-D surface (vector, scalar and byte loads at byte
//!   offsets, the `.zero` mode past each edge and `.clamp` past the top), `sured` add/min/max from 65,536
//!   threads against a CPU reduction, `suq` width and height;
//! - not `istypep`: on texture and surface *objects* the H100 (driver 580) answered false
//!   for every type in the 2026-11-25 run (the ISA describes it for references), so it is
//!   assembled by ptxas only (`tests/textures.rs`);
//! - textures over a linear and a pitched buffer; and the runtime's refusals of bad
//!   parameters before the driver sees them.
//!
//! Fractional coordinates keep 0.05 texel away from the boundaries where the texel picked
//! changes, so the hardware's fixed-point coordinates cannot pick another texel.

use super::*;
use ptxkit::runtime::{AddressMode, ArrayDesc, CudaArray, FilterMode, ReadMode, RuntimeError, SurfObject, TexObject, TextureDesc};
use rand::rngs::StdRng;
use rand::Rng;

pub const TESTS: &[Test] = &[
    gpu!(point_sampling_clamp_wrap_and_integer_coordinates),
    gpu!(linear_filtering_within_the_weight_tolerance),
    gpu!(layered_lookups_pick_their_layer),
    gpu!(gathers_and_queries),
    gpu!(surface_loads_and_stores_round_trip),
    gpu!(surface_reductions_from_many_threads),
    gpu!(textures_over_linear_and_pitched_buffers),
    gpu!(bad_parameters_are_refused_first),
];

const W: usize = 37;
const H: usize = 23;
const SAMPLES: usize = 1 << 14;

type Texels = Vec<[f32; 4]>;

fn random_texels(g: &mut StdRng) -> Texels {
    (0..W * H).map(|_| std::array::from_fn(|_| g.gen_range(-1.0f32..1.0))).collect()
}

fn texel(t: &Texels, x: i64, y: i64) -> [f32; 4] {
    t[(y.clamp(0, H as i64 - 1) as usize) * W + x.clamp(0, W as i64 - 1) as usize]
}

fn image(gpu: &Gpu, t: &Texels, gather: bool) -> CudaArray<[f32; 4]> {
    let desc = if gather { ArrayDesc::d2(W, H).gather() } else { ArrayDesc::d2(W, H) };
    let mut a = gpu.array::<[f32; 4]>(&desc).unwrap();
    a.upload(t).unwrap();
    a
}

/// A coordinate `f` of the way into texel `i` (0.05 <= f <= 0.95), `shift` added (0.5 to
/// put the texel's centre at a whole number, for filtering and gathers).
fn inside(g: &mut StdRng, i: i64, shift: f32) -> f32 {
    i as f32 + shift + g.gen_range(0.05f32..0.95)
}

type LookupParams = (Texture, GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<U32>, Reg<U32>);

/// `out[i] = f(tex, xs[i], ys[i])` (four values) and `aux[i] = g`'s `u32` for each sample,
/// on the GPU; both outputs poisoned first.
fn lookup(
    gpu: &Gpu,
    tex: &TexObject,
    xs: &[f32],
    ys: &[f32],
    f: impl FnOnce(&mut Kernel, Texture, Reg<F32>, Reg<F32>) -> ([Reg<F32>; 4], Reg<U32>),
) -> (Vec<[f32; 4]>, Vec<u32>) {
    let mut m = Module::new(target(gpu));
    let kr = m
        .kernel("lookup", |k, (tex, x, y, out, aux, n): LookupParams| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let (xv, yv) = (k.ld(x.at(i)), k.ld(y.at(i)));
                let (v, a) = f(k, tex, xv, yv);
                let base = ptx!(k, "mul.lo.u32", i, 4u32);
                for (c, r) in v.into_iter().enumerate() {
                    k.st(out.at(base).offset(c as i64), r);
                }
                k.st(aux.at(i), a);
            });
        })
        .unwrap();
    let module = load(gpu, &m);
    let (dx, dy) = (gpu.upload(xs).unwrap(), gpu.upload(ys).unwrap());
    let mut out = poisoned::<f32>(gpu, 4 * xs.len()).unwrap();
    let mut aux = poisoned::<u32>(gpu, xs.len()).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(xs.len() as u32, 256), (tex, &dx, &dy, &mut out, &mut aux, xs.len() as u32)).unwrap();
    let out = gpu.download(&out).unwrap();
    (out.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(), gpu.download(&aux).unwrap())
}

fn compare(what: &str, xs: &[f32], ys: &[f32], got: &[[f32; 4]], want: &[[f32; 4]]) {
    let flat = |v: &[[f32; 4]]| v.iter().flatten().copied().collect::<Vec<f32>>();
    check(what, |i| (xs[i / 4], ys[i / 4], i % 4), &flat(got), &flat(want));
}

fn point_sampling_clamp_wrap_and_integer_coordinates(gpu: Gpu) {
    let mut g = rng("point_sampling_clamp_wrap_and_integer_coordinates");
    let t = random_texels(&mut g);
    let array = image(&gpu, &t, false);

    // Clamp, unnormalised: half the samples at whole-number coordinates, half inside texels,
    // from four texels before the edge to four past it.
    let clamp = TexObject::array(&array, &TextureDesc::default()).unwrap();
    let (mut xs, mut ys) = (vec![], vec![]);
    for s in 0..SAMPLES {
        let (i, j) = (g.gen_range(-4..W as i64 + 4), g.gen_range(-4..H as i64 + 4));
        let whole = s % 2 == 0;
        xs.push(if whole { i as f32 } else { inside(&mut g, i, 0.0) });
        ys.push(if whole { j as f32 } else { inside(&mut g, j, 0.0) });
    }
    let want: Texels = xs.iter().zip(&ys).map(|(x, y)| texel(&t, x.floor() as i64, y.floor() as i64)).collect();
    let (got, resident) = lookup(&gpu, &clamp, &xs, &ys, |k, tex, x, y| {
        let (v, p) = ptx!(k, "tex.2d.v4.f32.f32" as resident, tex.at([x, y]));
        (v, ptx!(k, "selp.u32", 1u32, 0u32, p))
    });
    compare("tex.2d point clamp", &xs, &ys, &got, &want);
    assert!(resident.iter().all(|r| *r == 1), "a texel of a plain array reads as not resident");

    // The same lookups with an offset of -8 to 7 texels in each direction, per sample.
    let offsets: Vec<i32> = (0..2 * SAMPLES).map(|_| g.gen_range(-8..8)).collect();
    let want: Texels = (0..SAMPLES)
        .map(|s| texel(&t, xs[s].floor() as i64 + offsets[2 * s] as i64, ys[s].floor() as i64 + offsets[2 * s + 1] as i64))
        .collect();
    let got = lookup_offset(&gpu, &clamp, &xs, &ys, &offsets);
    compare("tex.2d point clamp with offsets", &xs, &ys, &got, &want);

    // Wrap, normalised: coordinates from two widths before the texture to three past it.
    let wrap_desc = TextureDesc { address: [AddressMode::Wrap; 3], normalized_coords: true, ..Default::default() };
    let wrap = TexObject::array(&array, &wrap_desc).unwrap();
    let (mut us, mut vs, mut want) = (vec![], vec![], vec![]);
    for _ in 0..SAMPLES {
        let (i, j) = (g.gen_range(-2 * W as i64..3 * W as i64), g.gen_range(-2 * H as i64..3 * H as i64));
        let (u, v) = (inside(&mut g, i, 0.0) / W as f32, inside(&mut g, j, 0.0) / H as f32);
        let (ti, tj) = (((u as f64) * W as f64).floor() as i64, ((v as f64) * H as f64).floor() as i64);
        us.push(u);
        vs.push(v);
        want.push(texel(&t, ti.rem_euclid(W as i64), tj.rem_euclid(H as i64)));
    }
    let (got, _) = lookup(&gpu, &wrap, &us, &vs, |k, tex, x, y| (ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y])), ptx!(k, "mov.u32", 0u32)));
    compare("tex.2d point wrap (normalised)", &us, &vs, &got, &want);

    // Integer coordinates (`.s32`): the texel itself (inside the texture: the ISA defines
    // the address modes for coordinates, but CUDA documents none for integer ones).
    let (mut is, mut js) = (vec![], vec![]);
    for _ in 0..SAMPLES {
        is.push(g.gen_range(0..W as i32) as f32);
        js.push(g.gen_range(0..H as i32) as f32);
    }
    let want: Texels = is.iter().zip(&js).map(|(x, y)| texel(&t, *x as i64, *y as i64)).collect();
    let (got, _) = lookup(&gpu, &clamp, &is, &js, |k, tex, x, y| {
        let (xi, yi) = (ptx!(k, "cvt.rzi.s32.f32", x), ptx!(k, "cvt.rzi.s32.f32", y));
        (ptx!(k, "tex.2d.v4.f32.s32", tex.at([xi, yi])), ptx!(k, "mov.u32", 0u32))
    });
    compare("tex.2d.v4.f32.s32", &is, &js, &got, &want);
}

/// `tex.2d ... as offset` at `(xs[i], ys[i])` with the offset `(offsets[2i], offsets[2i+1])`.
fn lookup_offset(gpu: &Gpu, tex: &TexObject, xs: &[f32], ys: &[f32], offsets: &[i32]) -> Vec<[f32; 4]> {
    let mut m = Module::new(target(gpu));
    type P = (Texture, GlobalPtr<F32>, GlobalPtr<F32>, GlobalPtr<S32>, GlobalPtr<F32>, Reg<U32>);
    let kr = m
        .kernel("offsets", |k, (tex, x, y, off, out, n): P| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, n);
            k.if_(inb, |k| {
                let (xv, yv) = (k.ld(x.at(i)), k.ld(y.at(i)));
                let two = ptx!(k, "mul.lo.u32", i, 2u32);
                let (dx, dy) = (k.ld(off.at(two)), k.ld(off.at(two).offset(1)));
                let v = ptx!(k, "tex.2d.v4.f32.f32" as offset, tex.at([xv, yv]), [dx, dy]);
                let base = ptx!(k, "mul.lo.u32", i, 4u32);
                for (c, r) in v.into_iter().enumerate() {
                    k.st(out.at(base).offset(c as i64), r);
                }
            });
        })
        .unwrap();
    let module = load(gpu, &m);
    let (dx, dy, doff) = (gpu.upload(xs).unwrap(), gpu.upload(ys).unwrap(), gpu.upload(offsets).unwrap());
    let mut out = poisoned::<f32>(gpu, 4 * xs.len()).unwrap();
    module.kernel(&kr).unwrap().launch(&Launch::cover(xs.len() as u32, 256), (tex, &dx, &dy, &doff, &mut out, xs.len() as u32)).unwrap();
    gpu.download(&out).unwrap().chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

fn linear_filtering_within_the_weight_tolerance(gpu: Gpu) {
    let mut g = rng("linear_filtering_within_the_weight_tolerance");
    let t = random_texels(&mut g);
    let array = image(&gpu, &t, false);
    let tex = TexObject::array(&array, &TextureDesc { filter: FilterMode::Linear, ..Default::default() }).unwrap();
    let xs: Vec<f32> = (0..SAMPLES).map(|_| g.gen_range(-2.0f32..W as f32 + 2.0)).collect();
    let ys: Vec<f32> = (0..SAMPLES).map(|_| g.gen_range(-2.0f32..H as f32 + 2.0)).collect();
    let (got, _) = lookup(&gpu, &tex, &xs, &ys, |k, tex, x, y| (ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y])), ptx!(k, "mov.u32", 0u32)));
    let (mut worst, mut bad) = (0.0f64, vec![]);
    for s in 0..SAMPLES {
        let (xb, yb) = (xs[s] as f64 - 0.5, ys[s] as f64 - 0.5);
        let (i, j) = (xb.floor() as i64, yb.floor() as i64);
        let (a, b) = (xb - i as f64, yb - j as f64);
        for c in 0..4 {
            let v = |di: i64, dj: i64| texel(&t, i + di, j + dj)[c] as f64;
            let (t00, t10, t01, t11) = (v(0, 0), v(1, 0), v(0, 1), v(1, 1));
            let exact = (1.0 - a) * (1.0 - b) * t00 + a * (1.0 - b) * t10 + (1.0 - a) * b * t01 + a * b * t11;
            // The blend's slope in each weight, bounded over the other weight's range, and
            // its twist (the cross term of moving both).
            let (da, db) = ((t10 - t00).abs().max((t11 - t01).abs()), (t01 - t00).abs().max((t11 - t10).abs()));
            let tol = (da + db) / 256.0 + (t11 - t10 - t01 + t00).abs() / 65536.0 + 1e-6;
            let err = (got[s][c] as f64 - exact).abs();
            worst = worst.max(err / tol);
            if !(err <= tol) {
                bad.push((s, c, xs[s], ys[s], got[s][c], exact, tol));
            }
        }
    }
    println!("linear filtering: worst error {:.3} of its tolerance", worst);
    assert!(bad.is_empty(), "{} of {} values outside the tolerance; first {:?}", bad.len(), 4 * SAMPLES, bad[0]);
}

fn layered_lookups_pick_their_layer(gpu: Gpu) {
    let mut g = rng("layered_lookups_pick_their_layer");
    let layers = 3usize;
    let t: Texels = (0..layers * W * H).map(|_| std::array::from_fn(|_| g.gen_range(-1.0f32..1.0))).collect();
    let mut array = gpu.array::<[f32; 4]>(&ArrayDesc::layered_2d(W, H, layers)).unwrap();
    array.upload(&t).unwrap();
    let tex = TexObject::array(&array, &TextureDesc::default()).unwrap();
    let (mut xs, mut ys, mut want) = (vec![], vec![], vec![]);
    for s in 0..SAMPLES {
        let (i, j) = (g.gen_range(0..W as i64), g.gen_range(0..H as i64));
        xs.push(inside(&mut g, i, 0.0));
        ys.push(inside(&mut g, j, 0.0));
        want.push(t[(s % layers) * W * H + j as usize * W + i as usize]);
    }
    let (got, _) = lookup(&gpu, &tex, &xs, &ys, |k, tex, x, y| {
        let i = k.global_thread_index_x();
        let layer = ptx!(k, "rem.u32", i, layers as u32);
        (ptx!(k, "tex.a2d.v4.f32.f32", tex.at((layer, x, y))), ptx!(k, "mov.u32", 0u32))
    });
    compare("tex.a2d point", &xs, &ys, &got, &want);
}

fn gathers_and_queries(gpu: Gpu) {
    let mut g = rng("gathers_and_queries");
    let t = random_texels(&mut g);
    let array = image(&gpu, &t, true);
    let tex = TexObject::array(&array, &TextureDesc::default()).unwrap();
    let (mut xs, mut ys) = (vec![], vec![]);
    for _ in 0..SAMPLES {
        {
            let c = g.gen_range(-3..W as i64 + 2);
            xs.push(inside(&mut g, c, 0.5));
        }
        {
            let c = g.gen_range(-3..H as i64 + 2);
            ys.push(inside(&mut g, c, 0.5));
        }
    }
    // The 2 x 2 footprint counter-clockwise from the lower left: (i, j+1), (i+1, j+1),
    // (i+1, j), (i, j), with (i, j) the texel before the sample point in x and y.
    let footprint = |c: usize| -> Texels {
        xs.iter()
            .zip(&ys)
            .map(|(x, y)| {
                let (i, j) = ((*x as f64 - 0.5).floor() as i64, (*y as f64 - 0.5).floor() as i64);
                [texel(&t, i, j + 1)[c], texel(&t, i + 1, j + 1)[c], texel(&t, i + 1, j)[c], texel(&t, i, j)[c]]
            })
            .collect()
    };
    let q = |k: &mut Kernel, tex: Texture| {
        let w = ptx!(k, "txq.width.b32", tex);
        let h = ptx!(k, "txq.height.b32", tex);
        let wh = ptx!(k, "shl.b32", h, 16u32);
        ptx!(k, "or.b32", w, wh).bitcast::<U32>()
    };
    let (r, dims) = lookup(&gpu, &tex, &xs, &ys, |k, tex, x, y| (ptx!(k, "tld4.r.2d.v4.f32.f32", tex.at([x, y])), q(k, tex)));
    compare("tld4.r", &xs, &ys, &r, &footprint(0));
    let (gr, _) = lookup(&gpu, &tex, &xs, &ys, |k, tex, x, y| (ptx!(k, "tld4.g.2d.v4.f32.f32", tex.at([x, y])), q(k, tex)));
    compare("tld4.g", &xs, &ys, &gr, &footprint(1));
    let (b, _) = lookup(&gpu, &tex, &xs, &ys, |k, tex, x, y| (ptx!(k, "tld4.b.2d.v4.f32.f32", tex.at([x, y])), q(k, tex)));
    compare("tld4.b", &xs, &ys, &b, &footprint(2));
    let (a, _) = lookup(&gpu, &tex, &xs, &ys, |k, tex, x, y| (ptx!(k, "tld4.a.2d.v4.f32.f32", tex.at([x, y])), q(k, tex)));
    compare("tld4.a", &xs, &ys, &a, &footprint(3));
    let want = (W | H << 16) as u32;
    assert!(dims.iter().all(|d| *d == want), "txq width | height << 16: {:#x}, want {want:#x}", dims[0]);
}

/// A W x H surface of four-u32 texels (16 bytes each), uploaded from random values.
fn surface_array(gpu: &Gpu, g: &mut StdRng) -> (CudaArray<[u32; 4]>, Vec<[u32; 4]>) {
    let data: Vec<[u32; 4]> = (0..W * H).map(|_| g.gen()).collect();
    let mut a = gpu.array::<[u32; 4]>(&ArrayDesc::d2(W, H).surface()).unwrap();
    a.upload(&data).unwrap();
    (a, data)
}

fn surface_loads_and_stores_round_trip(gpu: Gpu) {
    let mut g = rng("surface_loads_and_stores_round_trip");
    let (mut src, data) = surface_array(&gpu, &mut g);
    let mut dst = gpu.array::<[u32; 4]>(&ArrayDesc::d2(W, H).surface()).unwrap();
    dst.upload(&vec![[u32::MAX; 4]; W * H]).unwrap();
    let mut m = Module::new(target(&gpu));
    let cells = W * H;
    // out: per cell, the scalar load of word 1, its byte 1, and four out-of-bounds loads.
    type P = (Surface, Surface, GlobalPtr<U32>);
    let kr = m
        .kernel("round_trip", |k, (a, b, out): P| {
            let i = k.global_thread_index_x();
            let inb = ptx!(k, "setp.lt.u32", i, cells as u32);
            k.if_(inb, |k| {
                let y = ptx!(k, "div.u32", i, W as u32);
                let x = ptx!(k, "rem.u32", i, W as u32);
                let xb = ptx!(k, "mul.lo.u32", x, 16u32);
                let [v0, v1, v2, v3] = ptx!(k, "suld.b.2d.v4.b32.trap", a.at([xb, y]));
                // Stored reversed, the last word plus one and the first xor the x coordinate,
                // into the mirrored row of the other surface.
                let w0 = ptx!(k, "add.u32", v3.bitcast::<U32>(), 1u32).bitcast::<B32>();
                let w3 = ptx!(k, "xor.b32", v0, x.bitcast::<B32>());
                let yr = ptx!(k, "sub.u32", (H - 1) as u32, y);
                ptx!(k, "sust.b.2d.v4.b32.trap", b.at([xb, yr]), [w0, v2, v1, w3]);
                let xb4 = ptx!(k, "add.u32", xb, 4u32);
                let s = ptx!(k, "suld.b.2d.cg.b32.trap", a.at([xb4, y]));
                let xb5 = ptx!(k, "add.u32", xb, 5u32);
                let byte = ptx!(k, "suld.b.2d.b8.trap", a.at([xb5, y]));
                let byte = ptx!(k, "cvt.u32.u8", byte.bitcast::<U8>());
                // Out of bounds: three texels past the right edge, two rows above the top.
                let past = ptx!(k, "add.u32", xb, (W as u32 + 3) * 16);
                let above = ptx!(k, "sub.s32", y.bitcast::<S32>(), (H as i32) + 2);
                // `.clamp` past the right edge is not checked: the x coordinate of `suld.b` is
                // in bytes, and on the H100 (driver 580) the clamped 16-byte read did not
                // return the row's last texel (every cell differed in the 2026-11-25 run); the
                // ISA does not say how a byte address is clamped.
                let [z0, _, _, _] = ptx!(k, "suld.b.2d.v4.b32.zero", a.at([past, y]));
                let c0 = ptx!(k, "mov.b32", 0u32);
                let [z1, _, _, _] = ptx!(k, "suld.b.2d.v4.b32.zero", a.at((xb.bitcast::<S32>(), above)));
                let [c1, _, _, _] = ptx!(k, "suld.b.2d.v4.b32.clamp", a.at((xb.bitcast::<S32>(), above)));
                let base = ptx!(k, "mul.lo.u32", i, 6u32);
                for (j, r) in [s, byte.bitcast::<B32>(), z0, c0, z1, c1].into_iter().enumerate() {
                    k.st(out.cast::<B32>().at(base).offset(j as i64), r);
                }
            });
        })
        .unwrap();
    let module = load(&gpu, &m);
    let mut out = poisoned::<u32>(&gpu, 6 * cells).unwrap();
    {
        let (a, b) = (SurfObject::new(&mut src).unwrap(), SurfObject::new(&mut dst).unwrap());
        module.kernel(&kr).unwrap().launch(&Launch::cover(cells as u32, 128), (&a, &b, &mut out)).unwrap();
    }
    let moved = dst.download().unwrap();
    let mut want = vec![[0u32; 4]; cells];
    for y in 0..H {
        for x in 0..W {
            let v = data[y * W + x];
            want[(H - 1 - y) * W + x] = [v[3].wrapping_add(1), v[2], v[1], v[0] ^ x as u32];
        }
    }
    let flat = |v: &[[u32; 4]]| v.iter().flatten().copied().collect::<Vec<u32>>();
    check("sust.b.2d.v4 of suld.b.2d.v4", |i| (i / 4 % W, i / 4 / W, i % 4), &flat(&moved), &flat(&want));
    let out = gpu.download(&out).unwrap();
    let mut want = vec![];
    for y in 0..H {
        for x in 0..W {
            let v = data[y * W + x];
            // `.zero` reads zeros; `.clamp` above the top the nearest texel (the top row's).
            want.extend([v[1], (v[1] >> 8) & 0xFF, 0, 0, 0, data[x][0]]);
        }
    }
    check("suld scalar, byte, .zero and .clamp", |i| (i / 6 % W, i / 6 / W, i % 6), &out, &want);
}

fn surface_reductions_from_many_threads(gpu: Gpu) {
    let mut g = rng("surface_reductions_from_many_threads");
    // Three 8 x 4 regions side by side: add, min, max.
    let (cw, ch) = (8usize, 4usize);
    let init: Vec<u32> = (0..3 * cw * ch).map(|_| g.gen_range(0..1 << 20)).collect();
    let mut arr = gpu.array::<u32>(&ArrayDesc::d2(3 * cw, ch).surface()).unwrap();
    arr.upload(&init).unwrap();
    let threads = 1usize << 16;
    let cell: Vec<u32> = (0..threads).map(|_| g.gen_range(0..(cw * ch) as u32)).collect();
    let vals: Vec<u32> = (0..threads).map(|_| g.gen()).collect();
    let mut m = Module::new(target(&gpu));
    type P = (Surface, GlobalPtr<U32>, GlobalPtr<U32>, GlobalPtr<U32>);
    let kr = m
        .kernel("reduce", |k, (s, cells, values, dims): P| {
            let i = k.global_thread_index_x();
            let (c, v) = (k.ld(cells.at(i)), k.ld(values.at(i)));
            let y = ptx!(k, "div.u32", c, cw as u32);
            let x = ptx!(k, "rem.u32", c, cw as u32);
            let xb = ptx!(k, "mul.lo.u32", x, 4u32);
            let small = ptx!(k, "shr.u32", v, 20u32);
            ptx!(k, "sured.b.add.2d.u32.trap", s.at([xb, y]), small);
            let xmin = ptx!(k, "add.u32", xb, (cw * 4) as u32);
            ptx!(k, "sured.b.min.2d.u32.trap", s.at([xmin, y]), v);
            let xmax = ptx!(k, "add.u32", xb, (2 * cw * 4) as u32);
            ptx!(k, "sured.b.max.2d.u32.trap", s.at([xmax, y]), v);
            let first = ptx!(k, "setp.eq.u32", i, 0u32);
            k.if_(first, |k| {
                let w = ptx!(k, "suq.width.b32", s);
                let h = ptx!(k, "suq.height.b32", s);
                k.st(dims.cast::<B32>().offset(0), w);
                k.st(dims.cast::<B32>().offset(1), h);
            });
        })
        .unwrap();
    let module = load(&gpu, &m);
    let (dc, dv) = (gpu.upload(&cell).unwrap(), gpu.upload(&vals).unwrap());
    let mut dims = poisoned::<u32>(&gpu, 2).unwrap();
    {
        let s = SurfObject::new(&mut arr).unwrap();
        module.kernel(&kr).unwrap().launch(&Launch::cover(threads as u32, 256), (&s, &dc, &dv, &mut dims)).unwrap();
    }
    let mut want = init.clone();
    for (c, v) in cell.iter().zip(&vals) {
        let (x, y) = (*c as usize % cw, *c as usize / cw);
        let at = |region: usize| y * 3 * cw + region * cw + x;
        want[at(0)] = want[at(0)].wrapping_add(v >> 20);
        want[at(1)] = want[at(1)].min(*v);
        want[at(2)] = want[at(2)].max(*v);
    }
    check("sured add/min/max", |i| (i % (3 * cw), i / (3 * cw)), &arr.download().unwrap(), &want);
    assert_eq!(gpu.download(&dims).unwrap(), [(3 * cw) as u32, ch as u32], "suq width, height");
}

fn textures_over_linear_and_pitched_buffers(gpu: Gpu) {
    let mut g = rng("textures_over_linear_and_pitched_buffers");
    let n = 5000usize;
    let data: Vec<f32> = (0..n).map(|_| g.gen_range(-10.0f32..10.0)).collect();
    let buf = gpu.upload(&data).unwrap();
    let lin = TexObject::linear(&buf, &TextureDesc::default()).unwrap();
    // Element indices (a linear texture has no address modes: CUDA leaves reads past the
    // end undefined).
    let idx: Vec<f32> = (0..SAMPLES).map(|_| g.gen_range(0..n as i32) as f32).collect();
    let zeros = vec![0.0f32; SAMPLES];
    let (got, _) = lookup(&gpu, &lin, &idx, &zeros, |k, tex, x, _| {
        let xi = ptx!(k, "cvt.rzi.s32.f32", x);
        (ptx!(k, "tex.1d.v4.f32.s32", tex.at([xi])), ptx!(k, "mov.u32", 0u32))
    });
    let got_r: Vec<f32> = got.iter().map(|v| v[0]).collect();
    let want: Vec<f32> = idx.iter().map(|i| data[*i as usize]).collect();
    check("tex.1d over a linear buffer", |i| idx[i], &got_r, &want);

    // A pitched 2-D texture: W x H of f32, rows 64 elements (256 bytes) apart.
    let pitch = 64usize;
    let img: Vec<f32> = (0..pitch * H).map(|_| g.gen_range(-10.0f32..10.0)).collect();
    let pbuf = gpu.upload(&img).unwrap();
    let tex = TexObject::pitch2d(&pbuf, W, H, pitch, &TextureDesc::default()).unwrap();
    let (mut xs, mut ys) = (vec![], vec![]);
    for _ in 0..SAMPLES {
        {
            let c = g.gen_range(-2..W as i64 + 2);
            xs.push(inside(&mut g, c, 0.0));
        }
        {
            let c = g.gen_range(-2..H as i64 + 2);
            ys.push(inside(&mut g, c, 0.0));
        }
    }
    let (got, _) = lookup(&gpu, &tex, &xs, &ys, |k, tex, x, y| (ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y])), ptx!(k, "mov.u32", 0u32)));
    let got_r: Vec<f32> = got.iter().map(|v| v[0]).collect();
    let want: Vec<f32> = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| {
            let (i, j) = ((x.floor() as i64).clamp(0, W as i64 - 1) as usize, (y.floor() as i64).clamp(0, H as i64 - 1) as usize);
            img[j * pitch + i]
        })
        .collect();
    check("tex.2d over a pitched buffer", |i| (xs[i], ys[i]), &got_r, &want);
}

fn bad_parameters_are_refused_first(gpu: Gpu) {
    let invalid = |r: Result<(), RuntimeError>, what: &str| match r {
        Err(RuntimeError::Invalid(m)) => assert!(m.contains(what), "`{m}` does not say `{what}`"),
        other => panic!("expected a refusal saying `{what}`, got {other:?}"),
    };
    invalid(gpu.array::<f32>(&ArrayDesc::d2(0, 4)).map(drop), "needs a width");
    invalid(gpu.array::<f32>(&ArrayDesc::d1(64).gather()).map(drop), "2-D arrays only");
    invalid(gpu.array::<f32>(&ArrayDesc::d2(1 << 20, 4)).map(drop), "exceeds this device's");
    invalid(gpu.array::<f32>(&ArrayDesc { layers: 2, ..ArrayDesc::d3(4, 4, 4) }).map(drop), "1-D or 2-D");
    let mut bytes = gpu.array::<u8>(&ArrayDesc::d2(16, 16)).unwrap();
    invalid(bytes.upload(&[0; 255]), "255 values for an array of 256");
    let linear = TextureDesc { filter: FilterMode::Linear, ..Default::default() };
    invalid(TexObject::array(&bytes, &linear).map(drop), "linear filtering returns floats");
    assert!(TexObject::array(&bytes, &TextureDesc { read: ReadMode::NormalizedFloat, ..linear }).is_ok());
    let wrap = TextureDesc { address: [AddressMode::Wrap; 3], ..Default::default() };
    invalid(TexObject::array(&bytes, &wrap).map(drop), "need normalized coordinates");
    invalid(SurfObject::new(&mut bytes).map(drop), "ArrayDesc::surface");
    let buf = gpu.zeros::<f32>(4096).unwrap();
    invalid(TexObject::linear(&buf, &linear).map(drop), "point filtering");
    invalid(TexObject::pitch2d(&buf, 37, 16, 37, &TextureDesc::default()).map(drop), "not a multiple");
    invalid(TexObject::pitch2d(&buf, 64, 65, 64, &TextureDesc::default()).map(drop), "do not fit");
}
