//! Textures and surfaces on the device: [`CudaArray<T>`] (the driver's opaque, cache-friendly
//! image memory), [`TexObject`] (a texture object over an array or over a linear or pitched
//! buffer, with its sampler state) and [`SurfObject`] (a surface object over an array made
//! for surface access). Both objects are passed, by reference, for the kernel parameters
//! [`Texture`] and [`Surface`] (a 64-bit handle each), and borrow what they view, so they
//! cannot outlive it: a texture borrows its array or buffer shared, a surface its array
//! exclusively (it writes it).
//!
//! Parameters the driver would refuse are refused first where they can be checked here (a
//! zero extent, an array too large for the device, linear filtering of integers read as
//! integers, a surface over an array not made for one, a pitch or address the device's
//! alignment rules forbid), as [`RuntimeError::Invalid`]. Copies to and from an array run
//! on the [`Gpu`]'s stream and wait for it; dropping an object or an array waits for the
//! context's work first, so no kernel still in flight can use what is destroyed.
//!
//! ```no_run
//! use ptxkit::prelude::*;
//! use ptxkit::runtime::{AddressMode, ArrayDesc, FilterMode, Gpu, Launch, TexObject, TextureDesc};
//!
//! let gpu = Gpu::new()?;
//! let mut m = Module::new(Target::SM_80);
//! let kr = m.kernel("sample", |k, (tex, out): (Texture, GlobalPtr<F32>)| {
//!     let i = k.global_thread_index_x();
//!     let x = ptx!(k, "cvt.rn.f32.u32", i);
//!     let y = ptx!(k, "mov.f32", 0.5f32);
//!     let [v, _, _, _] = ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, y]));
//!     ptx!(k, "st.global.f32", out.at(i), v);
//! })?;
//! let kern = gpu.load(&m.to_ptx()?)?.kernel(&kr)?;
//!
//! let mut image = gpu.array::<f32>(&ArrayDesc::d2(64, 16))?;
//! image.upload(&vec![1.0f32; 64 * 16])?;
//! let desc = TextureDesc { filter: FilterMode::Linear, address: [AddressMode::Wrap; 3], ..Default::default() };
//! let tex = TexObject::array(&image, &desc)?;
//! let mut out = gpu.zeros::<f32>(64)?;
//! kern.launch(&Launch::new(1, 64), (&tex, &mut out))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::args::ArgList;
use super::error::drv;
use super::{CudaContext, CudaSlice, CudaStream, Gpu, HostArg, RuntimeError};
pub use crate::builder::{AddressMode, FilterMode};
use crate::regs::{Surface, Texture};
use cudarc::driver::{sys, DevicePtr, SyncOnDrop};
use std::marker::PhantomData;
use std::sync::Arc;

mod sealed {
    pub trait Sealed {}
}

/// An element of a CUDA array or texture: one, two or four channels of an 8-, 16- or 32-bit
/// integer, an `f16` or an `f32` (`f32`, `[u8; 4]`, `[half::f16; 2]`).
pub trait Texel: sealed::Sealed + Copy + Default + 'static {
    /// The driver's channel format.
    const FORMAT: sys::CUarray_format;
    const CHANNELS: u32;
    /// Whether the channels are integers (read as such, or as normalised floats).
    const INTEGER: bool;
    /// Bits per channel.
    const BITS: u32;
}

macro_rules! texels {
    ($($t:ty => $f:ident, $int:expr;)*) => {$(
        texels!(@one $t, $t, 1, $f, $int);
        texels!(@one [$t; 2], $t, 2, $f, $int);
        texels!(@one [$t; 4], $t, 4, $f, $int);
    )*};
    (@one $texel:ty, $channel:ty, $n:expr, $f:ident, $int:expr) => {
        impl sealed::Sealed for $texel {}
        impl Texel for $texel {
            const FORMAT: sys::CUarray_format = sys::CUarray_format::$f;
            const CHANNELS: u32 = $n;
            const INTEGER: bool = $int;
            const BITS: u32 = 8 * std::mem::size_of::<$channel>() as u32;
        }
    };
}
texels! {
    u8 => CU_AD_FORMAT_UNSIGNED_INT8, true;
    u16 => CU_AD_FORMAT_UNSIGNED_INT16, true;
    u32 => CU_AD_FORMAT_UNSIGNED_INT32, true;
    i8 => CU_AD_FORMAT_SIGNED_INT8, true;
    i16 => CU_AD_FORMAT_SIGNED_INT16, true;
    i32 => CU_AD_FORMAT_SIGNED_INT32, true;
    half::f16 => CU_AD_FORMAT_HALF, false;
    f32 => CU_AD_FORMAT_FLOAT, false;
}

