//! Loading and launching kernels on a GPU through the CUDA driver API (feature `cuda`).
//!
//! The driver library is loaded at run time, so a build with this feature needs no CUDA
//! install, and [`Gpu::new`] returns an error (never panics) on a machine without a driver
//! or GPU. Tests that need a GPU use [`testing::gpu_or_skip`].
//!
//! A launch is typed by the kernel's parameter tuple: [`TypedKernel<P>::launch`] takes a
//! host tuple whose elements match `P` one by one ([`HostArg`]): a `T::Host` value for a
//! `Reg<T>` (an `f32` for `Reg<F32>`), and a `&CudaSlice<T::Host>` or `&mut
//! CudaSlice<T::Host>` (or a view) for a `GlobalPtr<T>` or `GenericPtr<T>`. A buffer of
//! another element type, or a wrong number of arguments, does not compile.
//!
//! ```no_run
//! use ptxkit::prelude::*;
//! use ptxkit::runtime::{Gpu, Launch};
//!
//! let gpu = Gpu::new()?;
//! let mut m = Module::new(Target::SM_80);
//! let scale = m.kernel("scale", |k, (x, a, n): (GlobalPtr<F32>, Reg<F32>, Reg<U32>)| {
//!     let i = k.global_thread_index_x();
//!     let inb = ptx!(k, "setp.lt.u32", i, n);
//!     k.if_(inb, |k| {
//!         let v = ptx!(k, "ld.global.f32", x.at(i));
//!         let r = ptx!(k, "mul.rn.f32", v, a);
//!         ptx!(k, "st.global.f32", x.at(i), r);
//!     });
//! })?;
//! let module = gpu.load(&m.to_ptx()?)?;
//! let scale = module.kernel(&scale)?;
//! let mut x = gpu.upload(&[1.0f32, 2.0, 3.0])?;
//! scale.launch(&Launch::cover(3, 128), (&mut x, 2.0f32, 3u32))?;
//! assert_eq!(gpu.download(&x)?, [2.0, 4.0, 6.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The JIT cache
//!
//! The driver keeps compiled PTX in an on-disk cache, so a second load of the same text
//! in a later process is not a cold compile. The driver reads `CUDA_CACHE_DISABLE=1` once,
//! when it initialises: to time cold JIT, start a fresh process with that variable set
//! (not `std::env::set_var` after a [`Gpu`] exists). [`Gpu::jit_cache_disabled`] says how
//! the variable stood when this process first initialised the driver through this module.
//!
//! # What the types do not check
//!
//! The typing fixes each argument's size and kind; it cannot see what the kernel does
//! with memory. A kernel that indexes out of bounds corrupts device memory or faults the
//! context, which later calls report as [`RuntimeError::Driver`].

pub mod testing;

use crate::builder::{KernelRef, Suffix};
use crate::ops::{m, Generic};
use crate::regs::{Ptr, Reg};
use crate::types::{self, DataType};
use crate::Target;
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{sys, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop, ValidAsZeroBits};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

pub use cudarc;
pub use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr};

// ---- errors ---------------------------------------------------------------------------------

/// An error of the runtime layer.
#[derive(Debug)]
pub enum RuntimeError {
    /// The CUDA driver library (`libcuda.so` / `nvcuda.dll`) could not be loaded.
    NoDriver,
    /// A driver call failed; `code`'s name is the driver's (`CUDA_ERROR_NO_DEVICE`).
    Driver { call: &'static str, code: sys::CUresult },
    /// A module failed to load; see [`LoadError`].
    Load(LoadError),
    /// A request refused before it reached the driver: a zero launch dimension, a buffer
    /// or stream of another context, a copy into a shorter buffer, too much shared memory.
    Invalid(String),
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RuntimeError::NoDriver => f.write_str("the CUDA driver library (libcuda) could not be loaded"),
            RuntimeError::Driver { call, code } => {
                write!(f, "{call} failed: {code:?}")?;
                if let Ok(s) = DriverError(*code).error_string() {
                    write!(f, " ({})", s.to_string_lossy())?;
                }
                Ok(())
            }
            RuntimeError::Load(e) => e.fmt(f),
            RuntimeError::Invalid(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RuntimeError::Load(e) => Some(e),
            _ => None,
        }
    }
}

