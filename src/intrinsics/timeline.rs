//! Phase timelines: a kernel stamps `%globaltimer` at named points, per warp, into a buffer
//! in global memory, and the host turns the stamps into spans per SM, CTA and warp
//! (`ptxkit::trace`, and `ptxkit::runtime::TimelineBuffer` for the buffer).
//!
//! A [`Timeline`] is made once per warp from the buffer's address and a fixed number of
//! record *slots per warp*; [`begin`](Timeline::begin) and [`end`](Timeline::end) bracket a
//! span, [`mark`](Timeline::mark) stamps an instant. The names become numbers in the
//! kernel's [`Probes`](crate::core::Probes) (`KernelRef::probes().events()`), which the
//! host reads the records back with.
//!
//! **Who writes.** A stamp is written by the lowest active lane of the warp, so a role run
//! by one elected thread (a TMA producer) stamps as well as a whole warp does. The warp's
//! place in the buffer is kept in registers of each of its lanes, which every active lane
//! advances: a lane that stamps must have been active at every earlier stamp of its warp
//! (true of a warp that stamps converged, and of one thread that runs a role alone).
//!
//! **Cost.** A stamp is about 16 instructions with no branch: the lowest-lane test, the
//! `%globaltimer` and `%smid` reads and the address, then one 16-byte and one 4-byte store,
//! the only predicated instructions (a register written under a predicate would stay live
//! around any loop the stamp is in). A timeline holds two registers (its next record's place
//! and its count) besides the buffer's address, which [`Timeline::indirect`] reads from
//! constant memory at each stamp instead. A kernel that makes no `Timeline` emits nothing.
//!
//! **The buffer** is `u32` words: a header of [`HEADER_WORDS`] (word [`MAGIC_WORD`] =
//! [`MAGIC`], [`SLOTS_WORD`] = the slots per warp, [`REGIONS_WORD`] = the warps it has room
//! for, [`WARPS_WORD`] = warps per CTA, all set by the host), then one region per warp, warp
//! `w` of CTA `c` (`%ctaid` flattened, x fastest) in region `c · warps + w`, and a spare
//! region after them, where the warps beyond them stamp (the host reads only its count, to
//! say that they did). A region is [`REGION_HEAD_WORDS`] (the first the warp's count of
//! stamps, counting those that did not fit) and `slots` records of [`RECORD_WORDS`]:
//! `%globaltimer` (ns; low word, high word), `kind << 24 | event`, `%smid`. A warp writes at
//! most `slots` records; the rest are counted, not written. A header whose slots per warp
//! differ from the kernel's makes the kernel trap. [`buffer_words`] and [`header`] size and
//! fill a buffer; records are numbered in 32 bits, so `(regions + 1) · (slots + 1)` stays
//! below 2³².
//!
//! ```
//! use ptxkit::prelude::*;
//! use ptxkit::intrinsics::timeline::Timeline;
//!
//! let mut m = Module::new(Target::SM_90);
//! let kr = m.kernel("stamped", |k, (buf, x, n): (GlobalPtr<U32>, GlobalPtr<F32>, Reg<U32>)| {
//!     let tl = Timeline::new(k, buf, 64);
//!     tl.mark(k, "start");
//!     let i = k.global_thread_index_x();
//!     let inb = ptx!(k, "setp.lt.u32", i, n);
//!     tl.span(k, "scale", |k| {
//!         k.if_(inb, |k| {
//!             let v = k.ld(x.at(i));
//!             let v = ptx!(k, "add.f32", v, v);
//!             k.st(x.at(i), v);
//!         })
//!     });
//! })?;
//! assert_eq!(kr.probes().events(), ["start", "scale"]);
//! let ptx = m.to_ptx()?;
//! assert!(ptx.contains("%globaltimer") && ptx.contains("st.global.v4.b32"));
//! # Ok::<(), ptxkit::Error>(())
//! ```

use super::thread::ThreadIndex;
use crate::builder::Kernel;
use crate::ptx;
use crate::regs::{sreg, ConstPtr, GlobalPtr};
use crate::types::{Reg, B32, B64, U32, U64};