fn invalid<T>(what: String) -> Result<T, RuntimeError> {
    Err(RuntimeError::Invalid(what))
}

/// The extent and uses of a CUDA array: width in elements, height and depth (0 where the
/// array has fewer dimensions), layers of a layered array, and the flags for surface access
/// (`suld`/`sust`/`sured`) and texture gathers (`tld4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDesc {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    /// Layers of a layered array (1-D or 2-D); 0 for a plain one.
    pub layers: usize,
    pub surface: bool,
    pub gather: bool,
}

impl ArrayDesc {
    pub fn d1(width: usize) -> ArrayDesc {
        ArrayDesc { width, height: 0, depth: 0, layers: 0, surface: false, gather: false }
    }
    pub fn d2(width: usize, height: usize) -> ArrayDesc {
        ArrayDesc { height, ..ArrayDesc::d1(width) }
    }
    pub fn d3(width: usize, height: usize, depth: usize) -> ArrayDesc {
        ArrayDesc { height, depth, ..ArrayDesc::d1(width) }
    }
    /// `layers` 1-D arrays of `width` (`tex.a1d`, `suld.b.a1d`).
    pub fn layered_1d(width: usize, layers: usize) -> ArrayDesc {
        ArrayDesc { layers, ..ArrayDesc::d1(width) }
    }
    /// `layers` 2-D arrays (`tex.a2d`, `suld.b.a2d`).
    pub fn layered_2d(width: usize, height: usize, layers: usize) -> ArrayDesc {
        ArrayDesc { height, layers, ..ArrayDesc::d1(width) }
    }
    /// Also readable and writable through a [`SurfObject`].
    pub fn surface(self) -> ArrayDesc {
        ArrayDesc { surface: true, ..self }
    }
    /// Also usable for texture gathers (`tld4`): 2-D arrays only.
    pub fn gather(self) -> ArrayDesc {
        ArrayDesc { gather: true, ..self }
    }
    /// The number of elements.
    pub fn elements(&self) -> usize {
        self.width * self.height.max(1) * self.depth.max(1) * self.layers.max(1)
    }
    fn check(&self) -> Result<(), RuntimeError> {
        if self.width == 0 {
            return invalid(format!("a CUDA array needs a width: {self:?}"));
        }
        if self.layers > 0 && self.depth > 0 {
            return invalid(format!("a layered array is 1-D or 2-D: {self:?}"));
        }
        if self.depth > 0 && self.height == 0 {
            return invalid(format!("a 3-D array needs a height: {self:?}"));
        }
        if self.gather && (self.height == 0 || self.depth > 0) {
            return invalid(format!("texture gathers (tld4) read 2-D arrays only: {self:?}"));
        }
        Ok(())
    }
}

/// A CUDA array of `T` on the device: image memory that textures read through their cache
/// and surfaces read and write. Made by [`Gpu::array`]; copies from and to the host through
/// [`upload`](Self::upload) and [`download`](Self::download).
pub struct CudaArray<T: Texel> {
    raw: sys::CUarray,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    desc: ArrayDesc,
    _t: PhantomData<T>,
}

impl<T: Texel> std::fmt::Debug for CudaArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("CudaArray").field("desc", &self.desc).field("format", &T::FORMAT).field("channels", &T::CHANNELS).finish()
    }
}

/// The device's limit on one extent of an array, as an attribute.
fn limit(ctx: &CudaContext, a: sys::CUdevice_attribute) -> Result<usize, RuntimeError> {
    Ok(ctx.attribute(a).map_err(drv("cuDeviceGetAttribute"))? as usize)
}

