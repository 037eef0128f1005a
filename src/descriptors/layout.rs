//! Canonical GMMA tile layouts: where each element of a wgmma operand tile lives in shared
//! memory, and the descriptor that tells the tensor cores so.
//!
//! # The layout
//!
//! A tile has `rows` (its M or N extent) and `cols` (its K extent). Its *contiguous*
//! dimension is K for [`Major::K`] and M/N for [`Major::MN`]. The tile is a grid of
//! swizzle atoms; an atom is 8 lines of `w = swizzle.bytes()` bytes (w = 16 for no swizzle,
//! where the atom is the 128-byte "core matrix"), each line `w` bytes of the contiguous
//! dimension, the 8 lines consecutive indices of the other one. Atoms are stored M/N-index
//! first by default ([`AtomOrder::MnFirst`]): atom `(i, j)` (i along M/N, j along K) starts
//! at `(i + j * atoms_along_mn) * 8w`; [`AtomOrder::KFirst`] stores them K-index first,
//! at `(j + i * atoms_along_k) * 8w`, which is what one TMA box of an MN-major operand
//! writes (`w` bytes of M/N by all of K) when the tile is several boxes wide.
//! Inside an atom, line `l` starts at `l * w`; then the swizzle XOR is applied to the whole
//! tile offset. This is CuTe's `tile_to_shape(Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom,
//! (rows, cols))` (NVIDIA/cutlass include/cute/atom/mma_traits_sm90_gmma.hpp), and it
//! reproduces every worked example of the PTX ISA's "Canonical Layouts" section
//! (9.7.15.5.1.2.1.3): K-major no-swizzle tf32 `((8,2),(4,4)):((4,32),(1,64))`,
//! MN-major no-swizzle bf16 `((8,1,2),(8,2)):((1,8,64),(8,128))`, MN-major 32B bf16
//! `((8,2,2),(8,2)):((1,8,128),(16,256))`, MN-major 64B bf16 `((8,4,2),(8,2)):((1,8,256),(32,512))`.
//!
//! # LBO and SBO
//!
//! From the PTX ISA definitions (9.7.15.5.1.2.1.1/2, strides in a matrix of 128-bit
//! elements; "rows" there are M/N, "columns" K) and CUTLASS `make_gmma_desc`:
//!
//! | major | swizzle | LBO                                   | SBO                                  |
//! |-------|---------|---------------------------------------|--------------------------------------|
//! | K     | none    | next 16 B of K: `rows * 16`           | next 8 rows: 128                     |
//! | K     | 32/64/128B | unused, "assumed 1": 16            | next 8 rows: `8 * w` (256/512/1024)  |
//! | MN    | none    | next 8 K: `rows * elem * 8`           | next 16 B of M/N: 128                |
//! | MN    | 32/64/128B | next `w` B of M/N: `8 * w`         | next 8 K: `rows * elem * 8`          |
//!
//! (For MN-major the roles turn around: SBO steps along M/N for no swizzle, along K when
//! swizzled.) The values are those of the M/N-first order; in general each is the distance
//! between neighbouring atoms along the dimension named, so K-first storage (as DeepGEMM's
//! sm90 `make_gmma_desc` has for MN-major tiles) changes the values, not their meaning:
//! an MN-major 128B tile K-first has LBO `cols * 128` and SBO 1024.
//!
//! # Stepping along K
//!
//! One dense wgmma reads a K-slice of 32 bytes: 16 f16/bf16, 8 tf32 or 32 8-bit elements
//! (`wgmma.mma_async.sp` reads twice that K from B; not covered here). The
//! descriptor for slice `k` is the tile's descriptor with its start address advanced by
//! [`TileLayout::k_step_offset`]: `32 * k` bytes inside the swizzled row for K-major
//! swizzled tiles (the XOR uses absolute address bits, so the base offset stays 0 — as
//! CUTLASS's `DescriptorIterator` and DeepGEMM's `advance_gmma_desc_lo` do), two atom
//! columns (`2 * k * LBO`) for K-major unswizzled, and 16 K-lines (`2 * k` atoms along K)
//! for MN-major bf16 (32 K-lines, `4 * k` atoms, for the 1-byte MN-major tiles that
//! [`TileLayout::new_tcgen05`] admits). A dense tcgen05.mma reads the same 32 bytes of K
//! (K = 16, 8, 32 for f16, tf32, 8-bit kinds), so the offsets serve both instruction
//! families; see `descriptors::tcgen05` for the tcgen05 descriptor.