/// Words of the buffer's header.
pub const HEADER_WORDS: u32 = 8;
/// Header word holding [`MAGIC`].
pub const MAGIC_WORD: u32 = 0;
/// Header word holding the slots per warp.
pub const SLOTS_WORD: u32 = 1;
/// Header word holding the number of warp regions.
pub const REGIONS_WORD: u32 = 2;
/// Header word holding the warps per CTA (for the host, which numbers CTAs and warps by it).
pub const WARPS_WORD: u32 = 3;
/// `"PTL1"`, the header's first word.
pub const MAGIC: u32 = u32::from_le_bytes(*b"PTL1");
/// Words before a region's records: its count of stamps, then padding.
pub const REGION_HEAD_WORDS: u32 = 4;
/// Words of one record.
pub const RECORD_WORDS: u32 = 4;
/// The most slots per warp (a region's bytes fit 32 bits).
pub const MAX_SLOTS: u32 = 1 << 24;
/// Event numbers stay below this (they share a word with the kind).
pub const MAX_EVENTS: u32 = 1 << 24;

/// What a record stamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum StampKind {
    /// The start of a span.
    Begin = 1,
    /// The end of the span last begun with the same name.
    End = 2,
    /// An instant.
    Mark = 3,
}

impl StampKind {
    /// The kind of a record's third word (`kind << 24 | event`).
    pub fn of_word(w: u32) -> Option<StampKind> {
        match w >> 24 {
            1 => Some(StampKind::Begin),
            2 => Some(StampKind::End),
            3 => Some(StampKind::Mark),
            _ => None,
        }
    }
}

/// A warp's place in a timeline buffer (see the module docs), or no timeline at all
/// ([`Timeline::off`]), so that one body builds with and without stamps.
///
/// ```
/// use ptxkit::prelude::*;
/// use ptxkit::intrinsics::timeline::Timeline;
///
/// let mut m = Module::new(Target::SM_90);
/// let kr = m.kernel("loop", |k, (buf, n): (GlobalPtr<U32>, Reg<U32>)| {
///     let tl = Timeline::new(k, buf, 256);
///     k.for_range(0u32, n, 1, |k, _| {
///         tl.begin(k, "step");
///         ptx!(k, "nanosleep.u32", 100u32);
///         tl.end(k, "step");
///     });
///     tl.mark(k, "done");
/// })?;
/// assert_eq!(kr.probes().events(), ["step", "done"]);
/// // Off, the same body emits no stamp.
/// let mut plain = Module::new(Target::SM_90);
/// plain.kernel("loop", |k, (_buf, n): (GlobalPtr<U32>, Reg<U32>)| {
///     let tl = Timeline::off();
///     k.for_range(0u32, n, 1, |k, _| tl.span(k, "step", |k| ptx!(k, "nanosleep.u32", 100u32)));
/// })?;
/// assert!(m.to_ptx()?.contains("%globaltimer") && !plain.to_ptx()?.contains("%globaltimer"));
/// # Ok::<(), ptxkit::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Timeline {
    on: Option<On>,
}

#[derive(Clone, Copy, Debug)]
struct On {
    buf: Buffer,
    /// The next record's place, in 16-byte cells from the end of the header: the warp's
    /// region (`region · (slots + 1)`, its head) + 1 + `n`.
    cell: Reg<U32>,
    /// Stamps made so far.
    n: Reg<U32>,
    slots: u32,
}

/// Where the buffer's address comes from.
#[derive(Clone, Copy, Debug)]
enum Buffer {
    /// A pointer (a kernel parameter, a module variable, a register).
    At(GlobalPtr<U32>),
    /// Read from constant memory at each stamp.
    Indirect(ConstPtr<U64>),
}

impl Buffer {
    fn addr(self, k: &mut Kernel) -> Reg<U64> {
        match self {
            Buffer::At(p) => p.addr(k),
            Buffer::Indirect(c) => {
                let at = ptx!(k, "ld.const.u64", c);
                ptx!(k, "cvta.to.global.u64", at)
            }
        }
    }
}