/// A failure of a cudarc call made outside this module, so that `?` works on it.
impl From<DriverError> for RuntimeError {
    fn from(e: DriverError) -> Self {
        RuntimeError::Driver { call: "CUDA driver call", code: e.0 }
    }
}

impl From<LoadError> for RuntimeError {
    fn from(e: LoadError) -> Self {
        RuntimeError::Load(e)
    }
}

/// A module that failed to load: the failing call, its result code, and the JIT's error
/// and info logs as the driver wrote them.
#[derive(Clone, Debug)]
pub struct LoadError {
    pub call: &'static str,
    pub code: sys::CUresult,
    /// The JIT compiler's error log, verbatim (empty when the failure came before JIT).
    pub error_log: String,
    pub info_log: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} failed: {:?}", self.call, self.code)?;
        if !self.error_log.is_empty() {
            write!(f, "\n{}", self.error_log)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

fn drv(call: &'static str) -> impl Fn(DriverError) -> RuntimeError {
    move |e| RuntimeError::Driver { call, code: e.0 }
}

// ---- the device -----------------------------------------------------------------------------

/// How `CUDA_CACHE_DISABLE` stood when this module first initialised the driver.
static JIT_CACHE_DISABLED: OnceLock<bool> = OnceLock::new();

/// Shared memory a block gets without opting in.
const DEFAULT_SMEM_BYTES: u32 = 48 * 1024;

/// One GPU: its primary context and a stream (the context's default stream), which
/// launches, copies and timings use unless told otherwise.
///
/// ```no_run
/// let gpu = ptxkit::runtime::Gpu::new()?;
/// println!("{} sm_{}{}", gpu.name(), gpu.compute_capability().0, gpu.compute_capability().1);
/// # Ok::<(), ptxkit::runtime::RuntimeError>(())
/// ```
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    cc: (u32, u32),
    driver: (u32, u32),
    smem_optin: u32,
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
        Target::ALL.iter().copied().find(|t| t.sm == sm && t.suffix == Suffix::None)
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

    /// Loads PTX text with `cuModuleLoadDataEx`, JIT-compiling it for this device. The
    /// driver's error log comes back in the [`LoadError`]; on success the module keeps the
    /// wall time of the load and the JIT's (verbose) info log.
    ///
    /// ```no_run
    /// # let gpu = ptxkit::runtime::Gpu::new()?;
    /// match gpu.load(".version 8.0\n.target sm_90\n.address_size 64\nbogus;") {
    ///     Ok(m) => println!("JIT took {:?}", m.jit_time()),
    ///     Err(e) => eprintln!("{:?}:\n{}", e.code, e.error_log),
    /// }
    /// # Ok::<(), ptxkit::runtime::RuntimeError>(())
    /// ```
    pub fn load(&self, ptx: &str) -> Result<LoadedModule, LoadError> {
        const LOG_BYTES: usize = 64 * 1024;
        let fail = |call, code| LoadError { call, code, error_log: String::new(), info_log: String::new() };
        self.ctx.bind_to_thread().map_err(|e| fail("cuCtxSetCurrent", e.0))?;
        let mut image = Vec::with_capacity(ptx.len() + 1);
        image.extend_from_slice(ptx.as_bytes());
        image.push(0);
        let mut error_log = vec![0u8; LOG_BYTES];
        let mut info_log = vec![0u8; LOG_BYTES];
        use sys::CUjit_option::*;
        let mut options = [
            CU_JIT_ERROR_LOG_BUFFER,
            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_INFO_LOG_BUFFER,
            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_LOG_VERBOSE,
        ];
        let mut values: [*mut c_void; 5] = [
            error_log.as_mut_ptr().cast(),
            LOG_BYTES as *mut c_void,
            info_log.as_mut_ptr().cast(),
            LOG_BYTES as *mut c_void,
            1usize as *mut c_void,
        ];
        let mut module: sys::CUmodule = std::ptr::null_mut();
        let start = Instant::now();
        // SAFETY: `image` is NUL-terminated; each option has its value; the log buffers
        // hold the sizes given, and outlive the call.
        let res = unsafe {
            sys::cuModuleLoadDataEx(&mut module, image.as_ptr().cast(), options.len() as u32, options.as_mut_ptr(), values.as_mut_ptr())
        };
        let jit_time = start.elapsed();
        let text = |buf: &[u8]| String::from_utf8_lossy(&buf[..buf.iter().position(|&b| b == 0).unwrap_or(buf.len())]).into_owned();
        let info_log = text(&info_log);
        if let Err(e) = res.result() {
            return Err(LoadError { call: "cuModuleLoadDataEx", code: e.0, error_log: text(&error_log), info_log });
        }
        let handle = ModuleHandle { module, ctx: self.ctx.clone(), stream: self.stream.clone(), smem_optin: self.smem_optin };
        Ok(LoadedModule { handle: Arc::new(handle), jit_time, info_log })
    }

    /// Copies `host` into a new device buffer.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>, RuntimeError> {
        self.stream.clone_htod(host).map_err(drv("cuMemcpyHtoDAsync"))
    }
    /// A new device buffer of `len` zeros.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<T>, RuntimeError> {
        self.stream.alloc_zeros(len).map_err(drv("cuMemAllocAsync"))
    }
    /// Copies a device buffer (or view) to the host, waiting for the stream.
    pub fn download<T: DeviceRepr>(&self, buf: &impl DevicePtr<T>) -> Result<Vec<T>, RuntimeError> {
        self.stream.clone_dtoh(buf).map_err(drv("cuMemcpyDtoHAsync"))
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
    /// between them in milliseconds. Work must go to that stream (a [`Launch`] without
    /// [`Launch::on`] does).
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

// ---- modules and kernels --------------------------------------------------------------------

struct ModuleHandle {
    module: sys::CUmodule,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    smem_optin: u32,
}

// SAFETY: driver module and function handles may be used from any thread; every call
// binds the context first.
unsafe impl Send for ModuleHandle {}
unsafe impl Sync for ModuleHandle {}

impl Drop for ModuleHandle {
    fn drop(&mut self) {
        self.ctx.record_err(self.ctx.bind_to_thread());
        // SAFETY: the module was loaded once and every kernel taken from it holds this
        // handle, so none outlives the unload.
        self.ctx.record_err(unsafe { result::module::unload(self.module) });
    }
}

/// A loaded PTX module.
pub struct LoadedModule {
    handle: Arc<ModuleHandle>,
    jit_time: Duration,
    info_log: String,
}

impl fmt::Debug for LoadedModule {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("LoadedModule").field("jit_time", &self.jit_time).field("info_log", &self.info_log).finish_non_exhaustive()
    }
}