impl Gpu {
    /// A new CUDA array of `T` (contents undefined until uploaded or written).
    ///
    /// ```no_run
    /// use ptxkit::runtime::{ArrayDesc, Gpu};
    /// let gpu = Gpu::new()?;
    /// let mut a = gpu.array::<[u8; 4]>(&ArrayDesc::d2(640, 480).surface())?;
    /// a.upload(&vec![[0, 64, 128, 255]; 640 * 480])?;
    /// assert_eq!(a.download()?[0], [0, 64, 128, 255]);
    /// assert!(gpu.array::<f32>(&ArrayDesc::d2(0, 4)).is_err());
    /// # Ok::<(), ptxkit::runtime::RuntimeError>(())
    /// ```
    pub fn array<T: Texel>(&self, desc: &ArrayDesc) -> Result<CudaArray<T>, RuntimeError> {
        use sys::CUdevice_attribute::*;
        desc.check()?;
        let (w, h, d) = match (desc.height, desc.depth, desc.layers) {
            (0, _, 0) => (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, None, None),
            (_, 0, 0) if desc.gather => {
                (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH, Some(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT), None)
            }
            (_, 0, 0) => (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH, Some(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT), None),
            (0, _, _) => {
                (CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH, None, Some(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS))
            }
            (_, 0, _) => (
                CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
                Some(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT),
                Some(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS),
            ),
            _ => (
                CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
                Some(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT),
                Some(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH),
            ),
        };
        let third = if desc.layers > 0 { desc.layers } else { desc.depth };
        for (what, n, a) in [("width", desc.width, Some(w)), ("height", desc.height, h), ("depth or layer count", third, d)] {
            if let Some(a) = a {
                let max = limit(&self.ctx, a)?;
                if n > max {
                    return invalid(format!("array {what} {n} exceeds this device's {max}: {desc:?}"));
                }
            }
        }
        let mut flags = 0;
        if desc.layers > 0 {
            flags |= sys::CUDA_ARRAY3D_LAYERED;
        }
        if desc.surface {
            flags |= sys::CUDA_ARRAY3D_SURFACE_LDST;
        }
        if desc.gather {
            flags |= sys::CUDA_ARRAY3D_TEXTURE_GATHER;
        }
        let d3 = sys::CUDA_ARRAY3D_DESCRIPTOR {
            Width: desc.width,
            Height: desc.height,
            Depth: third,
            Format: T::FORMAT,
            NumChannels: T::CHANNELS,
            Flags: flags,
        };
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `d3` is a complete descriptor; the driver writes one handle.
        unsafe { sys::cuArray3DCreate_v2(&mut raw, &d3) }.result().map_err(drv("cuArray3DCreate"))?;
        Ok(CudaArray { raw, ctx: self.ctx.clone(), stream: self.stream.clone(), desc: *desc, _t: PhantomData })
    }
}

impl<T: Texel> CudaArray<T> {
    pub fn desc(&self) -> &ArrayDesc {
        &self.desc
    }

