//! tcgen05 shared-memory descriptors of tile layouts, checked against the canonical-layout
//! model of `layouts.rs`: CUTLASS's `make_umma_desc` (include/cute/atom/mma_traits_sm100.hpp)
//! documents the same canonical forms for UMMA as for GMMA, in 16-byte units, so the model
//! that reads a wgmma descriptor reads a tcgen05 one from the same fields.

use super::layouts::{all_tiles, canonical_addr_of};
use ptxkit::descriptors::{AtomOrder, ElemBytes, LboMode, Major, Swizzle, Tcgen05SmemDesc, TileLayout};

/// The first element of slice `k` where the model, reading `d`, and the layout disagree.
fn mismatch(l: &TileLayout, base: u32, k: u32, d: Tcgen05SmemDesc) -> Option<(u32, u32, u32, u32)> {
    let (eb, ks) = (l.elem().bytes(), l.elem().k_slice());
    let sw = d.swizzle().swizzle().expect("a TileLayout swizzle");
    for mn in 0..l.rows() {
        for kk in 0..ks {
            let model = canonical_addr_of(d.start_addr(), d.lbo(), d.sbo(), sw, l.major(), eb, mn, kk);
            let ours = base + l.offset(mn, k * ks + kk);
            if model != ours {
                return Some((mn, k * ks + kk, model, ours));
            }
        }
    }
    None
}

/// The wgmma tiles, plus the MN-major 1-byte tiles only tcgen05 takes, in both atom orders.
fn tiles() -> Vec<TileLayout> {
    let mut v = all_tiles();
    for s in Swizzle::ALL {
        let w = s.bytes();
        for r in [w, 192, 256] {
            for c in [32, 64] {
                if r % w == 0 {
                    v.push(TileLayout::new_tcgen05(ElemBytes::B1, r, c, Major::MN, s).unwrap());
                }
            }
        }
    }
    let k_first: Vec<_> = v.iter().map(|l| l.with_order(AtomOrder::KFirst)).collect();
    v.extend(k_first);
    v
}

#[test]
fn tcgen05_descriptors_match_the_canonical_layouts_for_every_k_slice() {
    let tiles = tiles();
    // 77 wgmma tiles; MN-major e4m3: r in {w, 192, 256} where a multiple of w (3 each for
    // none, 32B, 64B; 2 for 128B) x 2 K extents = 22; both orders
    assert_eq!(tiles.len(), 2 * (77 + 22));
    let mut checked = 0;
    for l in &tiles {
        for base in [0, 3 * l.base_alignment(), 0x1_0000] {
            for k in 0..l.k_steps() {
                let d = l.tcgen05_k_desc(base, k).unwrap();
                assert_eq!((d.version(), d.base_offset(), d.lbo_mode()), (1, 0, LboMode::Relative));
                assert_eq!(d.swizzle().swizzle(), Some(l.swizzle()));
                assert_eq!(mismatch(l, base, k, d), None, "{l} at {base:#x}, slice {k}");
                checked += 1;
            }
        }
    }
    assert!(checked > 800, "{checked} slices checked");
}

#[test]
fn the_model_sees_a_wrong_step_for_one_byte_mn_major() {
    // K-slice 1 of an e4m3 MN-major tile is 32 K-lines on; a step of 16 lines (the bf16
    // step) must be caught.
    let l = TileLayout::new_tcgen05(ElemBytes::B1, 128, 64, Major::MN, Swizzle::B128).unwrap();
    let d = l.tcgen05_desc(0).unwrap();
    let half = d.add_start_offset(l.k_step_offset(1).unwrap() / 2).unwrap();
    assert!(mismatch(&l, 0, 1, half).is_some());
    assert_eq!(mismatch(&l, 0, 1, l.tcgen05_k_desc(0, 1).unwrap()), None);
}