impl LoadedModule {
    /// Wall time of the `cuModuleLoadDataEx` call: the JIT compile, or a cache hit unless
    /// the cache is off (see the module docs).
    pub fn jit_time(&self) -> Duration {
        self.jit_time
    }
    /// The JIT's info log (verbose: ptxas's register and memory usage lines).
    pub fn info_log(&self) -> &str {
        &self.info_log
    }

    /// The kernel `k` in this module, launchable with host arguments matching `P`.
    pub fn kernel<P>(&self, k: &KernelRef<P>) -> Result<TypedKernel<P>, RuntimeError> {
        let h = &self.handle;
        h.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        let name =
            std::ffi::CString::new(k.name()).map_err(|_| RuntimeError::Invalid(format!("kernel name `{}` holds a NUL", k.name())))?;
        // SAFETY: the module is loaded and stays so while `handle` lives.
        let func = unsafe { result::module::get_function(h.module, name) }.map_err(drv("cuModuleGetFunction"))?;
        Ok(TypedKernel {
            func,
            module: self.handle.clone(),
            name: k.name().into(),
            smem_set: AtomicU32::new(DEFAULT_SMEM_BYTES),
            nonportable: AtomicBool::new(false),
            _p: PhantomData,
        })
    }
}

/// A kernel of a [`LoadedModule`] whose parameter tuple is `P`.
pub struct TypedKernel<P> {
    func: sys::CUfunction,
    module: Arc<ModuleHandle>,
    name: Arc<str>,
    /// The dynamic shared memory the function is opted in to so far.
    smem_set: AtomicU32,
    nonportable: AtomicBool,
    _p: PhantomData<fn(P)>,
}