    /// The copy between the array and host memory at `host`, in either direction.
    fn copy(&self, host: *mut T, to_array: bool) -> Result<(), RuntimeError> {
        let row = self.desc.width * std::mem::size_of::<T>();
        let rows = self.desc.height.max(1);
        let slices = (if self.desc.layers > 0 { self.desc.layers } else { self.desc.depth }).max(1);
        let (host_t, array_t) = (sys::CUmemorytype::CU_MEMORYTYPE_HOST, sys::CUmemorytype::CU_MEMORYTYPE_ARRAY);
        // Every field spelt out: `CUmemorytype` has no zero value, so the struct cannot start
        // as all zeros (`mem::zeroed` refuses it).
        let mut c = sys::CUDA_MEMCPY3D {
            srcXInBytes: 0,
            srcY: 0,
            srcZ: 0,
            srcLOD: 0,
            srcMemoryType: host_t,
            srcHost: std::ptr::null(),
            srcDevice: 0,
            srcArray: std::ptr::null_mut(),
            reserved0: std::ptr::null_mut(),
            srcPitch: 0,
            srcHeight: 0,
            dstXInBytes: 0,
            dstY: 0,
            dstZ: 0,
            dstLOD: 0,
            dstMemoryType: host_t,
            dstHost: std::ptr::null_mut(),
            dstDevice: 0,
            dstArray: std::ptr::null_mut(),
            reserved1: std::ptr::null_mut(),
            dstPitch: 0,
            dstHeight: 0,
            WidthInBytes: 0,
            Height: 0,
            Depth: 0,
        };
        if to_array {
            (c.srcMemoryType, c.srcHost, c.srcPitch, c.srcHeight) = (host_t, host as *const _, row, rows);
            (c.dstMemoryType, c.dstArray) = (array_t, self.raw);
        } else {
            (c.dstMemoryType, c.dstHost, c.dstPitch, c.dstHeight) = (host_t, host.cast(), row, rows);
            (c.srcMemoryType, c.srcArray) = (array_t, self.raw);
        }
        (c.WidthInBytes, c.Height, c.Depth) = (row, rows, slices);
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        // SAFETY: the host side holds `elements()` values of `T` (checked by the callers) and
        // stays borrowed until the stream has finished the copy.
        unsafe { sys::cuMemcpy3DAsync_v2(&c, self.stream.cu_stream()) }.result().map_err(drv("cuMemcpy3DAsync"))?;
        self.stream.synchronize().map_err(drv("cuStreamSynchronize"))
    }

    /// Copies `host` (every element, x fastest, then y, then z or the layer) into the array.
    pub fn upload(&mut self, host: &[T]) -> Result<(), RuntimeError> {
        if host.len() != self.desc.elements() {
            return invalid(format!("{} values for an array of {} elements", host.len(), self.desc.elements()));
        }
        self.copy(host.as_ptr().cast_mut(), true)
    }

    /// The array's elements, in the order [`upload`](Self::upload) takes them.
    pub fn download(&self) -> Result<Vec<T>, RuntimeError> {
        let mut v = vec![T::default(); self.desc.elements()];
        self.copy(v.as_mut_ptr(), false)?;
        Ok(v)
    }
}

/// Waits for the context's work, so that no kernel in flight uses what is destroyed next.
fn quiesce(ctx: &CudaContext) {
    if ctx.bind_to_thread().is_ok() {
        // SAFETY: synchronises the current context; an error leaves nothing to undo.
        let _ = unsafe { sys::cuCtxSynchronize() };
    }
}

impl<T: Texel> Drop for CudaArray<T> {
    fn drop(&mut self) {
        quiesce(&self.ctx);
        // SAFETY: the handle came from cuArray3DCreate and nothing borrows the array now.
        let _ = unsafe { sys::cuArrayDestroy(self.raw) };
    }
}

/// How integer texels come back: as their values, or (8- and 16-bit ones) as floats
/// normalised to `[0, 1]` (`[-1, 1]` for signed ones). Float texels come back as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReadMode {
    #[default]
    Element,
    NormalizedFloat,
}

/// A texture's sampler state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TextureDesc {
    pub address: [AddressMode; 3],
    pub filter: FilterMode,
    /// Coordinates in `[0, 1)` across the texture rather than in texels.
    pub normalized_coords: bool,
    pub read: ReadMode,
    /// The colour of [`AddressMode::ClampToBorder`].
    pub border: [f32; 4],
}