use super::desc::SmemDesc;
use super::error::DescError;
use super::operand::{ElemBytes, Major, K_SLICE_BYTES, SHARED_WINDOW};
use super::swizzle::Swizzle;
use std::fmt;

/// The order in which a tile's swizzle atoms follow each other in shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AtomOrder {
    /// Neighbours along M/N are adjacent (CuTe's `tile_to_shape` order).
    #[default]
    MnFirst,
    /// Neighbours along K are adjacent: the order of TMA boxes that each span one swizzle
    /// row of M/N and all of K.
    KFirst,
}

/// The canonical shared-memory layout of one wgmma operand tile (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileLayout {
    elem: ElemBytes,
    rows: u32,
    cols: u32,
    major: Major,
    swizzle: Swizzle,
    order: AtomOrder,
}

const fn dim_err(dim: &'static str, value: u32, multiple: u32, unit: &'static str) -> DescError {
    DescError::Dimension { dim, value, multiple, unit }
}

impl TileLayout {
    /// The layout of a `rows` × `cols` tile (M or N × K, in elements) of `elem`-wide
    /// elements, `major`-major, with `swizzle`. Errors: MN-major with other than 2-byte
    /// elements; a K-major swizzled tile whose row (`cols * elem`) is not exactly the
    /// swizzle width; `cols` not a multiple of the wgmma K-slice; `rows` not a multiple
    /// of the atom (8 rows K-major, one swizzle row MN-major); a tile over 256 KiB.
    pub const fn new(elem: ElemBytes, rows: u32, cols: u32, major: Major, swizzle: Swizzle) -> Result<TileLayout, DescError> {
        if matches!(major, Major::MN) && elem.bytes() != 2 {
            return Err(DescError::ElemWidth { major, elem });
        }
        Self::build(elem, rows, cols, major, swizzle)
    }

    /// The layout of a tcgen05.mma operand tile: as [`new`](Self::new), except that an
    /// MN-major tile may also hold 1-byte elements (tcgen05 transposes e4m3, e5m2, s8 and
    /// u8 operands; wgmma does not). An MN-major tf32 tile is an error: tcgen05 transposes
    /// tf32 only in the 128-byte swizzle with 32-byte atoms, which `TileLayout` does not
    /// model. Its descriptor is [`tcgen05_desc`](Self::tcgen05_desc).
    ///
    /// ```
    /// use ptxkit::descriptors::{ElemBytes, Major, Swizzle, TileLayout};
    /// // 256 (N) x 64 (K) e4m3, N contiguous: two 128-byte atoms along N, 8 along K.
    /// let t = TileLayout::new_tcgen05(ElemBytes::B1, 256, 64, Major::MN, Swizzle::B128)?;
    /// assert_eq!((t.lbo(), t.sbo()), (1024, 2048));
    /// assert_eq!(t.k_step_offset(1)?, 8192); // 32 K-lines of 256 bytes
    /// assert!(TileLayout::new_tcgen05(ElemBytes::B4, 64, 32, Major::MN, Swizzle::B128).is_err());
    /// # Ok::<(), ptxkit::descriptors::DescError>(())
    /// ```
    pub const fn new_tcgen05(elem: ElemBytes, rows: u32, cols: u32, major: Major, swizzle: Swizzle) -> Result<TileLayout, DescError> {
        if matches!(major, Major::MN) && elem.bytes() == 4 {
            return Err(DescError::Unsupported {
                kind: "tcgen05 MN-major tf32 tile",
                what: "tf32 is transposed only with the 128B swizzle of 32-byte atoms, which TileLayout does not model",
            });
        }
        Self::build(elem, rows, cols, major, swizzle)
    }

    const fn build(elem: ElemBytes, rows: u32, cols: u32, major: Major, swizzle: Swizzle) -> Result<TileLayout, DescError> {
        let eb = elem.bytes();
        let w = swizzle.bytes();
        let kslice = elem.k_slice();
        if cols == 0 || !cols.is_multiple_of(kslice) {
            return Err(dim_err("cols", cols, kslice, "the wgmma K-slice: 32 bytes of K"));
        }
        match major {
            Major::K => {
                if !matches!(swizzle, Swizzle::None) && cols as u64 * eb as u64 != w as u64 {
                    return Err(DescError::RowWidth { swizzle, row_bytes: cols as u64 * eb as u64 });
                }
                if rows == 0 || !rows.is_multiple_of(8) {
                    return Err(dim_err("rows", rows, 8, "the 8 rows of an atom"));
                }
            }
            Major::MN => {
                if rows == 0 || !rows.is_multiple_of(w / eb) {
                    return Err(dim_err("rows", rows, w / eb, "one swizzle row of M/N"));
                }
            }
        }
        let bytes = rows as u64 * cols as u64 * eb as u64;
        if bytes > SHARED_WINDOW as u64 {
            return Err(DescError::OutOfRange { field: "tile size", value: bytes, max: SHARED_WINDOW as u64 });
        }
        Ok(TileLayout { elem, rows, cols, major, swizzle, order: AtomOrder::MnFirst })
    }

