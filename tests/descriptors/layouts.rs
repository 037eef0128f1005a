//! Tile layouts checked against an independent model of what the tensor cores read, the
//! address function on its own, and the PTX ISA's worked examples.

use ptxkit::descriptors::{DescError, ElemBytes, Major, SmemDesc, Swizzle, TileLayout};

// ---------------------------------------------------------------------------------------
// The model: the PTX ISA's canonical layouts (9.7.15.5.1.2.1.3), read from the descriptor
// ---------------------------------------------------------------------------------------

/// Shared address of element (`mn`, `kk`) of the K-slice that descriptor `d` describes,
/// `kk` < one slice, from the CuTe forms in the PTX ISA's "Canonical Layouts" table, with
/// T = 16 / elem bytes, w = swizzle bytes / 16, and the swizzle applied to the absolute
/// address. It reads only the descriptor's bits, never the TileLayout.
fn canonical_addr(d: SmemDesc, major: Major, eb: u32, mn: u32, kk: u32) -> u32 {
    canonical_addr_of(d.start_addr(), d.lbo(), d.sbo(), d.swizzle(), major, eb, mn, kk)
}

/// [`canonical_addr`] from the descriptor's fields, for any descriptor that has them (the
/// tcgen05 descriptor's are the same, see `tcgen05.rs`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn canonical_addr_of(start: u32, lbo: u32, sbo: u32, sw: Swizzle, major: Major, eb: u32, mn: u32, kk: u32) -> u32 {
    let t = 16 / eb;
    let w = sw.bytes() / 16;
    let plain = match (major, sw) {
        // ((8,m),(T,2k)):((1T,SBO),(1,LBO))
        (Major::K, Swizzle::None) => (mn % 8) * 16 + (mn / 8) * sbo + (kk % t) * eb + (kk / t) * lbo,
        // ((8,m),(T,2k)):((wT,SBO),(1,T)), one slice (k = 1): the K index is contiguous
        (Major::K, _) => (mn % 8) * w * 16 + (mn / 8) * sbo + kk * eb,
        // ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
        (Major::MN, Swizzle::None) => (mn % t) * eb + (mn / t) * sbo + (kk % 8) * 16 + (kk / 8) * lbo,
        // ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))
        (Major::MN, _) => (mn % t) * eb + (mn / t % w) * 16 + (mn / (t * w)) * lbo + (kk % 8) * w * 16 + (kk / 8) * sbo,
    };
    sw.apply(start + plain)
}

/// The first element where the model, given descriptor `d` for slice `k`, and the layout's
/// `offset` disagree.
fn model_mismatch(l: &TileLayout, base: u32, k: u32, d: SmemDesc) -> Option<(u32, u32, u32, u32)> {
    let (eb, ks) = (l.elem().bytes(), l.elem().k_slice());
    for mn in 0..l.rows() {
        for kk in 0..ks {
            let model = canonical_addr(d, l.major(), eb, mn, kk);
            let ours = base + l.offset(mn, k * ks + kk);
            if model != ours {
                return Some((mn, k * ks + kk, model, ours));
            }
        }
    }
    None
}

/// Tiles of every element width, major-ness and swizzle the layout accepts, at a few sizes.
pub(crate) fn all_tiles() -> Vec<TileLayout> {
    let mut v = vec![];
    for e in ElemBytes::ALL {
        let (eb, ks) = (e.bytes(), e.k_slice());
        for s in Swizzle::ALL {
            let w = s.bytes();
            // K-major: swizzled rows are exactly w bytes; unswizzled any number of slices
            let kcols: Vec<u32> = if s == Swizzle::None { vec![ks, 4 * ks] } else { vec![w / eb] };
            for &c in &kcols {
                for r in [8, 64, 136] {
                    v.push(TileLayout::new(e, r, c, Major::K, s).unwrap());
                }
            }
            if e == ElemBytes::B2 {
                for r in [w / eb, 64, 128, 256] {
                    for c in [16, 64] {
                        if r % (w / eb) == 0 {
                            v.push(TileLayout::new(e, r, c, Major::MN, s).unwrap());
                        }
                    }
                }
            }
        }
    }
    v
}