// SAFETY: as for `ModuleHandle`; `P` is only a marker.
unsafe impl<P> Send for TypedKernel<P> {}
unsafe impl<P> Sync for TypedKernel<P> {}

impl<P> fmt::Debug for TypedKernel<P> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("TypedKernel").field("name", &self.name).finish_non_exhaustive()
    }
}

impl<P> TypedKernel<P> {
    pub fn name(&self) -> &str {
        &self.name
    }

    fn set_attribute(&self, attr: sys::CUfunction_attribute, value: u32) -> Result<(), RuntimeError> {
        // SAFETY: the function lives while `self.module` does.
        unsafe { result::function::set_function_attribute(self.func, attr, value as i32) }.map_err(drv("cuFuncSetAttribute"))
    }

    /// Opts the function in to the launch's dynamic shared memory and cluster size.
    fn configure(&self, cfg: &Launch) -> Result<(), RuntimeError> {
        let bytes = cfg.shared_bytes;
        if bytes > self.smem_set.load(Ordering::Relaxed) {
            let optin = self.module.smem_optin;
            if bytes > optin {
                return Err(RuntimeError::Invalid(format!(
                    "{bytes} bytes of dynamic shared memory for `{}` exceed the device's {optin}",
                    self.name
                )));
            }
            self.set_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)?;
            self.smem_set.fetch_max(bytes, Ordering::Relaxed);
        }
        if cfg.cluster.is_some_and(|c| c.volume() > 8) && !self.nonportable.load(Ordering::Relaxed) {
            self.set_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)?;
            self.nonportable.store(true, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Launches the kernel with `cuLaunchKernelEx`. `args` is a tuple with one host value
    /// per kernel parameter ([`HostArg`]). Dynamic shared memory over 48 KiB is opted in
    /// to first, and clusters of more than 8 blocks are allowed, automatically.
    ///
    /// ```no_run
    /// use ptxkit::prelude::*;
    /// use ptxkit::runtime::{Gpu, Launch};
    /// # let gpu = Gpu::new()?;
    /// let mut m = Module::new(Target::SM_90);
    /// let fill = m.kernel("fill", |k, (out, v): (GlobalPtr<U32>, Reg<U32>)| {
    ///     let i = k.global_thread_index_x();
    ///     ptx!(k, "st.global.u32", out.at(i), v);
    /// })?;
    /// let fill = gpu.load(&m.to_ptx()?)?.kernel(&fill)?;
    /// let mut out = gpu.zeros::<u32>(1024)?;
    /// fill.launch(&Launch::new(8, 128).cluster(2), (&mut out, 7u32))?;
    /// // fill.launch(&Launch::new(8, 128), (&out, 7.0f32));  // does not compile: f32 for Reg<U32>
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn launch<A: LaunchArgs<P>>(&self, cfg: &Launch, args: A) -> Result<(), RuntimeError> {
        cfg.validate()?;
        let module = &*self.module;
        let stream: &CudaStream = cfg.stream.as_deref().unwrap_or(&module.stream);
        if **stream.context() != *module.ctx {
            return Err(RuntimeError::Invalid(format!("launch of `{}` on a stream of another context", self.name)));
        }
        module.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        self.configure(cfg)?;
        let mut list = ArgList { stream, values: [0; MAX_PARAMS], len: 0, guards: Vec::new() };
        args.push_all(&mut list)?;
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
        for (p, v) in params.iter_mut().zip(list.values.iter_mut()).take(list.len) {
            *p = (v as *mut u64).cast();
        }
        let mut cluster = cfg.cluster.map(|c| sys::CUlaunchAttribute {
            id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
            pad: [0; 4],
            value: sys::CUlaunchAttributeValue { clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x: c.x, y: c.y, z: c.z } },
        });
        let (attrs, num_attrs) = match cluster.as_mut() {
            Some(a) => (a as *mut sys::CUlaunchAttribute, 1),
            None => (std::ptr::null_mut(), 0),
        };
        let (g, b) = (cfg.grid, cfg.block);
        let config = sys::CUlaunchConfig {
            gridDimX: g.x,
            gridDimY: g.y,
            gridDimZ: g.z,
            blockDimX: b.x,
            blockDimY: b.y,
            blockDimZ: b.z,
            sharedMemBytes: cfg.shared_bytes,
            hStream: stream.cu_stream(),
            attrs,
            numAttrs: num_attrs,
        };
        // SAFETY: `params` points at one value per kernel parameter, of the parameter's
        // size (the `HostArg` impls fix both); the values, the attribute and the buffers
        // (borrowed by `args`) outlive the call. `list` drops after it, recording the
        // buffers' events behind the launch.
        unsafe { sys::cuLaunchKernelEx(&config, self.func, params.as_mut_ptr(), std::ptr::null_mut()) }
            .result()
            .map_err(drv("cuLaunchKernelEx"))
    }
}