    /// The same tile with its atoms stored in `order`.
    ///
    /// ```
    /// use ptxkit::descriptors::{AtomOrder, ElemBytes, Major, Swizzle, TileLayout};
    /// // A 256 (N) × 64 (K) bf16 MN-major tile written by four TMA boxes of 64 N × 64 K.
    /// let t = TileLayout::new(ElemBytes::B2, 256, 64, Major::MN, Swizzle::B128)?.with_order(AtomOrder::KFirst);
    /// assert_eq!((t.lbo(), t.sbo()), (8192, 1024));
    /// assert_eq!(t.offset(64, 0), 8192); // the second box
    /// assert_eq!(t.k_step_offset(1)?, 2048); // 16 K-lines on
    /// # Ok::<(), ptxkit::descriptors::DescError>(())
    /// ```
    pub const fn with_order(self, order: AtomOrder) -> TileLayout {
        TileLayout { order, ..self }
    }

    /// The order of the atoms.
    pub const fn order(&self) -> AtomOrder {
        self.order
    }

    /// Element width.
    pub const fn elem(&self) -> ElemBytes {
        self.elem
    }

    /// M or N extent, in elements.
    pub const fn rows(&self) -> u32 {
        self.rows
    }

    /// K extent, in elements.
    pub const fn cols(&self) -> u32 {
        self.cols
    }

    /// Major-ness.
    pub const fn major(&self) -> Major {
        self.major
    }

    /// Swizzle mode.
    pub const fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// Size of the tile in bytes.
    pub const fn bytes(&self) -> u32 {
        self.rows * self.cols * self.elem.bytes()
    }

    /// Bytes of the contiguous dimension in the whole tile (the length of one M/N line
    /// of an MN-major tile, of one row of a K-major tile).
    const fn contiguous_bytes(&self) -> u32 {
        match self.major {
            Major::K => self.cols * self.elem.bytes(),
            Major::MN => self.rows * self.elem.bytes(),
        }
    }

    /// Number of atoms along M/N.
    const fn atoms_along_mn(&self) -> u32 {
        match self.major {
            Major::K => self.rows / 8,
            Major::MN => self.contiguous_bytes() / self.swizzle.bytes(),
        }
    }

    /// Number of atoms along K.
    const fn atoms_along_k(&self) -> u32 {
        match self.major {
            Major::K => self.contiguous_bytes() / self.swizzle.bytes(),
            Major::MN => self.cols / 8,
        }
    }

    /// Byte distance between atoms that are neighbours along K.
    const fn atom_stride_k(&self) -> u32 {
        match self.order {
            AtomOrder::MnFirst => self.atoms_along_mn() * self.swizzle.period(),
            AtomOrder::KFirst => self.swizzle.period(),
        }
    }

    /// Byte distance between atoms that are neighbours along M/N.
    const fn atom_stride_mn(&self) -> u32 {
        match self.order {
            AtomOrder::MnFirst => self.swizzle.period(),
            AtomOrder::KFirst => self.atoms_along_k() * self.swizzle.period(),
        }
    }

    /// The leading-dimension byte offset the descriptor carries (table in the module docs).
    pub const fn lbo(&self) -> u32 {
        match (self.major, self.swizzle) {
            (Major::K, Swizzle::None) => self.atom_stride_k(),
            (Major::K, _) => 16,
            (Major::MN, Swizzle::None) => self.atom_stride_k(),
            (Major::MN, _) => self.atom_stride_mn(),
        }
    }

    /// The stride-dimension byte offset the descriptor carries (table in the module docs).
    pub const fn sbo(&self) -> u32 {
        match (self.major, self.swizzle) {
            (Major::K, _) => self.atom_stride_mn(),
            (Major::MN, Swizzle::None) => self.atom_stride_mn(),
            (Major::MN, _) => self.atom_stride_k(),
        }
    }

    /// The alignment the tile's base address needs: the swizzle period (1024, 512, 256)
    /// or 16 bytes unswizzled.
    pub const fn base_alignment(&self) -> u32 {
        self.swizzle.base_alignment()
    }