#[test]
fn descriptors_match_the_canonical_layouts_for_every_k_slice() {
    let tiles = all_tiles();
    // K-major: 3 widths x (2 x 3 unswizzled + 3 swizzles x 3); MN-major: 4 swizzles x 4 x 2
    assert_eq!(tiles.len(), 45 + 32, "tiles enumerated");
    let mut checked = 0;
    for l in &tiles {
        for base in [0, 3 * l.base_alignment(), 0x1_0000] {
            for k in 0..l.k_steps() {
                let d = l.k_desc(base, k).unwrap();
                assert_eq!(d.base_offset(), 0);
                assert_eq!(d.swizzle(), l.swizzle());
                if l.major() == Major::K && l.swizzle() != Swizzle::None {
                    assert_eq!(d.lbo(), 16, "{l}: LBO of a swizzled K-major tile is 'assumed 1'");
                }
                assert_eq!(model_mismatch(l, base, k, d), None, "{l} at {base:#x}, slice {k}");
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked} slices checked");
}

#[test]
fn the_model_check_catches_wrong_strides_and_steps() {
    // LBO and SBO swapped, a step of one slice too few, and a wrong swizzle must all be seen.
    let cases = [
        TileLayout::new(ElemBytes::B2, 128, 64, Major::MN, Swizzle::B128).unwrap(),
        TileLayout::new(ElemBytes::B2, 64, 32, Major::K, Swizzle::None).unwrap(),
        TileLayout::new(ElemBytes::B2, 32, 32, Major::MN, Swizzle::None).unwrap(),
        TileLayout::new(ElemBytes::B1, 64, 64, Major::K, Swizzle::B64).unwrap(),
    ];
    for l in cases {
        let d = l.desc(0).unwrap();
        let swapped = SmemDesc::new(0, d.sbo(), d.lbo(), 0, d.swizzle()).unwrap();
        assert!(model_mismatch(&l, 0, 0, swapped).is_some(), "{l}: swapped LBO/SBO unnoticed");
        assert!(model_mismatch(&l, 0, 1, d).is_some(), "{l}: slice 1 read at slice 0's address unnoticed");
        let other = if l.swizzle() == Swizzle::B32 { Swizzle::B64 } else { Swizzle::B32 };
        let wrong = SmemDesc::new(0, d.lbo(), d.sbo(), 0, other).unwrap();
        assert!(model_mismatch(&l, 0, 0, wrong).is_some(), "{l}: wrong swizzle unnoticed");
    }
}

#[test]
fn k_step_offset_is_the_offset_of_the_slices_first_element() {
    for l in all_tiles() {
        for k in 0..l.k_steps() {
            assert_eq!(l.k_step_offset(k).unwrap(), l.offset(0, k * l.elem().k_slice()), "{l} slice {k}");
        }
        let n = l.k_steps();
        assert_eq!(l.k_step_offset(n), Err(DescError::KStep { k: n, steps: n }));
    }
}

// ---------------------------------------------------------------------------------------
// The address function on its own: bijection, contiguous chunks, bank groups
// ---------------------------------------------------------------------------------------

/// Checks that `f` maps each of `rows` × `cols` elements of `eb` bytes into `0..bytes`,
/// onto every byte exactly once, and keeps each 16-byte chunk of the contiguous dimension
/// contiguous and 16-byte aligned.
fn check_bijection(rows: u32, cols: u32, eb: u32, major: Major, f: &dyn Fn(u32, u32) -> u32) -> Result<(), String> {
    let bytes = rows * cols * eb;
    let mut seen = vec![false; bytes as usize];
    let per_chunk = 16 / eb;
    for r in 0..rows {
        for c in 0..cols {
            let o = f(r, c);
            if o + eb > bytes {
                return Err(format!("({r},{c}) at {o} is outside {bytes} bytes"));
            }
            for b in o..o + eb {
                if std::mem::replace(&mut seen[b as usize], true) {
                    return Err(format!("({r},{c}) at {o} overlaps another element"));
                }
            }
            let x = if major == Major::K { c } else { r };
            if x % per_chunk == 0 {
                if !o.is_multiple_of(16) {
                    return Err(format!("chunk of ({r},{c}) starts at {o}, not 16-byte aligned"));
                }
            } else {
                let prev = if major == Major::K { f(r, c - 1) } else { f(r - 1, c) };
                if o != prev + eb {
                    return Err(format!("({r},{c}) at {o} does not follow its chunk neighbour at {prev}"));
                }
            }
        }
    }
    Ok(()) // every byte seen once: bytes elements*eb were placed without overlap
}

/// Checks that, for each fixed 16-byte chunk of the contiguous dimension, the 8 lines of
/// every atom land in 8 distinct 16-byte bank groups (`offset % 128 / 16`).
fn check_bank_groups(rows: u32, cols: u32, eb: u32, major: Major, f: &dyn Fn(u32, u32) -> u32) -> Result<(), String> {
    let per_chunk = 16 / eb;
    let (lines, along) = if major == Major::K { (rows, cols) } else { (cols, rows) };
    for first in (0..lines).step_by(8) {
        for x in (0..along).step_by(per_chunk as usize) {
            let mut groups = 0u8;
            for line in first..first + 8 {
                let o = if major == Major::K { f(line, x) } else { f(x, line) };
                groups |= 1 << (o % 128 / 16);
            }
            if groups != 0xFF {
                return Err(format!("lines {first}..{} at chunk {x} share bank groups ({groups:#010b})", first + 8));
            }
        }
    }
    Ok(())
}

#[test]
fn offsets_are_a_bijection_with_contiguous_chunks() {
    for l in all_tiles() {
        let r = check_bijection(l.rows(), l.cols(), l.elem().bytes(), l.major(), &|r, c| l.offset(r, c));
        assert_eq!(r, Ok(()), "{l}");
    }
}

#[test]
fn each_atom_line_hits_its_own_bank_group() {
    for l in all_tiles() {
        let r = check_bank_groups(l.rows(), l.cols(), l.elem().bytes(), l.major(), &|r, c| l.offset(r, c));
        assert_eq!(r, Ok(()), "{l}");
    }
}

#[test]
fn the_checks_reject_broken_address_functions() {
    // 64 rows of 128 bytes, bf16, K-major: plain row-major puts all 8 rows of a column in
    // one bank group; the bijection holds.
    let plain = |r: u32, c: u32| r * 128 + c * 2;
    assert!(check_bijection(64, 64, 2, Major::K, &plain).is_ok());
    assert!(check_bank_groups(64, 64, 2, Major::K, &plain).is_err());
    // an XOR of whole bytes breaks chunk contiguity
    let bytewise = |r: u32, c: u32| (r * 128 + c * 2) ^ ((r % 8) * 2);
    assert!(check_bijection(64, 64, 2, Major::K, &bytewise).is_err());
    // two elements on one address
    let clash = |r: u32, c: u32| if r == 1 && c == 0 { 0 } else { r * 128 + c * 2 };
    assert!(check_bijection(64, 64, 2, Major::K, &clash).is_err());
    // a swizzle applied to element indices, not bytes: still a bijection with whole
    // chunks, but rows 2i and 2i+1 share a bank group
    let elementwise = |r: u32, c: u32| Swizzle::B128.apply(r * 64 + c) * 2;
    assert!(check_bijection(64, 64, 2, Major::K, &elementwise).is_ok());
    assert!(check_bank_groups(64, 64, 2, Major::K, &elementwise).is_err());
}

// ---------------------------------------------------------------------------------------
// The PTX ISA's worked examples (9.7.15.5.1.2.1.3), element strides as printed there
// ---------------------------------------------------------------------------------------

/// A CuTe layout `((s0,s1,..),(t0,t1,..)):((d0,d1,..),(e0,e1,..))` in elements: the
/// shape and stride of the M/N mode, then of the K mode.
type Cute = ([u32; 3], [u32; 3], [u32; 2], [u32; 2]);

/// Byte offset of (mn, k) in the CuTe layout `l` (shapes padded with 1s) for elements of
/// `eb` bytes, unswizzled.
fn cute(l: &Cute, eb: u32, mn: u32, k: u32) -> u32 {
    let (ms, md, ks, kd) = l;
    let mut acc = 0;
    let mut x = mn;
    for (s, d) in ms.iter().zip(md) {
        acc += (x % s) * d;
        x /= s;
    }
    let mut x = k;
    for (s, d) in ks.iter().zip(kd) {
        acc += (x % s) * d;
        x /= s;
    }
    acc * eb
}

#[test]
fn the_ptx_isa_examples() {
    // K-major, no swizzle, tf32: ((8,2),(4,4)):((4,32),(1,64)); LBO 64*4, SBO 32*4
    let l = TileLayout::new(ElemBytes::B4, 16, 16, Major::K, Swizzle::None).unwrap();
    assert_eq!((l.lbo(), l.sbo()), (256, 128));
    // MN-major, no swizzle, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)); LBO 128*2, SBO 64*2
    let m0 = TileLayout::new(ElemBytes::B2, 16, 16, Major::MN, Swizzle::None).unwrap();
    assert_eq!((m0.lbo(), m0.sbo()), (256, 128));
    // MN-major, 32B, bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)); LBO 128*2, SBO 256*2
    let m32 = TileLayout::new(ElemBytes::B2, 32, 16, Major::MN, Swizzle::B32).unwrap();
    assert_eq!((m32.lbo(), m32.sbo()), (256, 512));
    // MN-major, 64B, bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)); LBO 256*2, SBO 512*2
    let m64 = TileLayout::new(ElemBytes::B2, 64, 16, Major::MN, Swizzle::B64).unwrap();
    assert_eq!((m64.lbo(), m64.sbo()), (512, 1024));
    // K-major, 32B, tf32: SBO 64*4 (the example's K of 16 tf32 does not fit a 32-byte row;
    // one slice of 8 is what the 32B atom holds)
    let k32 = TileLayout::new(ElemBytes::B4, 16, 8, Major::K, Swizzle::B32).unwrap();
    assert_eq!(k32.sbo(), 256);

    let exact: [(&TileLayout, Cute); 4] = [
        (&l, ([8, 2, 1], [4, 32, 0], [4, 4], [1, 64])),
        (&m0, ([8, 1, 2], [1, 8, 64], [8, 2], [8, 128])),
        (&m32, ([8, 2, 2], [1, 8, 128], [8, 2], [16, 256])),
        (&m64, ([8, 4, 2], [1, 8, 256], [8, 2], [32, 512])),
    ];
    for (t, layout) in exact {
        for r in 0..t.rows() {
            for c in 0..t.cols() {
                let doc = t.swizzle().apply(cute(&layout, t.elem().bytes(), r, c));
                assert_eq!(t.offset(r, c), doc, "{t} at ({r},{c})");
            }
        }
    }
}

#[test]
fn unswizzled_offsets_by_hand() {
    // K-major bf16 16x32, no swizzle: core matrix (row/8, col/8) at (row/8 + (col/8)*2)*128.
    // (9, 10): core (1, 1) -> (1 + 2) * 128 = 384, line 1 -> +16, col 10 % 8 = 2 -> +4.
    let l = TileLayout::new(ElemBytes::B2, 16, 32, Major::K, Swizzle::None).unwrap();
    assert_eq!(l.offset(9, 10), 404);
    assert_eq!(l.offset(0, 8), 256);
    assert_eq!(l.offset(15, 31), 3 * 128 + 2 * 256 + 7 * 16 + 14);
    // MN-major bf16 16x16: core (row/8, col/8) at (row/8 + (col/8)*2)*128, line = col % 8.
    let m = TileLayout::new(ElemBytes::B2, 16, 16, Major::MN, Swizzle::None).unwrap();
    assert_eq!(m.offset(9, 10), 3 * 128 + 2 * 16 + 2);
}