impl TextureDesc {
    fn raw<T: Texel>(&self) -> Result<sys::CUDA_TEXTURE_DESC, RuntimeError> {
        use sys::CUaddress_mode::*;
        if T::INTEGER && T::BITS == 32 && self.read == ReadMode::NormalizedFloat {
            return invalid("32-bit integer texels are read as integers only (ReadMode::Element)".into());
        }
        if self.filter == FilterMode::Linear && T::INTEGER && self.read == ReadMode::Element {
            return invalid("linear filtering returns floats: read 8- and 16-bit integer texels as ReadMode::NormalizedFloat".into());
        }
        if self.address.contains(&AddressMode::ClampOgl) {
            return invalid(
                "ClampOgl is a mode of PTX samplers only: a texture object takes Wrap, Mirror, ClampToEdge or ClampToBorder".into(),
            );
        }
        if !self.normalized_coords && self.address.iter().any(|a| matches!(a, AddressMode::Wrap | AddressMode::Mirror)) {
            return invalid("the wrap and mirror address modes need normalized coordinates".into());
        }
        // SAFETY: all-zero is a valid CUDA_TEXTURE_DESC (point filtering, wrap, no flags).
        let mut d: sys::CUDA_TEXTURE_DESC = unsafe { std::mem::zeroed() };
        d.addressMode = self.address.map(|a| match a {
            AddressMode::Wrap => CU_TR_ADDRESS_MODE_WRAP,
            AddressMode::ClampToEdge | AddressMode::ClampOgl => CU_TR_ADDRESS_MODE_CLAMP,
            AddressMode::Mirror => CU_TR_ADDRESS_MODE_MIRROR,
            AddressMode::ClampToBorder => CU_TR_ADDRESS_MODE_BORDER,
        });
        let filter = match self.filter {
            FilterMode::Nearest => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            FilterMode::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
        };
        (d.filterMode, d.mipmapFilterMode) = (filter, filter);
        if T::INTEGER && self.read == ReadMode::Element {
            d.flags |= sys::CU_TRSF_READ_AS_INTEGER;
        }
        if self.normalized_coords {
            d.flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
        }
        d.borderColor = self.border;
        Ok(d)
    }
}

/// A buffer a texture reads, for the launch's event records.
trait ReadBuffer {
    fn read_record<'s>(&'s self, stream: &'s CudaStream) -> SyncOnDrop<'s>;
}
impl<T> ReadBuffer for CudaSlice<T> {
    fn read_record<'s>(&'s self, stream: &'s CudaStream) -> SyncOnDrop<'s> {
        self.device_ptr(stream).1
    }
}

/// A texture object: a view of an array or a buffer with its sampler state, passed as
/// `&tex` for a [`Texture`] kernel parameter. It borrows what it views for `'a`.
pub struct TexObject<'a> {
    raw: sys::CUtexObject,
    ctx: Arc<CudaContext>,
    buf: Option<&'a dyn ReadBuffer>,
    _viewed: PhantomData<&'a ()>,
}

impl std::fmt::Debug for TexObject<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "TexObject({:#x})", self.raw)
    }
}

impl<'a> TexObject<'a> {
    fn create(
        ctx: &Arc<CudaContext>,
        res: sys::CUDA_RESOURCE_DESC,
        tex: sys::CUDA_TEXTURE_DESC,
        buf: Option<&'a dyn ReadBuffer>,
    ) -> Result<Self, RuntimeError> {
        ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        let mut raw = 0;
        // SAFETY: both descriptors are complete; no resource view.
        unsafe { sys::cuTexObjectCreate(&mut raw, &res, &tex, std::ptr::null()) }.result().map_err(drv("cuTexObjectCreate"))?;
        Ok(TexObject { raw, ctx: ctx.clone(), buf, _viewed: PhantomData })
    }