    /// The descriptor of this tile placed at shared address `base_addr`, which must be a
    /// multiple of [`base_alignment`](Self::base_alignment); the whole tile must lie below
    /// the 256 KiB the descriptor can address. Base offset 0.
    pub const fn desc(&self, base_addr: u32) -> Result<SmemDesc, DescError> {
        let align = self.base_alignment();
        if !base_addr.is_multiple_of(align) {
            return Err(DescError::Misaligned { field: "tile base address", value: base_addr as u64, align });
        }
        let end = base_addr as u64 + self.bytes() as u64;
        if end > SHARED_WINDOW as u64 {
            return Err(DescError::OutOfRange { field: "tile end address", value: end, max: SHARED_WINDOW as u64 });
        }
        SmemDesc::new(base_addr, self.lbo(), self.sbo(), 0, self.swizzle)
    }

    /// Byte offset of element (`row`, `col`) — row along M/N, col along K — from the
    /// tile's base, swizzle applied: a kernel fills the tile by storing element (r, c) at
    /// `base + offset(r, c)`. Panics if `row >= rows()` or `col >= cols()`.
    pub const fn offset(&self, row: u32, col: u32) -> u32 {
        assert!(row < self.rows && col < self.cols, "TileLayout::offset: element outside the tile");
        let eb = self.elem.bytes();
        let w = self.swizzle.bytes();
        // (byte along the contiguous dimension, index along the other one)
        let (cont, line, mn_atom, k_atom) = match self.major {
            Major::K => (col * eb, row, row / 8, col * eb / w),
            Major::MN => (row * eb, col, row * eb / w, col / 8),
        };
        let start = mn_atom * self.atom_stride_mn() + k_atom * self.atom_stride_k();
        let plain = start + (line % 8) * w + cont % w;
        self.swizzle.apply(plain)
    }

    /// Number of wgmma K-slices the tile holds: `cols / elem.k_slice()`.
    pub const fn k_steps(&self) -> u32 {
        self.cols / self.elem.k_slice()
    }

    /// Bytes to add to the descriptor's start address for the `k`-th K-slice (the
    /// slice's first element, `offset(0, k * k_slice)`): `32k` for K-major swizzled,
    /// `2k * LBO` for K-major unswizzled, `k * k_slice / 8` atoms along K for MN-major
    /// (`2k` for 16-bit elements).
    pub const fn k_step_offset(&self, k: u32) -> Result<u32, DescError> {
        let steps = self.k_steps();
        if k >= steps {
            return Err(DescError::KStep { k, steps });
        }
        Ok(match (self.major, self.swizzle) {
            (Major::K, Swizzle::None) => 2 * k * self.lbo(),
            (Major::K, _) => K_SLICE_BYTES * k,
            // a slice is k_slice K-lines, 8 to an atom (2 atoms for 16-bit elements)
            (Major::MN, _) => k * (self.elem.k_slice() / 8) * self.atom_stride_k(),
        })
    }

    /// The descriptor of the `k`-th K-slice of this tile at `base_addr`:
    /// `desc(base_addr)` advanced by `k_step_offset(k)`.
    pub const fn k_desc(&self, base_addr: u32, k: u32) -> Result<SmemDesc, DescError> {
        let d = match self.desc(base_addr) {
            Ok(d) => d,
            Err(e) => return Err(e),
        };
        match self.k_step_offset(k) {
            Ok(off) => d.add_start_offset(off),
            Err(e) => Err(e),
        }
    }
}

