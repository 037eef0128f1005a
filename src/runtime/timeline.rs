//! A timeline buffer on the GPU ([`crate::intrinsics::timeline`]): allocated for a launch's
//! CTAs and warps, its header written and its warps' counts cleared before each launch,
//! read back and decoded into a [`Trace`] after it.
//!
//! ```no_run
//! use ptxkit::intrinsics::timeline::Timeline;
//! use ptxkit::prelude::*;
//! use ptxkit::runtime::{Gpu, Launch, TimelineBuffer};
//!
//! let gpu = Gpu::new()?;
//! let mut m = Module::new(Target::SM_80);
//! let kr = m.kernel("k", |k, (buf,): (GlobalPtr<U32>,)| {
//!     let tl = Timeline::new(k, buf, 16);
//!     tl.span(k, "work", |k| ptx!(k, "nanosleep.u32", 1000u32));
//! })?;
//! let kernel = gpu.load(&m.to_ptx()?)?.kernel(&kr)?;
//! let mut tb = TimelineBuffer::new(&gpu, 16, 4, 2)?; // 16 slots, 4 CTAs of 2 warps
//! kernel.launch(&Launch::new(4, 64), (tb.buffer(),))?;
//! let trace = tb.read(&gpu, kr.probes().events())?;
//! assert_eq!(trace.spans.len(), 8);
//! std::fs::write("trace.json", trace.to_chrome_trace())?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::error::drv;
use super::{CudaSlice, Gpu, RuntimeError};
use crate::intrinsics::timeline::{buffer_words, header, region_bytes, HEADER_WORDS, MAX_SLOTS};
use crate::trace::Trace;
use cudarc::driver::{sys, DevicePtr, DevicePtrMut};

/// A timeline buffer of `slots` records per warp for `ctas` CTAs of `warps_per_cta` warps.
pub struct TimelineBuffer {
    buf: CudaSlice<u32>,
    slots: u32,
    regions: u32,
    warps_per_cta: u32,
}

impl std::fmt::Debug for TimelineBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimelineBuffer")
            .field("slots", &self.slots)
            .field("regions", &self.regions)
            .field("warps_per_cta", &self.warps_per_cta)
            .finish_non_exhaustive()
    }
}

impl TimelineBuffer {
    /// A buffer for `ctas` CTAs of `warps_per_cta` warps (CTAs beyond them are counted, not
    /// recorded), ready for a launch ([`reset`](Self::reset)).
    pub fn new(gpu: &Gpu, slots: u32, ctas: u32, warps_per_cta: u32) -> Result<TimelineBuffer, RuntimeError> {
        let regions = ctas.checked_mul(warps_per_cta).filter(|&r| r > 0);
        let Some(regions) = regions else {
            return Err(RuntimeError::Invalid(format!("a timeline of {ctas} CTAs of {warps_per_cta} warps")));
        };
        if slots == 0 || slots > MAX_SLOTS {
            return Err(RuntimeError::Invalid(format!("a timeline of {slots} slots per warp: it takes 1 to {MAX_SLOTS}")));
        }
        if (regions as u64 + 1) * (slots as u64 + 1) >= 1 << 32 {
            return Err(RuntimeError::Invalid(format!("a timeline of {regions} warps of {slots} slots: records are numbered in 32 bits")));
        }
        let words = buffer_words(slots, regions) as usize;
        // Zeroed once, so the download of a whole buffer reads no uninitialised memory
        // (records past a warp's count are never decoded, but are copied).
        let buf = gpu.zeros::<u32>(words)?;
        let mut tb = TimelineBuffer { buf, slots, regions, warps_per_cta };
        tb.reset(gpu)?;
        Ok(tb)
    }

    /// Slots per warp.
    pub fn slots(&self) -> u32 {
        self.slots
    }
    /// Warps with a region: CTAs × warps per CTA.
    pub fn regions(&self) -> u32 {
        self.regions
    }

    /// Writes the header and clears every warp's count (the records stay as they are: only
    /// those below a count are read), in stream order.
    pub fn reset(&mut self, gpu: &Gpu) -> Result<(), RuntimeError> {
        let h = header(self.slots, self.regions, self.warps_per_cta);
        let stream = gpu.stream();
        let mut head = self.buf.slice_mut(..HEADER_WORDS as usize);
        stream.memcpy_htod(&h, &mut head).map_err(drv("cuMemcpyHtoDAsync"))?;
        let (ptr, _record) = self.buf.device_ptr_mut(stream);
        let pitch = region_bytes(self.slots) as usize;
        // SAFETY: rows of 4 words, one at the head of each region and of the spare region
        // after them, all inside the buffer (`buffer_words`); the buffer stays borrowed.
        unsafe { sys::cuMemsetD2D32Async(ptr + 4 * HEADER_WORDS as u64, pitch, 0, 4, self.regions as usize + 1, stream.cu_stream()) }
            .result()
            .map_err(drv("cuMemsetD2D32Async"))
    }

    /// The buffer, for a kernel's `GlobalPtr<U32>` parameter.
    pub fn buffer(&mut self) -> &mut CudaSlice<u32> {
        &mut self.buf
    }

    /// The buffer's device address, for a kernel that reads it from constant memory
    /// ([`Timeline::indirect`](crate::intrinsics::timeline::Timeline::indirect)).
    pub fn device_address(&self, gpu: &Gpu) -> u64 {
        let (ptr, _record) = self.buf.device_ptr(gpu.stream());
        ptr
    }

    /// Waits for the stream, downloads the buffer and decodes it with the kernel's event
    /// names (`KernelRef::probes().events()`).
    pub fn read(&self, gpu: &Gpu, events: &[String]) -> Result<Trace, RuntimeError> {
        let words = gpu.download(&self.buf)?;
        Trace::decode(&words, events).map_err(|e| RuntimeError::Invalid(e.to_string()))
    }
}