    /// A texture over a CUDA array (of any dimension; layered arrays for `tex.a1d`/`a2d`).
    pub fn array<T: Texel>(array: &'a CudaArray<T>, desc: &TextureDesc) -> Result<Self, RuntimeError> {
        let tex = desc.raw::<T>()?;
        // SAFETY: all-zero is a valid start; the union's array member is set.
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
        res.res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: array.raw };
        TexObject::create(&array.ctx, res, tex, None)
    }

    /// A 1-D texture over a buffer (`tex.1d` with `.s32` coordinates: element indices). A
    /// linear texture neither filters nor normalises coordinates, and has no address modes;
    /// the buffer must start at a multiple of the device's texture alignment (512 bytes on
    /// current GPUs; allocations are).
    pub fn linear<T: Texel + super::Elem>(buf: &'a CudaSlice<T>, desc: &TextureDesc) -> Result<Self, RuntimeError> {
        if desc.filter != FilterMode::Nearest || desc.normalized_coords {
            return invalid("a linear texture has point filtering and element coordinates".into());
        }
        if buf.is_empty() {
            return invalid("a texture over an empty buffer".into());
        }
        let ctx = buf.stream().context().clone();
        let max = limit(&ctx, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH)?;
        if buf.len() > max {
            return invalid(format!("a linear texture of {} elements exceeds this device's {max}", buf.len()));
        }
        let (ptr, _rec) = buf.device_ptr(buf.stream());
        Self::check_base(&ctx, ptr, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)?;
        // SAFETY: as in `array`, with the linear member.
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
        res.res.linear = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
            devPtr: ptr,
            format: T::FORMAT,
            numChannels: T::CHANNELS,
            sizeInBytes: buf.num_bytes(),
        };
        TexObject::create(&ctx, res, desc.raw::<T>()?, Some(buf))
    }

    /// A 2-D texture over a buffer of `height` rows of `width` elements, `pitch` elements
    /// apart (the pitch in bytes, and the buffer's address, multiples of the device's texture
    /// pitch alignment, 32 bytes on current GPUs).
    pub fn pitch2d<T: Texel + super::Elem>(
        buf: &'a CudaSlice<T>,
        width: usize,
        height: usize,
        pitch: usize,
        desc: &TextureDesc,
    ) -> Result<Self, RuntimeError> {
        let ctx = buf.stream().context().clone();
        let bytes = pitch * std::mem::size_of::<T>();
        let align = limit(&ctx, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT)?;
        if width == 0 || height == 0 || pitch < width {
            return invalid(format!("a pitched texture of {width} x {height} with a pitch of {pitch} elements"));
        }
        if bytes % align.max(1) != 0 {
            return invalid(format!("a pitch of {bytes} bytes is not a multiple of this device's {align}"));
        }
        if (height - 1) * pitch + width > buf.len() {
            return invalid(format!("{height} rows of {width} elements, {pitch} apart, do not fit a buffer of {}", buf.len()));
        }
        let (ptr, _rec) = buf.device_ptr(buf.stream());
        Self::check_base(&ctx, ptr, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT)?;
        // SAFETY: as in `array`, with the pitch2D member.
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_PITCH2D;
        res.res.pitch2D = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 {
            devPtr: ptr,
            format: T::FORMAT,
            numChannels: T::CHANNELS,
            width,
            height,
            pitchInBytes: bytes,
        };
        TexObject::create(&ctx, res, desc.raw::<T>()?, Some(buf))
    }

    /// The base address alignment the device requires of a texture's buffer (`attr`: the
    /// texture alignment for linear textures, the pitch alignment for pitched ones).
    fn check_base(ctx: &CudaContext, ptr: sys::CUdeviceptr, attr: sys::CUdevice_attribute) -> Result<(), RuntimeError> {
        let align = limit(ctx, attr)?.max(1) as u64;
        if ptr % align != 0 {
            return invalid(format!("a texture's buffer must start {align}-byte aligned (it starts at {ptr:#x})"));
        }
        Ok(())
    }

    /// The 64-bit handle the kernel receives.
    pub fn handle(&self) -> u64 {
        self.raw
    }
}

impl Drop for TexObject<'_> {
    fn drop(&mut self) {
        quiesce(&self.ctx);
        // SAFETY: the handle came from cuTexObjectCreate.
        let _ = unsafe { sys::cuTexObjectDestroy(self.raw) };
    }
}

/// A surface object over a CUDA array made with [`ArrayDesc::surface`], passed as `&surf`
/// for a [`Surface`] kernel parameter. It holds the array exclusively for `'a`: kernels
/// write it through the surface, and it can be read back once the surface is dropped.
pub struct SurfObject<'a> {
    raw: sys::CUsurfObject,
    ctx: Arc<CudaContext>,
    _array: PhantomData<&'a mut ()>,
}

impl std::fmt::Debug for SurfObject<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "SurfObject({:#x})", self.raw)
    }
}

impl<'a> SurfObject<'a> {
    pub fn new<T: Texel>(array: &'a mut CudaArray<T>) -> Result<Self, RuntimeError> {
        if !array.desc.surface {
            return invalid(format!("a surface needs an array made with ArrayDesc::surface: {:?}", array.desc));
        }
        // SAFETY: as in `TexObject::array`.
        let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
        res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
        res.res.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: array.raw };
        array.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        let mut raw = 0;
        // SAFETY: the descriptor names a live array with the surface flag.
        unsafe { sys::cuSurfObjectCreate(&mut raw, &res) }.result().map_err(drv("cuSurfObjectCreate"))?;
        Ok(SurfObject { raw, ctx: array.ctx.clone(), _array: PhantomData })
    }

    /// The 64-bit handle the kernel receives.
    pub fn handle(&self) -> u64 {
        self.raw
    }
}