impl Timeline {
    /// This warp's place in the buffer at `buf`, of `slots` records per warp: computed once
    /// (the warp's region from `%ctaid`, `%nctaid`, `%ntid` and the thread's rank, and two
    /// header words read). A header of other slots per warp is a fault of the host: the
    /// kernel traps. Make it inside the role that stamps, after any `setmaxnreg`.
    #[track_caller]
    pub fn new(k: &mut Kernel, buf: GlobalPtr<U32>, slots: u32) -> Timeline {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
        Timeline::place(k, Buffer::At(buf), slots)
    }

    /// As [`new`](Self::new), for a buffer whose address the host writes into constant
    /// memory at `at` (a module `.const` variable, set through `cuModuleGetGlobal`): it is
    /// read again at each stamp, so the timeline holds no register for it.
    #[track_caller]
    pub fn indirect(k: &mut Kernel, at: ConstPtr<U64>, slots: u32) -> Timeline {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
        Timeline::place(k, Buffer::Indirect(at), slots)
    }

    fn place(k: &mut Kernel, buf: Buffer, slots: u32) -> Timeline {
        if slots == 0 || slots > MAX_SLOTS {
            k.invalid(format!("a timeline of {slots} slots per warp: it takes 1 to {MAX_SLOTS}"));
        }
        let slots = slots.clamp(1, MAX_SLOTS);
        let rank = k.thread_rank();
        let warp = ptx!(k, "shr.u32", rank, 5u32);
        let (nx, ny, nz) = (ptx!(k, "mov.u32", sreg::NTID_X), ptx!(k, "mov.u32", sreg::NTID_Y), ptx!(k, "mov.u32", sreg::NTID_Z));
        let threads = ptx!(k, "mul.lo.u32", nx, ny);
        let threads = ptx!(k, "mul.lo.u32", threads, nz);
        let warps = ptx!(k, "add.u32", threads, 31u32);
        let warps = ptx!(k, "shr.u32", warps, 5u32);
        let (cx, cy, cz) = (ptx!(k, "mov.u32", sreg::CTAID_X), ptx!(k, "mov.u32", sreg::CTAID_Y), ptx!(k, "mov.u32", sreg::CTAID_Z));
        let (gx, gy) = (ptx!(k, "mov.u32", sreg::NCTAID_X), ptx!(k, "mov.u32", sreg::NCTAID_Y));
        let cta = ptx!(k, "mad.lo.u32", cz, gy, cy);
        let cta = ptx!(k, "mad.lo.u32", cta, gx, cx);
        let region = ptx!(k, "mad.lo.u32", cta, warps, warp);
        let header = GlobalPtr::<U32>::from_reg(buf.addr(k));
        let have_slots = ptx!(k, "ld.global.u32", header.offset(SLOTS_WORD as i64));
        let regions = ptx!(k, "ld.global.u32", header.offset(REGIONS_WORD as i64));
        let other = ptx!(k, "setp.ne.u32", have_slots, slots);
        k.if_(other, |k| ptx!(k, "trap"));
        // A warp beyond the regions stamps into the spare one after them, which the host
        // reads only to say that such warps stamped.
        let region = ptx!(k, "min.u32", region, regions);
        let cell = ptx!(k, "mad.lo.u32", region, slots + 1, 1u32);
        let n = ptx!(k, "mov.u32", 0u32);
        Timeline { on: Some(On { buf, cell, n, slots }) }
    }

    /// A timeline that stamps nothing: its calls emit no instruction.
    pub fn off() -> Timeline {
        Timeline { on: None }
    }

    /// Whether stamps are written.
    pub fn is_on(&self) -> bool {
        self.on.is_some()
    }

    /// Stamps the start of span `name`.
    #[track_caller]
    pub fn begin(&self, k: &mut Kernel, name: &str) {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
        self.stamp(k, StampKind::Begin, name);
    }