// ---- launch configuration -------------------------------------------------------------------

/// Three launch dimensions; `8`, `(8, 4)` and `(8, 4, 2)` convert into one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    /// `x * y * z`.
    pub fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}
impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3 { x, y, z: 1 }
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3 { x, y, z }
    }
}

/// A launch configuration: grid and block dimensions, dynamic shared memory, optional
/// cluster dimensions, and the stream (by default the [`Gpu`]'s).
///
/// ```
/// use ptxkit::runtime::Launch;
/// let cfg = Launch::new((64, 2), 256).shared(96 * 1024).cluster((2, 1, 1));
/// assert_eq!(cfg.grid.volume(), 128);
/// assert_eq!(Launch::cover(1000, 256).grid.x, 4);
/// ```
#[derive(Clone, Debug)]
pub struct Launch {
    pub grid: Dim3,
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
    /// Blocks per cluster (compute capability 9.0 and newer); each grid dimension must be
    /// a multiple of the cluster's.
    pub cluster: Option<Dim3>,
    /// `None`: the stream of the [`Gpu`] that loaded the module.
    pub stream: Option<Arc<CudaStream>>,
}

impl Launch {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Launch {
        Launch { grid: grid.into(), block: block.into(), shared_bytes: 0, cluster: None, stream: None }
    }
    /// A 1-D launch of `block`-thread blocks covering `n` threads.
    pub fn cover(n: u32, block: u32) -> Launch {
        Launch::new(n.div_ceil(block.max(1)), block)
    }
    /// Sets the dynamic shared memory per block, in bytes.
    pub fn shared(mut self, bytes: u32) -> Launch {
        self.shared_bytes = bytes;
        self
    }
    /// Sets the cluster dimensions.
    pub fn cluster(mut self, dims: impl Into<Dim3>) -> Launch {
        self.cluster = Some(dims.into());
        self
    }
    /// Launches on `stream` instead of the [`Gpu`]'s.
    pub fn on(mut self, stream: &Arc<CudaStream>) -> Launch {
        self.stream = Some(stream.clone());
        self
    }

    /// Refuses zero dimensions, blocks of more than 1024 threads, and grids that clusters
    /// do not tile.
    pub fn validate(&self) -> Result<(), RuntimeError> {
        let bad = |what: String| Err(RuntimeError::Invalid(what));
        if self.grid.volume() == 0 || self.block.volume() == 0 {
            return bad(format!("launch dimensions must be positive: grid {:?}, block {:?}", self.grid, self.block));
        }
        if self.block.volume() > 1024 {
            return bad(format!("a block of {} threads exceeds 1024", self.block.volume()));
        }
        if let Some(c) = self.cluster {
            if c.volume() == 0 {
                return bad(format!("cluster dimensions must be positive: {c:?}"));
            }
            if self.grid.x % c.x != 0 || self.grid.y % c.y != 0 || self.grid.z % c.z != 0 {
                return bad(format!("grid {:?} is not a whole number of clusters {c:?}", self.grid));
            }
        }
        Ok(())
    }
}

// ---- typed arguments ------------------------------------------------------------------------

/// Kernels take at most this many parameters (the tuple impls' limit).
const MAX_PARAMS: usize = 12;

/// The argument values of one launch, and the buffers' event records that must follow it.
#[doc(hidden)]
pub struct ArgList<'a> {
    stream: &'a CudaStream,
    values: [u64; MAX_PARAMS],
    len: usize,
    guards: Vec<SyncOnDrop<'a>>,
}

