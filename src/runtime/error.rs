//! The runtime's errors: [`RuntimeError`] for every fallible call, and [`LoadError`], which
//! carries the JIT's logs when a module fails to load.

use crate::descriptors::TensorMapError;
use cudarc::driver::result::DriverError;
use cudarc::driver::sys;
use std::fmt;

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
    /// A tensor map refused before it reached the driver; the error names the field.
    TensorMap(TensorMapError),
    /// Bounded waits of a kernel gave up ([`WaitLog::check`](super::WaitLog::check)): what
    /// each was waiting for, where.
    Hang(crate::core::WaitReport),
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
            RuntimeError::TensorMap(e) => e.fmt(f),
            RuntimeError::Hang(r) => r.fmt(f),
        }
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RuntimeError::Load(e) => Some(e),
            RuntimeError::TensorMap(e) => Some(e),
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

impl From<TensorMapError> for RuntimeError {
    fn from(e: TensorMapError) -> Self {
        RuntimeError::TensorMap(e)
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
        use sys::CUresult::*;
        match self.code {
            CUDA_ERROR_UNSUPPORTED_PTX_VERSION => f.write_str(
                " (the driver's JIT does not know this PTX ISA version: update the driver, or assemble the module \
                 ahead of time with a ptxas that knows it (ptxas::compile) and load the cubin)",
            )?,
            CUDA_ERROR_NO_BINARY_FOR_GPU => f.write_str(" (the image has no code for this GPU's architecture)")?,
            CUDA_ERROR_INVALID_IMAGE | CUDA_ERROR_INVALID_SOURCE => {
                f.write_str(" (the driver cannot read this image: not a cubin, or one written for a newer driver)")?
            }
            _ => {}
        }
        if !self.error_log.is_empty() {
            write!(f, "\n{}", self.error_log)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

pub(super) fn drv(call: &'static str) -> impl Fn(DriverError) -> RuntimeError {
    move |e| RuntimeError::Driver { call, code: e.0 }
}