impl Drop for SurfObject<'_> {
    fn drop(&mut self) {
        quiesce(&self.ctx);
        // SAFETY: the handle came from cuSurfObjectCreate.
        let _ = unsafe { sys::cuSurfObjectDestroy(self.raw) };
    }
}

#[diagnostic::do_not_recommend]
impl<'s, 'b> HostArg<Texture> for &'s TexObject<'b> {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        list.copy_handle(self.raw, &self.ctx, self.buf.map(|b| b.read_record(list.stream())))
    }
}

#[diagnostic::do_not_recommend]
impl<'s, 'b> HostArg<Surface> for &'s SurfObject<'b> {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        list.copy_handle(self.raw, &self.ctx, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_shapes_are_checked_before_the_driver() {
        assert_eq!(ArrayDesc::d3(4, 3, 2).elements(), 24);
        assert_eq!(ArrayDesc::layered_1d(5, 3).elements(), 15);
        assert_eq!(ArrayDesc::layered_2d(5, 2, 3).elements(), 30);
        assert!(ArrayDesc::d2(8, 8).surface().gather().check().is_ok());
        let refused = |d: ArrayDesc, what: &str| match d.check() {
            Err(RuntimeError::Invalid(m)) => assert!(m.contains(what), "{m}"),
            other => panic!("{d:?}: {other:?}"),
        };
        refused(ArrayDesc::d1(0), "needs a width");
        refused(ArrayDesc { layers: 2, ..ArrayDesc::d3(4, 4, 4) }, "1-D or 2-D");
        refused(ArrayDesc { depth: 4, ..ArrayDesc::d1(4) }, "needs a height");
        refused(ArrayDesc::d1(16).gather(), "2-D arrays only");
        refused(ArrayDesc::d3(4, 4, 4).gather(), "2-D arrays only");
    }

    #[test]
    fn sampler_states_are_checked_before_the_driver() {
        let linear = TextureDesc { filter: FilterMode::Linear, ..Default::default() };
        let d = linear.raw::<f32>().unwrap();
        assert_eq!(d.filterMode, sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR);
        assert_eq!(d.flags, 0, "float texels need no read-as-integer flag");
        assert_eq!(TextureDesc::default().raw::<[u16; 4]>().unwrap().flags, sys::CU_TRSF_READ_AS_INTEGER);
        let wrap = TextureDesc { address: [AddressMode::Wrap; 3], normalized_coords: true, ..Default::default() };
        let d = wrap.raw::<[u8; 4]>().unwrap();
        assert_eq!(
            (d.flags, d.addressMode[2]),
            (sys::CU_TRSF_NORMALIZED_COORDINATES | sys::CU_TRSF_READ_AS_INTEGER, sys::CUaddress_mode::CU_TR_ADDRESS_MODE_WRAP)
        );
        let refused = |r: Result<sys::CUDA_TEXTURE_DESC, RuntimeError>, what: &str| match r {
            Err(RuntimeError::Invalid(m)) => assert!(m.contains(what), "{m}"),
            other => panic!("{:?}", other.map(|d| d.flags)),
        };
        refused(linear.raw::<u8>(), "linear filtering returns floats");
        assert!(TextureDesc { read: ReadMode::NormalizedFloat, ..linear }.raw::<i16>().is_ok());
        refused(TextureDesc { read: ReadMode::NormalizedFloat, ..Default::default() }.raw::<u32>(), "32-bit integer texels");
        refused(TextureDesc { address: [AddressMode::Mirror; 3], ..Default::default() }.raw::<f32>(), "need normalized coordinates");
        refused(TextureDesc { address: [AddressMode::ClampOgl; 3], ..Default::default() }.raw::<f32>(), "PTX samplers only");
    }
}