impl<'a> ArgList<'a> {
    fn value<H: Copy>(&mut self, v: H) {
        const { assert!(std::mem::size_of::<H>() <= 8, "kernel parameter values are at most 8 bytes") };
        let slot = &mut self.values[self.len];
        // SAFETY: `H` is plain data of at most 8 bytes, copied into an 8-byte slot.
        unsafe { std::ptr::copy_nonoverlapping((&v as *const H).cast::<u8>(), (slot as *mut u64).cast::<u8>(), std::mem::size_of::<H>()) };
        self.len += 1;
    }
    fn same_context<H>(&self, buf: &impl DeviceSlice<H>) -> Result<(), RuntimeError> {
        if buf.stream().context() == self.stream.context() {
            Ok(())
        } else {
            Err(RuntimeError::Invalid("a buffer of another CUDA context passed to a kernel".into()))
        }
    }
    fn read<H, D: DevicePtr<H>>(&mut self, buf: &'a D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let (ptr, guard) = buf.device_ptr(self.stream);
        self.guards.push(guard);
        self.value(ptr);
        Ok(())
    }
    fn write<H, D: DevicePtrMut<H>>(&mut self, buf: &'a mut D) -> Result<(), RuntimeError> {
        self.same_context(buf)?;
        let (ptr, guard) = buf.device_ptr_mut(self.stream);
        self.guards.push(guard);
        self.value(ptr);
        Ok(())
    }
}

/// A host value that can be passed for a kernel parameter of type `P`: `T::Host` for
/// `Reg<T>`; `&CudaSlice<T::Host>`, `&mut CudaSlice<T::Host>`, `&CudaView<T::Host>` or
/// `&mut CudaViewMut<T::Host>` for `GlobalPtr<T>` and `GenericPtr<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for kernel parameter `{P}`",
    label = "wrong host value for this kernel parameter",
    note = "a `Reg<T>` parameter takes a `T::Host` value (`f32` for `Reg<F32>`, `u32` for `Reg<U32>`, `half::f16` for `Reg<F16>`)",
    note = "a `GlobalPtr<T>` or `GenericPtr<T>` parameter takes `&CudaSlice<T::Host>` or `&mut CudaSlice<T::Host>` (or a view) of the same element type"
)]
pub trait HostArg<P> {
    #[doc(hidden)]
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a;
}

// The impls name each type rather than `T::Host` of a generic `T`: a mismatch then fails as
// "`HostArg` not implemented" with the message above, not as a projection mismatch.

macro_rules! scalar_args {
    ($($t:ident)*) => {$(
        impl HostArg<Reg<types::$t>> for <types::$t as DataType>::Host {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a {
                list.value(self);
                Ok(())
            }
        }
    )*};
}
// Every `ScalarParam` type.
scalar_args!(B8 B16 B32 B64 U8 U16 U32 U64 S8 S16 S32 S64 F32 F64 F16 Bf16 F16x2 Bf16x2);

macro_rules! pointer_args {
    ($($t:ident)*) => {$( pointer_args!(@ m::Global, $t); pointer_args!(@ Generic, $t); )*};
    (@ $space:ty, $t:ident) => {
        impl<'s> HostArg<Ptr<$space, types::$t>> for &'s CudaSlice<<types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.read(self) }
        }
        impl<'s> HostArg<Ptr<$space, types::$t>> for &'s mut CudaSlice<<types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.write(self) }
        }
        impl<'s, 'v> HostArg<Ptr<$space, types::$t>> for &'s CudaView<'v, <types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.read(self) }
        }
        impl<'s, 'v> HostArg<Ptr<$space, types::$t>> for &'s mut CudaViewMut<'v, <types::$t as DataType>::Host> {
            fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a { list.write(self) }
        }
    };
}
// Every data type but `.pred`.
pointer_args!(B8 B16 B32 B64 B128 U8 U16 U32 U64 S8 S16 S32 S64 F16 F16x2 Bf16 Bf16x2 Tf32 F32 F64 F32x2
    E4m3x2 E5m2x2 E2m1x2 E3m2x2 E2m3x2 Ue8m0x2 E4m3x4 E5m2x4 E2m1x4 E3m2x4 E2m3x4);

