//! TMA tensor-map parameters: what the driver's `cuTensorMapEncodeTiled` and
//! `cuTensorMapEncodeIm2col` take, as plain data, and the checks the driver documents for
//! them, made before anything reaches the driver so that a bad map is an error naming the
//! field rather than `CUDA_ERROR_INVALID_VALUE`.
//!
//! Dimensions are listed innermost first (dimension 0 is contiguous in memory): a row-major
//! `rows × cols` matrix has `dims = [cols, rows]`. Strides are in elements, one per
//! dimension, `strides[0] = 1`; the driver takes the byte strides of dimensions 1 and up,
//! which must be multiples of 16 bytes (32 with 32-byte interleave) and below 2^40.
//!
//! Sources: CUDA Driver API, "Tensor Map Object Management" (`cuTensorMapEncodeTiled`,
//! `cuTensorMapEncodeIm2col`: the requirements on every parameter); PTX ISA 9.0, "Tensor"
//! and "Tensor-map" (bounding box, swizzle modes, out-of-bound fill).
//!
//! ```
//! use ptxkit::descriptors::{Field, Swizzle, TensorDataType, TiledMap};
//!
//! // A 1000 x 300 f32 matrix, row-major, read in 32 x 32 boxes with the 128-byte swizzle.
//! let map = TiledMap::new([300, 1000], [32, 32]).swizzle(Swizzle::B128);
//! assert_eq!(map.strides, [1, 300]);
//! assert_eq!(map.box_bytes(TensorDataType::F32), 32 * 32 * 4);
//! map.check(TensorDataType::F32, 0x7f00_0000_0000, 300 * 1000 * 4)?;
//!
//! // 32 f32 are 128 bytes: the widest box row the 128-byte swizzle takes. 64 are not.
//! let wide = TiledMap::new([300, 1000], [64, 32]).swizzle(Swizzle::B128);
//! let e = wide.check(TensorDataType::F32, 0x7f00_0000_0000, 300 * 1000 * 4).unwrap_err();
//! assert_eq!(e.field, Field::BoxDims);
//! println!("{e}");
//! # Ok::<(), ptxkit::descriptors::TensorMapError>(())
//! ```

use super::Swizzle;
use std::fmt;

/// The element types a tensor map describes: the driver's `CUtensorMapDataType` values
/// 0 to 12, in its order ([`TensorDataType::driver_code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorDataType {
    U8,
    U16,
    U32,
    S32,
    U64,
    S64,
    F16,
    F32,
    F64,
    Bf16,
    /// f32, subnormals flushed to zero.
    F32Ftz,
    Tf32,
    /// tf32, subnormals flushed to zero.
    Tf32Ftz,
}

impl TensorDataType {
    /// Every type, in the driver's order.
    pub const ALL: [TensorDataType; 13] = [
        TensorDataType::U8,
        TensorDataType::U16,
        TensorDataType::U32,
        TensorDataType::S32,
        TensorDataType::U64,
        TensorDataType::S64,
        TensorDataType::F16,
        TensorDataType::F32,
        TensorDataType::F64,
        TensorDataType::Bf16,
        TensorDataType::F32Ftz,
        TensorDataType::Tf32,
        TensorDataType::Tf32Ftz,
    ];

    /// Bytes per element.
    pub const fn bytes(self) -> u32 {
        match self {
            TensorDataType::U8 => 1,
            TensorDataType::U16 | TensorDataType::F16 | TensorDataType::Bf16 => 2,
            TensorDataType::U32 | TensorDataType::S32 | TensorDataType::F32 | TensorDataType::F32Ftz => 4,
            TensorDataType::Tf32 | TensorDataType::Tf32Ftz => 4,
            TensorDataType::U64 | TensorDataType::S64 | TensorDataType::F64 => 8,
        }
    }

    /// Whether it is a floating-point type (the NaN out-of-bound fill needs one).
    pub const fn is_float(self) -> bool {
        !matches!(
            self,
            TensorDataType::U8
                | TensorDataType::U16
                | TensorDataType::U32
                | TensorDataType::S32
                | TensorDataType::U64
                | TensorDataType::S64
        )
    }

