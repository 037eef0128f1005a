//! Loaded modules and their kernels: [`Gpu::load`] JIT-compiles PTX text and keeps the
//! driver's log and the load time; [`TypedKernel::launch`] runs a kernel with host arguments
//! checked against its parameter tuple.

use super::args::ArgList;
use super::error::drv;
use super::{CudaContext, CudaStream, Dim3, Gpu, Launch, LaunchArgs, LoadError, RuntimeError};
use crate::builder::KernelRef;
use crate::core::Probes;
use cudarc::driver::{result, sys};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Shared memory a block gets without opting in.
const DEFAULT_SMEM_BYTES: u32 = 48 * 1024;

impl Gpu {
    /// Loads PTX text with `cuModuleLoadDataEx`, JIT-compiling it for this device. The
    /// driver's error log comes back in the [`LoadError`]; on success the module keeps the
    /// wall time of the load and the JIT's (verbose) info log. Text with line info
    /// ([`Module::set_line_info`](crate::Module::set_line_info)) is compiled with it
    /// (`CU_JIT_GENERATE_LINE_INFO`), for compute-sanitizer and the profilers.
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
        let mut image = Vec::with_capacity(ptx.len() + 1);
        image.extend_from_slice(ptx.as_bytes());
        image.push(0);
        // Text with line info (`.file` directives: `Module::set_line_info`) keeps it through
        // the JIT, so compute-sanitizer and the profilers name the Rust lines.
        let line_info = ptx.starts_with(".file ") || ptx.contains("\n.file ");
        self.load_image(&image, line_info)
    }

    /// Loads a cubin (from [`ptxas::compile`](crate::ptxas::compile), or a file): the
    /// driver takes its code as it is, with no JIT. A cubin for another architecture, or
    /// one the driver cannot read (written by a newer toolkit than the driver knows),
    /// fails with a [`LoadError`] that says so.
    ///
    /// ```no_run
    /// use ptxkit::prelude::*;
    /// use ptxkit::ptxas::{compile, CompileOptions};
    /// # let gpu = ptxkit::runtime::Gpu::new()?;
    /// let mut m = Module::new(Target::SM_90A);
    /// let saxpy = ptxkit::kernels::saxpy(&mut m)?;
    /// let c = compile(&ptxkit::ptxas::find().unwrap(), &m.to_ptx()?, m.target(), &CompileOptions::default())?;
    /// let kernel = gpu.load_cubin(&c.cubin)?.kernel(&saxpy)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_cubin(&self, cubin: &[u8]) -> Result<LoadedModule, LoadError> {
        if !cubin.starts_with(b"\x7fELF") {
            let code = sys::CUresult::CUDA_ERROR_INVALID_IMAGE;
            let error_log = "not a cubin: it does not start with the ELF magic number".to_string();
            return Err(LoadError { call: "Gpu::load_cubin", code, error_log, info_log: String::new() });
        }
        self.load_image(cubin, false)
    }

    /// `cuModuleLoadDataEx` of an image: NUL-terminated PTX text, or a cubin.
    fn load_image(&self, image: &[u8], line_info: bool) -> Result<LoadedModule, LoadError> {
        const LOG_BYTES: usize = 64 * 1024;
        let fail = |call, code| LoadError { call, code, error_log: String::new(), info_log: String::new() };
        self.ctx.bind_to_thread().map_err(|e| fail("cuCtxSetCurrent", e.0))?;
        let mut error_log = vec![0u8; LOG_BYTES];
        let mut info_log = vec![0u8; LOG_BYTES];
        use sys::CUjit_option::*;
        let mut options = [
            CU_JIT_ERROR_LOG_BUFFER,
            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_INFO_LOG_BUFFER,
            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_LOG_VERBOSE,
            CU_JIT_GENERATE_LINE_INFO,
        ];
        let mut values: [*mut c_void; 6] = [
            error_log.as_mut_ptr().cast(),
            LOG_BYTES as *mut c_void,
            info_log.as_mut_ptr().cast(),
            LOG_BYTES as *mut c_void,
            1usize as *mut c_void,
            line_info as usize as *mut c_void,
        ];
        let mut module: sys::CUmodule = std::ptr::null_mut();
        let start = Instant::now();
        // SAFETY: `image` is NUL-terminated PTX or a cubin (whose ELF header gives its size);
        // each option has its value; the log buffers hold the sizes given, and outlive the
        // call.
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
}

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

    /// Writes `values` into the module variable `name` (`cuModuleGetGlobal`, then a copy
    /// in stream order on the module's stream, waited for): a `.global` or `.const` variable
    /// of exactly their size.
    pub fn write_global<T: super::Elem>(&self, name: &str, values: &[T]) -> Result<(), RuntimeError> {
        let h = &self.handle;
        h.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        let cname = std::ffi::CString::new(name).map_err(|_| RuntimeError::Invalid(format!("variable name `{name}` holds a NUL")))?;
        // SAFETY: the module is loaded and stays so while `handle` lives.
        let (ptr, bytes) = unsafe { result::module::get_global(h.module, cname) }.map_err(drv("cuModuleGetGlobal"))?;
        let src = super::elem::bytes_of(values);
        if bytes != src.len() {
            return Err(RuntimeError::Invalid(format!("module variable `{name}` holds {bytes} bytes, not {}", src.len())));
        }
        // SAFETY: `ptr` addresses the variable's `bytes` bytes, as many as `src` holds; the
        // copy is waited for before `src` goes.
        unsafe { result::memcpy_htod_async(ptr, src, h.stream.cu_stream()) }.map_err(drv("cuMemcpyHtoDAsync"))?;
        h.stream.synchronize().map_err(drv("cuStreamSynchronize"))
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
            probes: k.probes().clone(),
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
    probes: Arc<Probes>,
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
    /// What the kernel's probes write by number (see [`KernelRef::probes`]).
    pub fn probes(&self) -> &Probes {
        &self.probes
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
    /// per kernel parameter ([`HostArg`](super::HostArg)). Dynamic shared memory over 48 KiB
    /// is opted in to first, and clusters of more than 8 blocks are allowed, automatically.
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
        let mut list = ArgList::new(stream);
        args.push_all(&mut list)?;
        let mut params = list.kernel_params();
        let mut cluster = cluster_attribute(cfg);
        let config = launch_config(cfg, stream, &mut cluster);
        // SAFETY: `params` points at one value per kernel parameter, of the parameter's
        // size (the `HostArg` impls fix both), in `list` (which stays put) or borrowed by
        // `args`; those, the attribute and the buffers outlive the call. `list` drops after
        // it, recording the buffers' events behind the launch.
        unsafe { sys::cuLaunchKernelEx(&config, self.func, params.as_mut_ptr(), std::ptr::null_mut()) }
            .result()
            .map_err(drv("cuLaunchKernelEx"))
    }

    /// How many clusters of `cfg`'s shape (block, dynamic shared memory, cluster size) can
    /// be resident on the GPU at once (`cuOccupancyMaxActiveClusters`): the size of a
    /// persistent grid, in clusters. Without a cluster size, clusters of one block.
    pub fn max_active_clusters(&self, cfg: &Launch) -> Result<u32, RuntimeError> {
        cfg.validate()?;
        let module = &*self.module;
        module.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))?;
        self.configure(cfg)?;
        let one = Launch { cluster: Some(cfg.cluster.unwrap_or(Dim3 { x: 1, y: 1, z: 1 })), ..cfg.clone() };
        let mut cluster = cluster_attribute(&one);
        let config = launch_config(&one, &module.stream, &mut cluster);
        let mut n: std::ffi::c_int = 0;
        // SAFETY: `config` and its attribute live across the call; the function is loaded.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, self.func, &config) }.result().map_err(drv("cuOccupancyMaxActiveClusters"))?;
        Ok(n.max(0) as u32)
    }
}

fn cluster_attribute(cfg: &Launch) -> Option<sys::CUlaunchAttribute> {
    cfg.cluster.map(|c| sys::CUlaunchAttribute {
        id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
        pad: [0; 4],
        value: sys::CUlaunchAttributeValue { clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x: c.x, y: c.y, z: c.z } },
    })
}

/// The driver's launch configuration for `cfg` on `stream`, pointing at `cluster`.
fn launch_config(cfg: &Launch, stream: &CudaStream, cluster: &mut Option<sys::CUlaunchAttribute>) -> sys::CUlaunchConfig {
    let (attrs, num_attrs) = match cluster.as_mut() {
        Some(a) => (a as *mut sys::CUlaunchAttribute, 1),
        None => (std::ptr::null_mut(), 0),
    };
    let (g, b) = (cfg.grid, cfg.block);
    sys::CUlaunchConfig {
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
    }
}