/// A tuple of host values matching a kernel's parameter tuple `P` element by element
/// (see [`HostArg`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not match the kernel's parameters `{P}`",
    label = "these launch arguments do not fit the kernel",
    note = "pass a tuple with one host value per kernel parameter, in order; one parameter takes `(x,)`"
)]
pub trait LaunchArgs<P> {
    #[doc(hidden)]
    fn push_all<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a;
}

macro_rules! launch_args {
    ($(($($a:ident $p:ident),*);)*) => {$(
        impl<$($a: HostArg<$p>, $p),*> LaunchArgs<($($p,)*)> for ($($a,)*) {
            #[allow(non_snake_case, unused_variables)]
            fn push_all<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError> where Self: 'a {
                let ($($a,)*) = self;
                $($a.push_arg(list)?;)*
                Ok(())
            }
        }
    )*};
}
launch_args! {
    ();
    (A0 P0);
    (A0 P0, A1 P1);
    (A0 P0, A1 P1, A2 P2);
    (A0 P0, A1 P1, A2 P2, A3 P3);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10);
    (A0 P0, A1 P1, A2 P2, A3 P3, A4 P4, A5 P5, A6 P6, A7 P7, A8 P8, A9 P9, A10 P10, A11 P11);
}

#[cfg(test)]
mod tests {
    use super::testing::{gpu_or_skip, poisoned};
    use super::*;
    use crate::prelude::*;