    /// The value of the driver's `CUtensorMapDataType` (`CU_TENSOR_MAP_DATA_TYPE_UINT8` = 0
    /// .. `CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ` = 12).
    pub const fn driver_code(self) -> u32 {
        self as u32
    }
}

/// Interleaved layouts (`CUtensorMapInterleave`): none, or channels grouped in 16 or 32
/// bytes (NC/8HWC8, NC/16HWC16).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Interleave {
    #[default]
    None,
    B16,
    B32,
}

impl Interleave {
    /// The driver's `CUtensorMapInterleave` value.
    pub const fn driver_code(self) -> u32 {
        self as u32
    }
}

/// The L2 fetch granularity for the map's loads (`CUtensorMapL2promotion`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum L2Promotion {
    #[default]
    None,
    B64,
    B128,
    B256,
}

impl L2Promotion {
    /// The driver's `CUtensorMapL2promotion` value.
    pub const fn driver_code(self) -> u32 {
        self as u32
    }
}

/// What a load writes for the elements of a box outside the tensor
/// (`CUtensorMapFloatOOBfill`): zeros, or for floating-point maps a NaN that requests zero
/// from the FMA units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OobFill {
    #[default]
    Zero,
    NanRequestZeroFma,
}

impl OobFill {
    /// The driver's `CUtensorMapFloatOOBfill` value.
    pub const fn driver_code(self) -> u32 {
        self as u32
    }
}

/// The parameter a [`TensorMapError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Rank,
    GlobalAddress,
    Dims,
    Strides,
    BoxDims,
    ElementStrides,
    Interleave,
    Swizzle,
    OobFill,
    /// The tensor reaches past the end of its buffer.
    Extent,
    PixelBoxLowerCorner,
    PixelBoxUpperCorner,
    ChannelsPerPixel,
    PixelsPerColumn,
}

impl Field {
    /// The parameter's name, as the builder's field is called.
    pub const fn name(self) -> &'static str {
        match self {
            Field::Rank => "rank",
            Field::GlobalAddress => "global address",
            Field::Dims => "dims",
            Field::Strides => "strides",
            Field::BoxDims => "box_dims",
            Field::ElementStrides => "element_strides",
            Field::Interleave => "interleave",
            Field::Swizzle => "swizzle",
            Field::OobFill => "oob_fill",
            Field::Extent => "extent",
            Field::PixelBoxLowerCorner => "lower_corner",
            Field::PixelBoxUpperCorner => "upper_corner",
            Field::ChannelsPerPixel => "channels_per_pixel",
            Field::PixelsPerColumn => "pixels_per_column",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tensor map the driver would refuse (or one that would reach past its buffer): the
/// field at fault and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapError {
    pub field: Field,
    pub message: String,
}

impl fmt::Display for TensorMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tensor map `{}`: {}", self.field, self.message)
    }
}

impl std::error::Error for TensorMapError {}

fn err<T>(field: Field, message: String) -> Result<T, TensorMapError> {
    Err(TensorMapError { field, message })
}

/// The largest extent of a dimension, 2^32 elements.
pub const MAX_DIM: u64 = 1 << 32;
/// Byte strides are below 2^40.
pub const MAX_STRIDE_BYTES: u64 = 1 << 40;
/// The largest box dimension, in elements.
pub const MAX_BOX_DIM: u32 = 256;
/// The largest element stride (traversal step).
pub const MAX_ELEMENT_STRIDE: u32 = 8;

/// The checks tiled and im2col maps share: rank, address, dims, strides, element strides,
/// interleave and swizzle against the inner box width, out-of-bound fill, and the extent
/// against the buffer.
struct Common<'a> {
    dtype: TensorDataType,
    dims: &'a [u64],
    strides: &'a [u64],
    element_strides: &'a [u32],
    interleave: Interleave,
    swizzle: Swizzle,
    oob_fill: OobFill,
    /// The bounding box's inner dimension in elements (box_dims[0], or the channels per pixel).
    inner: u64,
    inner_field: Field,
}

