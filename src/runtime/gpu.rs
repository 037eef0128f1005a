//! The device: [`Gpu`] opens a GPU's primary context and stream, copies memory to and from
//! it, and times work with CUDA events; [`median`] summarises the timings.

use super::elem::bytes_of;
use super::error::drv;
use super::{CudaContext, CudaSlice, CudaStream, Elem, RuntimeError};
use crate::builder::Suffix;
use crate::Target;
use cudarc::driver::result;
use cudarc::driver::{sys, DevicePtr, DevicePtrMut};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// How `CUDA_CACHE_DISABLE` stood when this module first initialised the driver.
static JIT_CACHE_DISABLED: OnceLock<bool> = OnceLock::new();

/// One GPU: its primary context and a stream (the context's default stream), which
/// launches, copies and timings use unless told otherwise.
///
/// ```no_run
/// let gpu = ptxkit::runtime::Gpu::new()?;
/// println!("{} sm_{}{}", gpu.name(), gpu.compute_capability().0, gpu.compute_capability().1);
/// # Ok::<(), ptxkit::runtime::RuntimeError>(())
/// ```
pub struct Gpu {
    pub(super) ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    name: String,
    cc: (u32, u32),
    driver: (u32, u32),
    pub(super) smem_optin: u32,
    sms: u32,
    jit_cache_disabled: bool,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("ordinal", &self.ctx.ordinal())
            .field("name", &self.name)
            .field("compute_capability", &self.cc)
            .field("driver", &self.driver)
            .finish()
    }
}

impl Gpu {
    /// Opens device 0.
    pub fn new() -> Result<Gpu, RuntimeError> {
        Gpu::with_ordinal(0)
    }

