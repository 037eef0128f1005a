//! Loading and launching kernels on a GPU through the CUDA driver API (feature `cuda`).
//!
//! The driver library is loaded at run time, so a build with this feature needs no CUDA
//! install, and [`Gpu::new`] returns an error (never panics) on a machine without a driver
//! or GPU. Programs that need a GPU and must still run without one (examples, benches) use
//! [`testing::gpu_or_skip`].
//!
//! A launch is typed by the kernel's parameter tuple: [`TypedKernel<P>::launch`] takes a
//! host tuple whose elements match `P` one by one ([`HostArg`]): a `T::Host` value for a
//! `Reg<T>` (an `f32` for `Reg<F32>`), a `&CudaSlice<T::Host>` or `&mut
//! CudaSlice<T::Host>` (or a view) for a `GlobalPtr<T>` or `GenericPtr<T>`, and a
//! [`&HostBytes<N>`](HostBytes) (or a `&CUtensorMap` for `N = 128`) for a
//! [`ParamBytes<N>`](crate::builder::ParamBytes), and a [`&HostTensorMap<T, R>`](HostTensorMap)
//! (encoded once, borrowing its buffer) for a [`TensorMap<T, R>`](crate::builder::TensorMap),
//! a [`&TexObject`](TexObject) for a [`Texture`](crate::regs::Texture) and a
//! [`&SurfObject`](SurfObject) for a [`Surface`](crate::regs::Surface) (created over a
//! [`CudaArray`] or a buffer, which they borrow).
//! A buffer of another element type, or a wrong number of arguments, does not compile.
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
mod args;
mod attention;
#[cfg(feature = "cublas")]
mod blas;
#[cfg(feature = "cublas")]
mod blaslt;
mod elem;
mod error;
mod gemm;
mod gemm_auto;
mod gemm_mma;
mod gemm_pad;
mod gemm_pick;
mod gemm_runner;
mod gemm_skinny;
mod gemm_tcgen05;
mod gemm_tune;
mod gpu;
mod launch;
mod module;
mod tensor_map;
pub mod testing;
#[cfg(test)]
mod tests;
mod texture;
mod timeline;
mod wait_log;

pub use crate::kernels::gemm::GemmShape;
pub use args::{ArgList, HostArg, HostBytes, LaunchArgs};
pub use attention::{Attention, AttentionGrid, AttentionShape, QkvLayout};
#[cfg(feature = "cublas")]
pub use blas::Cublas;
#[cfg(feature = "cublas")]
pub use blaslt::LtFp8;
pub use elem::Elem;
pub use error::{LoadError, RuntimeError};
pub use gemm::Gemm;
pub use gemm_auto::{AutoGemm, SKINNY_UP_TO};
pub use gemm_mma::MmaGemm;
pub use gemm_pick::Pick;
pub use gemm_runner::GemmRunner;
pub use gemm_skinny::{SkinnyGemm, SkinnyPlan, SKINNY_MAX_M};
pub use gemm_tcgen05::{tcgen05_target, Tcgen05Gemm};
pub use gemm_tune::ShapeClass;
pub use gpu::{median, Gpu};
pub use launch::{Dim3, Launch};
pub use module::{LoadedModule, TypedKernel};
pub use tensor_map::{HostTensorMap, MapBuffer};
pub use texture::{AddressMode, ArrayDesc, CudaArray, FilterMode, ReadMode, SurfObject, TexObject, Texel, TextureDesc};
pub use timeline::TimelineBuffer;
pub use wait_log::WaitLog;

pub use cudarc;
pub use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut};