impl Common<'_> {
    fn check(&self, ranks: core::ops::RangeInclusive<usize>, address: u64, buffer_bytes: u64) -> Result<(), TensorMapError> {
        let r = self.dims.len();
        let elem = self.dtype.bytes() as u64;
        if !ranks.contains(&r) {
            return err(Field::Rank, format!("rank {r} is outside {}..={}", ranks.start(), ranks.end()));
        }
        if self.interleave != Interleave::None && r < 3 {
            return err(Field::Rank, format!("an interleaved map needs rank 3 or more, not {r}"));
        }
        let align = if self.interleave == Interleave::B32 { 32 } else { 16 };
        if address % align != 0 {
            return err(
                Field::GlobalAddress,
                format!("{address:#x} is not {align}-byte aligned{}", if align == 32 { " (32-byte interleave)" } else { "" }),
            );
        }
        for (i, &d) in self.dims.iter().enumerate() {
            if d == 0 || d > MAX_DIM {
                return err(Field::Dims, format!("dims[{i}] = {d} is outside 1..=2^32"));
            }
        }
        if self.strides[0] != 1 {
            return err(
                Field::Strides,
                format!("strides[0] = {} elements: dimension 0 is read contiguously, its stride is 1", self.strides[0]),
            );
        }
        for i in 1..r {
            let bytes = self.strides[i] as u128 * elem as u128;
            if bytes % align as u128 != 0 {
                return err(
                    Field::Strides,
                    format!("strides[{i}] = {} elements = {bytes} bytes is not a multiple of {align} bytes", self.strides[i]),
                );
            }
            if bytes == 0 || bytes >= MAX_STRIDE_BYTES as u128 {
                return err(
                    Field::Strides,
                    format!("strides[{i}] = {} elements = {bytes} bytes is outside 16..2^40 bytes", self.strides[i]),
                );
            }
        }
        for (i, &s) in self.element_strides.iter().enumerate() {
            if s == 0 || s > MAX_ELEMENT_STRIDE {
                return err(Field::ElementStrides, format!("element_strides[{i}] = {s} is outside 1..=8"));
            }
        }
        if self.interleave == Interleave::B32 && self.swizzle != Swizzle::B32 {
            return err(Field::Swizzle, format!("32-byte interleave needs the 32-byte swizzle, not {}", self.swizzle));
        }
        if self.interleave == Interleave::None && self.swizzle != Swizzle::None {
            let inner = self.inner * elem;
            if inner > self.swizzle.bytes() as u64 {
                return err(
                    self.inner_field,
                    format!(
                        "the box's inner dimension is {} elements = {inner} bytes, wider than the {} ({} bytes at most)",
                        self.inner,
                        self.swizzle,
                        self.swizzle.bytes()
                    ),
                );
            }
        }
        if self.oob_fill == OobFill::NanRequestZeroFma && !self.dtype.is_float() {
            return err(Field::OobFill, format!("the NaN fill needs a floating-point map, not {:?}", self.dtype));
        }
        // The last byte the map can address, against the buffer it was made for.
        let last: u128 = self.dims.iter().zip(self.strides).map(|(&d, &s)| (d as u128 - 1) * s as u128).sum::<u128>() * elem as u128;
        let end = last + elem as u128;
        if end > buffer_bytes as u128 {
            return err(Field::Extent, format!("the tensor spans {end} bytes, its buffer holds {buffer_bytes}"));
        }
        Ok(())
    }
}

fn packed<const R: usize>(dims: &[u64; R]) -> [u64; R] {
    let mut s = [1u64; R];
    for i in 1..R {
        s[i] = s[i - 1].saturating_mul(dims[i - 1]);
    }
    s
}