    #[test]
    fn launch_validation() {
        assert!(Launch::new(4, 256).validate().is_ok());
        assert!(Launch::new((4, 0), 256).validate().is_err());
        assert!(Launch::cover(0, 256).validate().is_err());
        assert!(Launch::new(4, (32, 33)).validate().is_err());
        assert!(Launch::new(4, 256).cluster(2).validate().is_ok());
        assert!(Launch::new(4, 256).cluster(3).validate().is_err());
        assert!(Launch::new(4, 256).cluster((1, 0, 1)).validate().is_err());
        assert_eq!(Launch::cover(1000, 256).grid, Dim3 { x: 4, y: 1, z: 1 });
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    type Add1 = KernelRef<(GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)>;

    /// `y[i] = x[i] + 1` for `i < n`.
    fn add1(target: Target) -> (Module, Add1) {
        let mut m = Module::new(target);
        let k = m
            .kernel("add1", |k, (x, y, n): (GlobalPtr<U32>, GlobalPtr<U32>, Reg<U32>)| {
                let i = k.global_thread_index_x();
                let inb = ptx!(k, "setp.lt.u32", i, n);
                k.if_(inb, |k| {
                    let v = ptx!(k, "ld.global.u32", x.at(i));
                    let r = ptx!(k, "add.u32", v, 1u32);
                    ptx!(k, "st.global.u32", y.at(i), r);
                });
            })
            .unwrap();
        (m, k)
    }

    #[test]
    fn add1_roundtrip() {
        let (m, k) = add1(Target::SM_80);
        let ptx = m.to_ptx().unwrap();
        let Some(gpu) = gpu_or_skip("add1_roundtrip") else { return };
        let module = gpu.load(&ptx).unwrap();
        assert!(module.jit_time() > Duration::ZERO);
        let add1 = module.kernel(&k).unwrap();
        let x = gpu.upload(&(0..1000u32).collect::<Vec<_>>()).unwrap();
        let mut y = poisoned::<u32>(&gpu, 1024).unwrap();
        add1.launch(&Launch::cover(1000, 256), (&x, &mut y, 1000u32)).unwrap();
        let y = gpu.download(&y).unwrap();
        assert!((0..1000).all(|i| y[i] == i as u32 + 1));
        assert!(y[1000..].iter().all(|&v| v == u32::MAX), "threads past n wrote");
    }

    #[test]
    fn jit_errors_carry_the_log() {
        let Some(gpu) = gpu_or_skip("jit_errors_carry_the_log") else { return };
        let e = gpu.load(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.u32 %r1; }").unwrap_err();
        assert_eq!(e.code, sys::CUresult::CUDA_ERROR_INVALID_PTX);
        assert!(e.error_log.contains("bogus"), "error log: {}", e.error_log);
        assert!(e.to_string().contains("CUDA_ERROR_INVALID_PTX"));
    }

    #[test]
    fn large_dynamic_shared_memory() {
        const WORDS: u32 = 24 * 1024; // 96 KiB: past the 48 KiB that needs no opt-in
        const BASE: u32 = WORDS - 256;
        let mut m = Module::new(Target::SM_80);
        let k = m
            .kernel("mirror", |k, (out,): (GlobalPtr<U32>,)| {
                let smem = k.dynamic_shared::<U32>();
                let t = ptx!(k, "mov.u32", sreg::TID_X);
                let at = ptx!(k, "add.u32", t, BASE);
                ptx!(k, "st.shared.u32", smem.at(at), t);
                ptx!(k, "bar.sync", 0u32);
                let back = ptx!(k, "sub.u32", WORDS - 1, t);
                let v = ptx!(k, "ld.shared.u32", smem.at(back));
                ptx!(k, "st.global.u32", out.at(t), v);
            })
            .unwrap();
        let ptx = m.to_ptx().unwrap();
        let Some(gpu) = gpu_or_skip("large_dynamic_shared_memory") else { return };
        let mirror = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
        let mut out = poisoned::<u32>(&gpu, 256).unwrap();
        mirror.launch(&Launch::new(1, 256).shared(WORDS * 4), (&mut out,)).unwrap();
        assert_eq!(gpu.download(&out).unwrap(), (0..256u32).rev().collect::<Vec<_>>());
        let too_much = Launch::new(1, 256).shared(gpu.max_shared_bytes() + 1);
        assert!(matches!(mirror.launch(&too_much, (&mut out,)), Err(RuntimeError::Invalid(_))));
    }

    #[test]
    fn cluster_launch() {
        let mut m = Module::new(Target::SM_90);
        let k = m
            .kernel("ranks", |k, (out,): (GlobalPtr<U32>,)| {
                let i = k.global_thread_index_x();
                let n = ptx!(k, "mov.u32", sreg::CLUSTER_NCTARANK);
                let r = ptx!(k, "mov.u32", sreg::CLUSTER_CTARANK);
                let v = ptx!(k, "mad.lo.u32", n, 16u32, r);
                ptx!(k, "st.global.u32", out.at(i), v);
            })
            .unwrap();
        let ptx = m.to_ptx().unwrap();
        let Some(gpu) = gpu_or_skip("cluster_launch") else { return };
        if gpu.compute_capability().0 < 9 {
            eprintln!("skipped cluster_launch: compute capability {:?} has no clusters", gpu.compute_capability());
            return;
        }
        let ranks = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
        let mut out = poisoned::<u32>(&gpu, 8 * 32).unwrap();
        ranks.launch(&Launch::new(8, 32).cluster(2), (&mut out,)).unwrap();
        let out = gpu.download(&out).unwrap();
        assert!(out.iter().enumerate().all(|(i, &v)| v == 2 * 16 + (i as u32 / 32) % 2), "{out:?}");
    }

    #[test]
    fn timing_and_copies() {
        let (m, k) = add1(Target::SM_80);
        let ptx = m.to_ptx().unwrap();
        let Some(gpu) = gpu_or_skip("timing_and_copies") else { return };
        let add1 = gpu.load(&ptx).unwrap().kernel(&k).unwrap();
        let n = 1u32 << 20;
        let x = gpu.zeros::<u32>(n as usize).unwrap();
        let mut y = gpu.zeros::<u32>(n as usize).unwrap();
        let ms = gpu.time(|| add1.launch(&Launch::cover(n, 256), (&x, &mut y, n))).unwrap();
        assert!(ms > 0.0);
        let times = gpu.bench(2, 5, || add1.launch(&Launch::cover(n, 256), (&x, &mut y, n))).unwrap();
        assert_eq!(times.len(), 5);
        assert!(times.iter().all(|&t| t > 0.0));
        let mut z = poisoned::<u32>(&gpu, n as usize).unwrap();
        gpu.memcpy_dtod(&y, &mut z).unwrap();
        assert!(gpu.download(&z).unwrap().iter().all(|&v| v == 1));
        let mut short = gpu.zeros::<u32>(4).unwrap();
        assert!(matches!(gpu.memcpy_dtod(&y, &mut short), Err(RuntimeError::Invalid(_))));
    }
}
