//! The host half of hang forensics: a [`WaitLog`] is the device buffer a kernel's recording
//! waits ([`Deadline::recording`](crate::intrinsics::mbarrier::Deadline::recording)) write
//! into, passed as the kernel's `GlobalPtr<U32>` parameter; after the kernel ends,
//! [`WaitLog::check`] reads it and turns what it holds into [`RuntimeError::Hang`], naming
//! each barrier, index, parity, CTA, warp and Rust line that gave up.
//!
//! ```no_run
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::mbarrier::{Deadline, Publish};
//! use ptxkit::runtime::{Gpu, Launch, WaitLog};
//!
//! let gpu = Gpu::new()?;
//! let mut m = Module::new(Target::SM_90);
//! let stuck = m.kernel("stuck", |k, (log,): (GlobalPtr<U32>,)| {
//!     let ready = k.mbarriers("ready", 1);
//!     k.init_barriers(Publish::Cta, |k| ready.init(k, 1));
//!     let d = Deadline::new(k, 100).recording(log);
//!     ready.get(0).wait(k, 0u32, &d); // nobody arrives
//! })?;
//! let kernel = gpu.load(&m.to_ptx()?)?.kernel(&stuck)?;
//! let mut log = WaitLog::new(&gpu, 16)?;
//! kernel.launch(&Launch::new(1, 32), (&mut log,))?;
//! let err = log.check(&gpu, &kernel).unwrap_err();
//! // kernel `stuck`: 1 bounded wait gave up
//! //   CTA (0,0,0) warp 0 (thread 0, lanes 0xffffffff) waited on `ready[0]` for the phase of parity 0 at src/main.rs:17:16
//! println!("{err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::args::ArgList;
use super::{CudaSlice, Gpu, HostArg, RuntimeError, TypedKernel};
use crate::core::wait_report::{WaitReport, WAIT_LOG_HEADER_WORDS, WAIT_RECORD_WORDS};
use crate::ops::m;
use crate::regs::Ptr;
use crate::types::U32;

/// A device buffer for the records of waits that gave up: a header and `capacity` records.
pub struct WaitLog {
    buf: CudaSlice<u32>,
    capacity: u32,
}

impl std::fmt::Debug for WaitLog {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("WaitLog").field("capacity", &self.capacity).finish_non_exhaustive()
    }
}

impl WaitLog {
    /// An empty log with room for `capacity` records (more are counted, not kept).
    pub fn new(gpu: &Gpu, capacity: u32) -> Result<WaitLog, RuntimeError> {
        let buf = gpu.upload(&Self::empty(capacity))?;
        Ok(WaitLog { buf, capacity })
    }

    fn empty(capacity: u32) -> Vec<u32> {
        let mut words = vec![0u32; (WAIT_LOG_HEADER_WORDS + capacity * WAIT_RECORD_WORDS) as usize];
        words[1] = capacity;
        words
    }

    /// Room for how many records.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Empties the log for the next launch.
    pub fn clear(&mut self, gpu: &Gpu) -> Result<(), RuntimeError> {
        let words = Self::empty(self.capacity);
        gpu.stream().memcpy_htod(&words, &mut self.buf)?;
        Ok(())
    }

    /// What kernel `kernel` wrote (after it ended: this synchronises with the download).
    pub fn read<P>(&self, gpu: &Gpu, kernel: &TypedKernel<P>) -> Result<WaitReport, RuntimeError> {
        let words = gpu.download(&self.buf)?;
        WaitReport::decode(kernel.name(), kernel.probes(), &words).map_err(RuntimeError::Invalid)
    }

    /// `Ok` when every recording wait of `kernel` completed; otherwise
    /// [`RuntimeError::Hang`] with what each one that gave up waited for.
    pub fn check<P>(&self, gpu: &Gpu, kernel: &TypedKernel<P>) -> Result<(), RuntimeError> {
        let report = self.read(gpu, kernel)?;
        if report.is_empty() {
            Ok(())
        } else {
            Err(RuntimeError::Hang(report))
        }
    }
}

/// The log is passed where the kernel takes the `GlobalPtr<U32>` its deadline records into.
#[diagnostic::do_not_recommend]
impl<'s> HostArg<Ptr<m::Global, U32>> for &'s mut WaitLog {
    fn push_arg<'a>(self, list: &mut ArgList<'a>) -> Result<(), RuntimeError>
    where
        Self: 'a,
    {
        <&mut CudaSlice<u32> as HostArg<Ptr<m::Global, U32>>>::push_arg(&mut self.buf, list)
    }
}