/// A tiled tensor map (`cuTensorMapEncodeTiled`) of rank `R` without its element type and
/// address: the tensor's shape and strides, the box a copy moves, and the copy options.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TiledMap<const R: usize> {
    /// Elements along each dimension, innermost first.
    pub dims: [u64; R],
    /// Elements between neighbours along each dimension; `strides[0]` is 1.
    pub strides: [u64; R],
    /// Elements of the box along each dimension (1 to 256).
    pub box_dims: [u32; R],
    /// The traversal step along each dimension (1 to 8; ignored for dimension 0 without
    /// interleave): a copy moves `ceil(box_dims[i] / element_strides[i])` elements.
    pub element_strides: [u32; R],
    pub interleave: Interleave,
    /// The shared-memory arrangement of the box; the box's inner dimension must fit the
    /// swizzle width (32, 64 or 128 bytes).
    pub swizzle: Swizzle,
    pub l2_promotion: L2Promotion,
    pub oob_fill: OobFill,
}

/// One builder method per field: `name(mut self, value) -> Self`.
macro_rules! setter {
    ($(#[$doc:meta])* $field:ident: $ty:ty) => {
        $(#[$doc])*
        pub fn $field(mut self, $field: $ty) -> Self {
            self.$field = $field;
            self
        }
    };
}

/// The builder methods both kinds of map have, for the fields they share.
macro_rules! setters {
    () => {
        setter!(
            /// Sets the strides, in elements (`strides[0]` = 1).
            strides: [u64; R]
        );
        setter!(element_strides: [u32; R]);
        setter!(interleave: Interleave);
        setter!(swizzle: Swizzle);
        setter!(l2_promotion: L2Promotion);
        setter!(oob_fill: OobFill);
    };
}

impl<const R: usize> TiledMap<R> {
    /// A densely packed tensor of `dims`, read in boxes of `box_dims`: unit element
    /// strides, no interleave, no swizzle, no L2 promotion, zero fill.
    pub fn new(dims: [u64; R], box_dims: [u32; R]) -> Self {
        TiledMap {
            dims,
            strides: packed(&dims),
            box_dims,
            element_strides: [1; R],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
        }
    }
    setters!();

    /// Elements a copy of one box moves along dimension `i`.
    pub fn box_elems(&self, i: usize) -> u32 {
        let step = if i == 0 && self.interleave == Interleave::None { 1 } else { self.element_strides[i].max(1) };
        self.box_dims[i].div_ceil(step)
    }

    /// Bytes one box fills in shared memory: the transaction count a load's mbarrier
    /// expects (a box partly outside the tensor still fills, and counts, all of them).
    pub fn box_bytes(&self, dtype: TensorDataType) -> u64 {
        (0..R).map(|i| self.box_elems(i) as u64).product::<u64>() * dtype.bytes() as u64
    }

    /// Checks the map, for elements of `dtype` at device address `address` in a buffer of
    /// `buffer_bytes`, against every requirement the driver documents, and that the tensor
    /// lies within the buffer.
    pub fn check(&self, dtype: TensorDataType, address: u64, buffer_bytes: u64) -> Result<(), TensorMapError> {
        let common = Common {
            dtype,
            dims: &self.dims,
            strides: &self.strides,
            element_strides: &self.element_strides,
            interleave: self.interleave,
            swizzle: self.swizzle,
            oob_fill: self.oob_fill,
            inner: self.box_dims.first().copied().unwrap_or(0) as u64,
            inner_field: Field::BoxDims,
        };
        // The rank comes first: an empty box list has no inner dimension to check.
        if !(1..=5).contains(&R) {
            return err(Field::Rank, format!("rank {R} is outside 1..=5"));
        }
        for (i, &b) in self.box_dims.iter().enumerate() {
            if b == 0 || b > MAX_BOX_DIM {
                return err(Field::BoxDims, format!("box_dims[{i}] = {b} is outside 1..=256"));
            }
        }
        if self.interleave == Interleave::None && (self.box_dims[0] as u64 * dtype.bytes() as u64) % 16 != 0 {
            return err(
                Field::BoxDims,
                format!(
                    "box_dims[0] = {} elements = {} bytes is not a multiple of 16 bytes",
                    self.box_dims[0],
                    self.box_dims[0] as u64 * dtype.bytes() as u64
                ),
            );
        }
        common.check(1..=5, address, buffer_bytes)
    }
}

/// The legal im2col corner offsets for rank 3, 4 and 5: one 16-bit, two 8-bit, three 5-bit
/// signed values.
fn corner_range(rank: usize) -> (i32, i32) {
    match rank {
        3 => (-32768, 32767),
        4 => (-128, 127),
        _ => (-16, 15),
    }
}

/// An im2col tensor map (`cuTensorMapEncodeIm2col`) of rank `R` (3 to 5: NWC, NHWC, NDHWC,
/// `dims = [C, W, (H, (D,)) N]`) without its element type and address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Im2colMap<const R: usize> {
    pub dims: [u64; R],
    /// Elements between neighbours along each dimension; `strides[0]` is 1.
    pub strides: [u64; R],
    /// The bounding box's offsets from the tensor's first corner along the R-2 spatial
    /// dimensions, in the order of `dims` (W first).
    pub lower_corner: Vec<i32>,
    /// The offsets from the last corner.
    pub upper_corner: Vec<i32>,
    /// Elements along C per pixel (1 to 256): the box's inner dimension.
    pub channels_per_pixel: u32,
    /// Pixels (along N, D, H, W) per column (1 to 1024).
    pub pixels_per_column: u32,
    pub element_strides: [u32; R],
    pub interleave: Interleave,
    pub swizzle: Swizzle,
    pub l2_promotion: L2Promotion,
    pub oob_fill: OobFill,
}

impl<const R: usize> Im2colMap<R> {
    /// A densely packed tensor of `dims`, with the bounding box given by its corners, read
    /// `channels_per_pixel` × `pixels_per_column` at a time; defaults as [`TiledMap::new`].
    pub fn new(dims: [u64; R], lower_corner: &[i32], upper_corner: &[i32], channels_per_pixel: u32, pixels_per_column: u32) -> Self {
        Im2colMap {
            dims,
            strides: packed(&dims),
            lower_corner: lower_corner.to_vec(),
            upper_corner: upper_corner.to_vec(),
            channels_per_pixel,
            pixels_per_column,
            element_strides: [1; R],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
        }
    }
    setters!();

    /// Bytes one im2col copy fills: `pixels_per_column × channels_per_pixel` elements.
    pub fn box_bytes(&self, dtype: TensorDataType) -> u64 {
        self.pixels_per_column as u64 * self.channels_per_pixel as u64 * dtype.bytes() as u64
    }

    /// As [`TiledMap::check`], with the im2col requirements: rank 3 to 5, R-2 corner offsets
    /// each in the range of the rank, channels and pixels within their bounds.
    pub fn check(&self, dtype: TensorDataType, address: u64, buffer_bytes: u64) -> Result<(), TensorMapError> {
        if !(3..=5).contains(&R) {
            return err(Field::Rank, format!("an im2col map has rank 3 to 5, not {R}"));
        }
        let (lo, hi) = corner_range(R);
        for (field, corner) in [(Field::PixelBoxLowerCorner, &self.lower_corner), (Field::PixelBoxUpperCorner, &self.upper_corner)] {
            if corner.len() != R - 2 {
                return err(field, format!("{} offsets given, rank {R} takes {}", corner.len(), R - 2));
            }
            if let Some((i, v)) = corner.iter().enumerate().find(|(_, v)| !(lo..=hi).contains(*v)) {
                return err(field, format!("offset {i} = {v} is outside {lo}..={hi} (rank {R})"));
            }
        }
        if self.channels_per_pixel == 0 || self.channels_per_pixel > 256 {
            return err(Field::ChannelsPerPixel, format!("{} is outside 1..=256", self.channels_per_pixel));
        }
        if self.pixels_per_column == 0 || self.pixels_per_column > 1024 {
            return err(Field::PixelsPerColumn, format!("{} is outside 1..=1024", self.pixels_per_column));
        }
        let common = Common {
            dtype,
            dims: &self.dims,
            strides: &self.strides,
            element_strides: &self.element_strides,
            interleave: self.interleave,
            swizzle: self.swizzle,
            oob_fill: self.oob_fill,
            inner: self.channels_per_pixel as u64,
            inner_field: Field::ChannelsPerPixel,
        };
        common.check(3..=5, address, buffer_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: u64 = 0x7f12_3400_0000;
    const F32: TensorDataType = TensorDataType::F32;

    fn field<const R: usize>(m: &TiledMap<R>, dtype: TensorDataType, address: u64, bytes: u64) -> Field {
        let e = m.check(dtype, address, bytes).expect_err("the map should be refused");
        println!("{e}");
        assert!(e.to_string().contains(e.field.name()));
        e.field
    }

    #[test]
    fn a_valid_map_passes_and_counts_its_box() {
        let m = TiledMap::new([64, 48, 3], [32, 16, 2]).swizzle(Swizzle::B128);
        assert_eq!(m.strides, [1, 64, 64 * 48]);
        m.check(F32, A, 64 * 48 * 3 * 4).unwrap();
        assert_eq!(m.box_bytes(F32), 32 * 16 * 2 * 4);
        let strided = TiledMap::new([64, 48], [32, 16]).element_strides([1, 3]);
        assert_eq!(strided.box_bytes(F32), 32 * 6 * 4);
        // Element stride of dimension 0 is ignored without interleave.
        assert_eq!(TiledMap::new([64, 48], [32, 16]).element_strides([4, 1]).box_bytes(F32), 32 * 16 * 4);
    }

    #[test]
    fn swizzle_width_bounds_the_inner_box_dimension() {
        for (swizzle, widest) in [(Swizzle::B32, 32u32), (Swizzle::B64, 64), (Swizzle::B128, 128)] {
            for dtype in [TensorDataType::U8, TensorDataType::F16, F32, TensorDataType::F64] {
                let e = dtype.bytes();
                let fits = TiledMap::new([1024, 4], [widest / e, 4]).swizzle(swizzle);
                fits.check(dtype, A, 1 << 20).unwrap();
                let over = TiledMap::new([1024, 4], [widest / e + 16 / e, 4]).swizzle(swizzle);
                assert_eq!(field(&over, dtype, A, 1 << 20), Field::BoxDims, "{swizzle} {dtype:?}");
            }
        }
        // Without swizzle, any width up to 256 elements.
        TiledMap::new([1024, 4], [256, 4]).check(F32, A, 1 << 20).unwrap();
    }

    #[test]
    fn global_address_alignment() {
        let m = TiledMap::new([64, 8], [16, 8]);
        assert_eq!(field(&m, F32, A + 8, 1 << 20), Field::GlobalAddress);
        m.check(F32, A + 16, 1 << 20).unwrap();
        let il = TiledMap::new([8, 8, 8], [8, 8, 8]).interleave(Interleave::B32).swizzle(Swizzle::B32);
        assert_eq!(field(&il, F32, A + 16, 1 << 20), Field::GlobalAddress);
        il.check(F32, A + 32, 1 << 20).unwrap();
    }

    #[test]
    fn strides() {
        let base = TiledMap::new([64, 8, 2], [16, 8, 2]);
        // Not a multiple of 16 bytes: 10 f32 are 40 bytes.
        assert_eq!(field(&base.clone().strides([1, 10, 640]), F32, A, 1 << 20), Field::Strides);
        // Dimension 0 must be contiguous.
        assert_eq!(field(&base.clone().strides([2, 64, 512]), F32, A, 1 << 20), Field::Strides);
        // 2^40 bytes and more are out of range (2^38 f32 are 2^40 bytes).
        assert_eq!(field(&base.clone().strides([1, 64, 1 << 38]), F32, A, u64::MAX), Field::Strides);
        assert_eq!(field(&base.clone().strides([1, 0, 512]), F32, A, 1 << 20), Field::Strides);
        base.clone().strides([1, 68, 68 * 8]).check(F32, A, 1 << 20).unwrap();
        // 32-byte interleave: multiples of 32 bytes.
        let il = TiledMap::new([8, 8, 8], [8, 8, 8]).interleave(Interleave::B32).swizzle(Swizzle::B32);
        assert_eq!(field(&il.clone().strides([1, 12, 96]), F32, A, 1 << 20), Field::Strides);
        il.strides([1, 16, 128]).check(F32, A, 1 << 20).unwrap();
    }

    #[test]
    fn box_dims() {
        assert_eq!(field(&TiledMap::new([1024, 8], [257, 8]), TensorDataType::U8, A, 1 << 20), Field::BoxDims);
        assert_eq!(field(&TiledMap::new([1024, 8], [16, 0]), F32, A, 1 << 20), Field::BoxDims);
        assert_eq!(field(&TiledMap::new([1024, 8], [16, 300]), F32, A, 1 << 20), Field::BoxDims);
        // 6 f16 are 12 bytes, not a multiple of 16.
        assert_eq!(field(&TiledMap::new([1024, 8], [6, 8]), TensorDataType::F16, A, 1 << 20), Field::BoxDims);
        TiledMap::new([1024, 8], [256, 8]).check(TensorDataType::U8, A, 1 << 20).unwrap();
    }

    #[test]
    fn ranks() {
        assert_eq!(field(&TiledMap::<0>::new([], []), F32, A, 1 << 20), Field::Rank);
        assert_eq!(field(&TiledMap::new([4; 6], [4; 6]), F32, A, 1 << 20), Field::Rank);
        TiledMap::new([4; 5], [4; 5]).check(F32, A, 1 << 20).unwrap();
        TiledMap::new([4], [4]).check(F32, A, 1 << 20).unwrap();
        // Interleaved maps need rank 3.
        let il = TiledMap::new([8, 8], [8, 8]).interleave(Interleave::B16);
        assert_eq!(field(&il, F32, A, 1 << 20), Field::Rank);
    }

    #[test]
    fn element_strides() {
        let m = TiledMap::new([64, 8], [16, 8]);
        assert_eq!(field(&m.clone().element_strides([1, 9]), F32, A, 1 << 20), Field::ElementStrides);
        assert_eq!(field(&m.clone().element_strides([0, 1]), F32, A, 1 << 20), Field::ElementStrides);
        m.element_strides([8, 8]).check(F32, A, 1 << 20).unwrap();
    }

    #[test]
    fn dims() {
        assert_eq!(field(&TiledMap::new([64, 0], [16, 1]), F32, A, 1 << 20), Field::Dims);
        // 2^32 is the largest extent; one more is refused.
        let big = TiledMap::new([1 << 32, 1], [16, 1]);
        big.check(TensorDataType::U8, A, 1 << 32).unwrap();
        assert_eq!(field(&TiledMap::new([(1 << 32) + 1, 1], [16, 1]), TensorDataType::U8, A, u64::MAX), Field::Dims);
    }

    #[test]
    fn interleave_swizzle_and_fill() {
        let il = TiledMap::new([8, 8, 8], [8, 8, 8]).interleave(Interleave::B32).swizzle(Swizzle::B64);
        assert_eq!(field(&il, F32, A, 1 << 20), Field::Swizzle);
        let nan = TiledMap::new([64, 8], [16, 8]).oob_fill(OobFill::NanRequestZeroFma);
        nan.check(F32, A, 1 << 20).unwrap();
        nan.check(TensorDataType::Bf16, A, 1 << 20).unwrap();
        assert_eq!(field(&nan, TensorDataType::S32, A, 1 << 20), Field::OobFill);
    }

    #[test]
    fn the_tensor_must_fit_its_buffer() {
        let m = TiledMap::new([64, 8], [16, 8]);
        m.check(F32, A, 64 * 8 * 4).unwrap();
        assert_eq!(field(&m, F32, A, 64 * 8 * 4 - 1), Field::Extent);
        // Padded rows: the last row needs only its own 64 elements.
        let padded = m.clone().strides([1, 80]);
        padded.check(F32, A, (80 * 7 + 64) * 4).unwrap();
        assert_eq!(field(&padded, F32, A, (80 * 7 + 64) * 4 - 4), Field::Extent);
    }

    #[test]
    fn im2col_checks() {
        let ok = Im2colMap::new([64, 16, 16, 2], &[-1, -1], &[1, 1], 64, 128);
        ok.check(TensorDataType::F16, A, 64 * 16 * 16 * 2 * 2).unwrap();
        assert_eq!(ok.box_bytes(TensorDataType::F16), 64 * 128 * 2);
        let f = |m: &Im2colMap<4>| m.check(TensorDataType::F16, A, 1 << 24).unwrap_err().field;
        assert_eq!(f(&Im2colMap::new([64, 16, 16, 2], &[-1], &[1, 1], 64, 128)), Field::PixelBoxLowerCorner);
        assert_eq!(f(&Im2colMap::new([64, 16, 16, 2], &[-129, 0], &[1, 1], 64, 128)), Field::PixelBoxLowerCorner);
        assert_eq!(f(&Im2colMap::new([64, 16, 16, 2], &[0, 0], &[128, 1], 64, 128)), Field::PixelBoxUpperCorner);
        assert_eq!(f(&Im2colMap::new([64, 16, 16, 2], &[0, 0], &[0, 0], 0, 128)), Field::ChannelsPerPixel);
        assert_eq!(f(&Im2colMap::new([64, 16, 16, 2], &[0, 0], &[0, 0], 257, 128)), Field::ChannelsPerPixel);
        assert_eq!(f(&Im2colMap::new([64, 16, 16, 2], &[0, 0], &[0, 0], 64, 1025)), Field::PixelsPerColumn);
        // 128B swizzle: 64 f16 channels are 128 bytes, 72 are too many.
        Im2colMap::new([128, 16, 16, 2], &[0, 0], &[0, 0], 64, 128).swizzle(Swizzle::B128).check(TensorDataType::F16, A, 1 << 24).unwrap();
        let wide = Im2colMap::new([128, 16, 16, 2], &[0, 0], &[0, 0], 72, 128).swizzle(Swizzle::B128);
        assert_eq!(f(&wide), Field::ChannelsPerPixel);
        // Rank 3 takes one 16-bit offset, rank 5 three 5-bit ones.
        Im2colMap::new([8, 100, 2], &[-30000], &[30000], 8, 16).check(TensorDataType::F16, A, 1 << 20).unwrap();
        let r5 = Im2colMap::new([8, 4, 4, 4, 2], &[-16, 0, 0], &[16, 0, 0], 8, 16);
        assert_eq!(r5.check(TensorDataType::F16, A, 1 << 20).unwrap_err().field, Field::PixelBoxUpperCorner);
        assert_eq!(Im2colMap::new([8, 4], &[], &[], 8, 16).check(TensorDataType::F16, A, 1 << 20).unwrap_err().field, Field::Rank);
    }

    #[test]
    fn driver_codes() {
        let codes: Vec<u32> = TensorDataType::ALL.iter().map(|t| t.driver_code()).collect();
        assert_eq!(codes, (0..13).collect::<Vec<_>>());
        assert_eq!(TensorDataType::Bf16.driver_code(), 9);
        assert_eq!(TensorDataType::Tf32.driver_code(), 11);
        let sizes: Vec<u32> = TensorDataType::ALL.iter().map(|t| t.bytes()).collect();
        assert_eq!(sizes, [1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4]);
        assert_eq!((Interleave::B32.driver_code(), L2Promotion::B256.driver_code(), OobFill::NanRequestZeroFma.driver_code()), (2, 3, 1));
        let sw: Vec<u32> = Swizzle::ALL.iter().map(|s| s.tma_code()).collect();
        assert_eq!(sw, [0, 1, 2, 3]);
    }
}