    /// Opens device `ordinal`. Fails with [`RuntimeError::NoDriver`] when the driver
    /// library is missing, and with the driver's error (`CUDA_ERROR_NO_DEVICE`) when it
    /// finds no GPU.
    pub fn with_ordinal(ordinal: usize) -> Result<Gpu, RuntimeError> {
        // SAFETY: only tries to open the library by its known names.
        if !unsafe { sys::is_culib_present() } {
            return Err(RuntimeError::NoDriver);
        }
        let jit_cache_disabled = *JIT_CACHE_DISABLED.get_or_init(|| std::env::var("CUDA_CACHE_DISABLE").as_deref() == Ok("1"));
        result::init().map_err(drv("cuInit"))?;
        let count = result::device::get_count().map_err(drv("cuDeviceGetCount"))?;
        if ordinal >= count as usize {
            return Err(RuntimeError::Invalid(format!("no CUDA device {ordinal}: the driver sees {count}")));
        }
        let ctx = CudaContext::new(ordinal).map_err(drv("cuDevicePrimaryCtxRetain"))?;
        let name = ctx.name().map_err(drv("cuDeviceGetName"))?;
        let (major, minor) = ctx.compute_capability().map_err(drv("cuDeviceGetAttribute"))?;
        let optin = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_err(drv("cuDeviceGetAttribute"))?;
        let sms = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).map_err(drv("cuDeviceGetAttribute"))?;
        let mut version = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut version) }.result().map_err(drv("cuDriverGetVersion"))?;
        let stream = ctx.default_stream();
        Ok(Gpu {
            ctx,
            stream,
            name,
            cc: (major as u32, minor as u32),
            driver: (version as u32 / 1000, version as u32 % 1000 / 10),
            smem_optin: optin as u32,
            sms: sms as u32,
            jit_cache_disabled,
        })
    }

    /// The device name (`NVIDIA H100 80GB HBM3`).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// `(major, minor)`: `(9, 0)` for sm_90.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.cc
    }
    /// The driver's CUDA version, `(major, minor)`: `(13, 0)`.
    pub fn driver_version(&self) -> (u32, u32) {
        self.driver
    }
    /// The plain target of this device (`sm_90` for compute capability 9.0), if ptxkit
    /// knows it. Architecture-specific instructions need the `a` variant (`Target::SM_90A`).
    pub fn target(&self) -> Option<Target> {
        let sm = (self.cc.0 * 10 + self.cc.1) as u16;
        Target::ALL.iter().copied().find(|t| t.sm() == sm && t.suffix() == Suffix::None)
    }
    /// The number of multiprocessors.
    pub fn multiprocessors(&self) -> u32 {
        self.sms
    }
    /// The most dynamic shared memory a block can opt in to, in bytes.
    pub fn max_shared_bytes(&self) -> u32 {
        self.smem_optin
    }
    /// Whether `CUDA_CACHE_DISABLE=1` was set when this process first initialised the
    /// driver through this module, so that every load compiles cold (see the module docs).
    pub fn jit_cache_disabled(&self) -> bool {
        self.jit_cache_disabled
    }
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
    /// The stream launches, copies and timings use by default.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
    /// Waits for all work on [`Gpu::stream`].
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        self.stream.synchronize().map_err(drv("cuStreamSynchronize"))
    }

    /// A new device buffer of `len` elements whose contents are undefined until written.
    ///
    /// # Safety
    ///
    /// The caller writes the buffer, in stream order, before anything reads it.
    pub unsafe fn alloc<T: Elem>(&self, len: usize) -> Result<CudaSlice<T>, RuntimeError> {
        let bytes =
            len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| RuntimeError::Invalid(format!("a buffer of {len} elements")))?;
        // SAFETY: the caller writes the bytes before they are read; `T` is plain data, so
        // `len` of them fill exactly the allocation, which the new slice owns and frees.
        unsafe {
            let raw = self.stream.alloc::<u8>(bytes).map_err(drv("cuMemAllocAsync"))?;
            Ok(self.stream.upgrade_device_ptr(raw.leak(), len))
        }
    }
    /// Copies `host` into a new device buffer.
    pub fn upload<T: Elem>(&self, host: &[T]) -> Result<CudaSlice<T>, RuntimeError> {
        // SAFETY: the copy below writes every byte, in stream order.
        let mut buf = unsafe { self.alloc::<T>(host.len()) }?;
        let (ptr, _record) = buf.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` addresses `size_of_val(host)` bytes; the copy is ordered before any
        // use of the buffer on the stream, and the stream holds on to nothing of `host`
        // after the call returns (a pageable copy is staged by the driver).
        unsafe { result::memcpy_htod_async(ptr, bytes_of(host), self.stream.cu_stream()) }.map_err(drv("cuMemcpyHtoDAsync"))?;
        drop(_record);
        Ok(buf)
    }
    /// A new device buffer of `len` zeros.
    pub fn zeros<T: Elem>(&self, len: usize) -> Result<CudaSlice<T>, RuntimeError> {
        // SAFETY: the memset writes every byte, in stream order; zero bytes are a value of
        // any `Elem`.
        let mut buf = unsafe { self.alloc::<T>(len) }?;
        self.fill_bytes(&mut buf, 0)?;
        Ok(buf)
    }
    /// Copies a device buffer (or view) to the host, waiting for the stream.
    pub fn download<T: Elem>(&self, buf: &impl DevicePtr<T>) -> Result<Vec<T>, RuntimeError> {
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        let n = buf.len();
        let mut out: Vec<T> = Vec::with_capacity(n);
        let (ptr, record) = buf.device_ptr(&self.stream);
        // SAFETY: `out` has room for `n` elements, the bytes `ptr` addresses; the stream is
        // synchronised before they are read, and any bytes are a value of an `Elem`.
        unsafe {
            let dst = std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>());
            result::memcpy_dtoh_async(dst, ptr, self.stream.cu_stream()).map_err(drv("cuMemcpyDtoHAsync"))?;
            drop(record);
            self.synchronize()?;
            out.set_len(n);
        }
        Ok(out)
    }
    /// Sets every byte of `dst` to `byte` (`cuMemsetD8Async`).
    pub fn fill_bytes<T>(&self, dst: &mut impl DevicePtrMut<T>, byte: u8) -> Result<(), RuntimeError> {
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        let bytes = dst.num_bytes();
        let (ptr, _record) = dst.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` addresses `bytes` bytes of `dst`, which stays borrowed meanwhile.
        unsafe { result::memset_d8_async(ptr, byte, bytes, self.stream.cu_stream()) }.map_err(drv("cuMemsetD8Async"))
    }
    /// Copies all of `src` to the front of `dst` on the device (`cuMemcpyDtoDAsync`): the
    /// bandwidth baseline for copy-like kernels.
    ///
    /// ```no_run
    /// # let gpu = ptxkit::runtime::Gpu::new()?;
    /// let src = gpu.zeros::<f32>(1 << 26)?;
    /// let mut dst = gpu.zeros::<f32>(1 << 26)?;
    /// let ms = ptxkit::runtime::median(&gpu.bench(3, 20, || gpu.memcpy_dtod(&src, &mut dst))?).unwrap();
    /// println!("{:.0} GB/s", 2.0 * 4.0 * (1u64 << 26) as f64 / (ms as f64 * 1e6));
    /// # Ok::<(), ptxkit::runtime::RuntimeError>(())
    /// ```
    pub fn memcpy_dtod<T>(&self, src: &impl DevicePtr<T>, dst: &mut impl DevicePtrMut<T>) -> Result<(), RuntimeError> {
        if dst.len() < src.len() {
            return Err(RuntimeError::Invalid(format!("copy of {} elements into a buffer of {}", src.len(), dst.len())));
        }
        self.stream.memcpy_dtod(src, dst).map_err(drv("cuMemcpyDtoDAsync"))
    }

    fn event(&self) -> Result<cudarc::driver::CudaEvent, RuntimeError> {
        self.ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(drv("cuEventCreate"))
    }

    /// Runs `work` between two events recorded on [`Gpu::stream`] and returns the GPU time
    /// between them in milliseconds. Work must go to that stream (a
    /// [`Launch`](super::Launch) without [`Launch::on`](super::Launch::on) does).
    pub fn time(&self, work: impl FnOnce() -> Result<(), RuntimeError>) -> Result<f32, RuntimeError> {
        let (start, stop) = (self.event()?, self.event()?);
        start.record(&self.stream).map_err(drv("cuEventRecord"))?;
        work()?;
        stop.record(&self.stream).map_err(drv("cuEventRecord"))?;
        start.elapsed_ms(&stop).map_err(drv("cuEventElapsedTime"))
    }

    /// Runs `work` `warmup` times untimed, then `iters` times back to back with an event
    /// between runs, and returns each run's GPU time in milliseconds. Work must go to
    /// [`Gpu::stream`].
    ///
    /// ```no_run
    /// # let gpu = ptxkit::runtime::Gpu::new()?;
    /// # let (src, mut dst) = (gpu.zeros::<u8>(1 << 20)?, gpu.zeros::<u8>(1 << 20)?);
    /// let times = gpu.bench(3, 50, || gpu.memcpy_dtod(&src, &mut dst))?;
    /// println!("median {:.3} ms", ptxkit::runtime::median(&times).unwrap());
    /// # Ok::<(), ptxkit::runtime::RuntimeError>(())
    /// ```
    pub fn bench(&self, warmup: usize, iters: usize, mut work: impl FnMut() -> Result<(), RuntimeError>) -> Result<Vec<f32>, RuntimeError> {
        for _ in 0..warmup {
            work()?;
        }
        let events = (0..=iters).map(|_| self.event()).collect::<Result<Vec<_>, _>>()?;
        events[0].record(&self.stream).map_err(drv("cuEventRecord"))?;
        for e in &events[1..] {
            work()?;
            e.record(&self.stream).map_err(drv("cuEventRecord"))?;
        }
        events.windows(2).map(|w| w[0].elapsed_ms(&w[1]).map_err(drv("cuEventElapsedTime"))).collect()
    }
}

/// The median of `samples` (the mean of the middle two for an even count); `None` when
/// empty.
pub fn median(samples: &[f32]) -> Option<f32> {
    let mut s = samples.to_vec();
    s.sort_by(f32::total_cmp);
    let n = s.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(s[n / 2]),
        _ => Some((s[n / 2 - 1] + s[n / 2]) / 2.0),
    }
}