impl fmt::Display for TileLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}x{} {}-byte {} tile, {}{} ({} bytes, LBO {}, SBO {})",
            self.rows,
            self.cols,
            self.elem.bytes(),
            self.major,
            self.swizzle,
            if matches!(self.order, AtomOrder::KFirst) { ", atoms K-first" } else { "" },
            self.bytes(),
            self.lbo(),
            self.sbo()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(e: ElemBytes, r: u32, c: u32, m: Major, s: Swizzle) -> TileLayout {
        TileLayout::new(e, r, c, m, s).unwrap()
    }

    #[test]
    fn lbo_sbo_by_hand() {
        // (layout, LBO, SBO) worked out from the table in the module docs
        let cases = [
            (t(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128), 16, 1024),
            (t(ElemBytes::B2, 64, 32, Major::K, Swizzle::B64), 16, 512),
            (t(ElemBytes::B2, 64, 16, Major::K, Swizzle::B32), 16, 256),
            (t(ElemBytes::B2, 64, 32, Major::K, Swizzle::None), 64 * 16, 128),
            (t(ElemBytes::B1, 128, 128, Major::K, Swizzle::B128), 16, 1024),
            (t(ElemBytes::B4, 64, 32, Major::K, Swizzle::B128), 16, 1024),
            // MN-major bf16, 128 along N (two 128B atoms), 64 along K
            (t(ElemBytes::B2, 128, 64, Major::MN, Swizzle::B128), 1024, 2048),
            (t(ElemBytes::B2, 64, 64, Major::MN, Swizzle::B128), 1024, 1024),
            (t(ElemBytes::B2, 64, 16, Major::MN, Swizzle::B32), 256, 1024),
            (t(ElemBytes::B2, 64, 16, Major::MN, Swizzle::None), 1024, 128),
        ];
        for (l, lbo, sbo) in cases {
            assert_eq!((l.lbo(), l.sbo()), (lbo, sbo), "{l}");
        }
    }

    /// An MN-major tile K-first is the image of TMA boxes of 64 N × all of K with the
    /// 128-byte swizzle, side by side: box `r / 64`, K-line `c`, 16-byte chunk XOR line % 8.
    #[test]
    fn k_first_is_the_image_of_tma_boxes() {
        let l = t(ElemBytes::B2, 256, 64, Major::MN, Swizzle::B128).with_order(AtomOrder::KFirst);
        assert_eq!((l.lbo(), l.sbo(), l.bytes()), (64 * 128, 1024, 256 * 64 * 2));
        for r in 0..256 {
            for c in 0..64 {
                let byte = (r % 64) * 2;
                let chunk = (byte / 16) ^ (c % 8);
                let tma = (r / 64) * 64 * 128 + c * 128 + chunk * 16 + byte % 16;
                assert_eq!(l.offset(r, c), tma, "element ({r}, {c})");
            }
        }
        let offs: Vec<_> = (0..4).map(|k| l.k_step_offset(k).unwrap()).collect();
        assert_eq!(offs, [0, 2048, 4096, 6144]);
        // One atom along M/N or K: both orders place every element alike (the stride to a
        // neighbour that does not exist may differ).
        for (rows, cols, major, sw) in [(64, 64, Major::MN, Swizzle::B128), (128, 64, Major::K, Swizzle::B128)] {
            let mn = t(ElemBytes::B2, rows, cols, major, sw);
            let kf = mn.with_order(AtomOrder::KFirst);
            assert!((0..rows).all(|r| (0..cols).all(|c| mn.offset(r, c) == kf.offset(r, c))));
        }
    }

    #[test]
    fn k_steps_by_hand() {
        let l = t(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128);
        assert_eq!(l.k_steps(), 4);
        let offs: Vec<_> = (0..4).map(|k| l.k_step_offset(k).unwrap()).collect();
        assert_eq!(offs, [0, 32, 64, 96]);
        // unswizzled K-major: slice k starts 2k core-matrix columns in, each rows*16 = 1024 bytes
        let l = t(ElemBytes::B2, 64, 32, Major::K, Swizzle::None);
        assert_eq!([l.k_step_offset(0).unwrap(), l.k_step_offset(1).unwrap()], [0, 2048]);
        // MN-major 128 x 64 bf16, 128B: 16 K-lines of 256 bytes per slice = 4096
        let l = t(ElemBytes::B2, 128, 64, Major::MN, Swizzle::B128);
        let offs: Vec<_> = (0..4).map(|k| l.k_step_offset(k).unwrap()).collect();
        assert_eq!(offs, [0, 4096, 8192, 12288]);
        assert_eq!(l.k_step_offset(4), Err(DescError::KStep { k: 4, steps: 4 }));
    }

    #[test]
    fn the_question_from_the_docs() {
        // "a 64x64 bf16 K-major tile with 128B swizzle" at 0x400: element (1, 0) is row 1,
        // chunk 0 XOR 1 = byte 128 + 16; element (9, 8) is row 9 (atom 1, line 1),
        // chunk 1 XOR 1 = 0 -> 1024 + 128 + 0.
        let l = t(ElemBytes::B2, 64, 64, Major::K, Swizzle::B128);
        assert_eq!(l.bytes(), 8192);
        assert_eq!(l.offset(0, 0), 0);
        assert_eq!(l.offset(0, 63), 126);
        assert_eq!(l.offset(1, 0), 144);
        assert_eq!(l.offset(9, 8), 1152);
        let d = l.desc(0x400).unwrap();
        assert_eq!(d.bits(), 0x40 | 1 << 16 | 64 << 32 | 1 << 62);
        assert_eq!(l.k_desc(0x400, 3).unwrap().start_addr(), 0x400 + 96);
    }
}
