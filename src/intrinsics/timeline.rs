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
//! **Cost.** A stamp is about 14 instructions with no branch (the lowest-lane test, the
//! `%globaltimer` and `%smid` reads, one 16-byte and one 4-byte store, predicated), and a
//! timeline holds three registers. A kernel that makes no `Timeline` emits nothing.
//!
//! **The buffer** is `u32` words: a header of [`HEADER_WORDS`] (word [`MAGIC_WORD`] =
//! [`MAGIC`], [`SLOTS_WORD`] = the slots per warp, [`REGIONS_WORD`] = the warps it has room
//! for, [`WARPS_WORD`] = warps per CTA, all set by the host; [`HOMELESS_WORD`], written by
//! the device, is non-zero when warps beyond those regions stamped), then one region per
//! warp, warp `w` of CTA `c` (`%ctaid` flattened, x fastest) in region
//! `c · warps + w`. A region is [`REGION_HEAD_WORDS`] (the first the warp's count of stamps,
//! counting those that did not fit) and `slots` records of [`RECORD_WORDS`]: `%globaltimer`
//! (ns; low word, high word), `kind << 24 | event`, `%smid`. A warp writes at most `slots`
//! records; the rest are counted, not written. A warp whose region is beyond the header's
//! count, or a header whose slots differ from the kernel's, writes no record at all.
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
use crate::regs::{sreg, GlobalPtr};
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
/// Header word the warps without a region write their counts to (0 when there were none).
pub const HOMELESS_WORD: u32 = 4;
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
#[derive(Clone, Copy, Debug)]
pub struct Timeline {
    on: Option<On>,
}

#[derive(Clone, Copy, Debug)]
struct On {
    /// The warp's region less [`HEADER_WORDS`] (folded into the address operands).
    base: Reg<U64>,
    /// Stamps made so far: the next record's slot.
    n: Reg<U32>,
    slots: u32,
}

impl Timeline {
    /// This warp's place in the buffer at `buf`, of `slots` records per warp: computed once
    /// (the warp's region from `%ctaid`, `%nctaid`, `%ntid` and the thread's rank, and two
    /// header words read). Make it inside the role that stamps, after any `setmaxnreg`.
    #[track_caller]
    pub fn new(k: &mut Kernel, buf: GlobalPtr<U32>, slots: u32) -> Timeline {
        let _at = crate::core::kernel::HelperScope::enter(k.line_info);
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
        let have_slots = ptx!(k, "ld.global.u32", buf.offset(SLOTS_WORD as i64));
        let regions = ptx!(k, "ld.global.u32", buf.offset(REGIONS_WORD as i64));
        let fits = ptx!(k, "setp.lt.u32", region, regions);
        let same = ptx!(k, "setp.eq.u32", have_slots, slots);
        let ok = ptx!(k, "and.pred", fits, same);
        let at = buf.addr(k);
        let placed = ptx!(k, "mad.wide.u32", region, region_bytes(slots), at);
        // A warp without a region counts into the header's HOMELESS_WORD and writes no record.
        let homeless = ptx!(k, "sub.u64", at, 4 * (HEADER_WORDS - HOMELESS_WORD) as u64);
        let base = ptx!(k, "selp.u64", placed, homeless, ok);
        let n = ptx!(k, "selp.u32", 0u32, slots, ok);
        Timeline { on: Some(On { base, n, slots }) }
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
        let Some(On { base, n, slots }) = self.on else { return };
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
        k.guarded(write, |k| {
            let t = ptx!(k, "mov.u64", sreg::GLOBALTIMER);
            let [lo, hi] = ptx!(k, "mov.b64" as unpack, t.bitcast::<B64>());
            let meta = ptx!(k, "mov.b32", ((kind as u32) << 24) | (event % MAX_EVENTS));
            let sm = ptx!(k, "mov.u32", sreg::SMID).bitcast::<B32>();
            let at = ptx!(k, "mad.wide.u32", n, 4 * RECORD_WORDS, base);
            let first = 4 * (HEADER_WORDS + REGION_HEAD_WORDS);
            ptx!(k, "st.global.v4.b32", GlobalPtr::<B32>::from_reg(at).byte_offset(first as i64), [lo, hi, meta, sm]);
        });
        ptx!(k, "add.u32" => n, n, 1u32);
        k.guarded(leader, |k| {
            ptx!(k, "st.global.u32", GlobalPtr::<U32>::from_reg(base).offset(HEADER_WORDS as i64), n);
        });
    }
}

/// Bytes of one warp's region of `slots` records.
pub fn region_bytes(slots: u32) -> u32 {
    4 * (REGION_HEAD_WORDS + slots * RECORD_WORDS)
}

/// Words of a buffer of `regions` warp regions of `slots` records each.
pub fn buffer_words(slots: u32, regions: u32) -> u64 {
    HEADER_WORDS as u64 + regions as u64 * (region_bytes(slots) / 4) as u64
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