    /// Stamps the end of span `name` (the last one begun by this warp with that name).
    #[track_caller]
    pub fn end(&self, k: &mut Kernel, name: &str) {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
        self.stamp(k, StampKind::End, name);
    }

    /// Stamps an instant `name`.
    #[track_caller]
    pub fn mark(&self, k: &mut Kernel, name: &str) {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
        self.stamp(k, StampKind::Mark, name);
    }

    /// `body` between a [`begin`](Self::begin) and an [`end`](Self::end) of `name`.
    #[track_caller]
    pub fn span<R>(&self, k: &mut Kernel, name: &str, body: impl FnOnce(&mut Kernel) -> R) -> R {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
        self.stamp(k, StampKind::Begin, name);
        let r = body(k);
        self.stamp(k, StampKind::End, name);
        r
    }

    fn stamp(&self, k: &mut Kernel, kind: StampKind, name: &str) {
        let Some(On { buf, cell, n, slots }) = self.on else { return };
        let event = k.probes.event(name);
        if event >= MAX_EVENTS {
            k.invalid(format!("timeline event `{name}`: more than {MAX_EVENTS} names"));
        }
        let lanes = ptx!(k, "activemask.b32");
        // (`and` takes no special register: ptxas refuses `and.b32 r, r, %lanemask_lt`.)
        let lower = ptx!(k, "mov.u32", sreg::LANEMASK_LT);
        let below = ptx!(k, "and.b32", lanes, lower.bitcast::<B32>());
        let leader = ptx!(k, "setp.eq.b32", below, 0u32);
        let room = ptx!(k, "setp.lt.u32", n, slots);
        let write = ptx!(k, "and.pred", leader, room);
        const CELL: u32 = 4 * RECORD_WORDS;
        let header = 4 * HEADER_WORDS as i64;
        // Only the stores are predicated: a register written under a predicate stays live
        // around the loop the stamp is in (ptxas cannot tell the use is guarded the same way).
        let t = ptx!(k, "mov.u64", sreg::GLOBALTIMER);
        let [lo, hi] = ptx!(k, "mov.b64" as unpack, t.bitcast::<B64>());
        let meta = ptx!(k, "mov.b32", ((kind as u32) << 24) | (event % MAX_EVENTS));
        let sm = ptx!(k, "mov.u32", sreg::SMID).bitcast::<B32>();
        let at = buf.addr(k);
        let rec = ptx!(k, "mad.wide.u32", cell, CELL, at);
        ptx!(k, @write, "st.global.v4.b32", GlobalPtr::<B32>::from_reg(rec).byte_offset(header), [lo, hi, meta, sm]);
        ptx!(k, "add.u32" => n, n, 1u32);
        ptx!(k, "add.u32" => cell, cell, 1u32);
        // The region's head: `n` cells before the next record's.
        let head = ptx!(k, "sub.u32", cell, n);
        let count = ptx!(k, "mad.wide.u32", head, CELL, at);
        ptx!(k, @leader, "st.global.u32", GlobalPtr::<U32>::from_reg(count).byte_offset(header - CELL as i64), n);
    }
}

/// Bytes of one warp's region of `slots` records.
pub fn region_bytes(slots: u32) -> u32 {
    4 * (REGION_HEAD_WORDS + slots * RECORD_WORDS)
}

/// Words of a buffer of `regions` warp regions of `slots` records each (and the spare
/// region after them).
pub fn buffer_words(slots: u32, regions: u32) -> u64 {
    HEADER_WORDS as u64 + (regions as u64 + 1) * (region_bytes(slots) / 4) as u64
}

/// The header a host writes before a launch.
pub fn header(slots: u32, regions: u32, warps_per_cta: u32) -> [u32; HEADER_WORDS as usize] {
    let mut h = [0; HEADER_WORDS as usize];
    h[MAGIC_WORD as usize] = MAGIC;
    h[SLOTS_WORD as usize] = slots;
    h[REGIONS_WORD as usize] = regions;
    h[WARPS_WORD as usize] = warps_per_cta;
    h
}
