//! Stream-K's partial sums (the schedule is [`Split`](super::sched::Split)): a CTA whose range
//! ends inside a tile writes its consumers' f32 accumulators to a slot of the workspace that
//! is its own and raises one flag per consumer; the tile's owner waits for each flag, adds
//! the slot to its accumulators and lowers the flag again, so that every flag is down when
//! the kernel ends and the next launch finds the workspace as the first did.
//!
//! Only threads with a row inside M write and read (a thread's 16-byte pieces hold its upper
//! row and the row 8 below), so a product of few rows moves little.
//!
//! A slot is `consumers · bn · 64` f32. Consumer `q`'s thread `t` keeps its accumulator
//! register `4j + i` at element `((q · R/4 + j) · 128 + t) · 4 + i` of the slot (`R = bn/2`
//! registers): each of its 16-byte stores and loads is one 512-byte line per warp.

use super::ROWS_PER_CONSUMER;
use crate::builder::Kernel;
use crate::intrinsics::roles::NamedBarrier;
use crate::ops::Acc;
use crate::prelude::*;

/// The workspace of a stream-K launch, as one consumer thread addresses it.
pub(super) struct Partials {
    /// One `u32` flag per consumer per CTA, 0 when the kernel starts.
    flags: GlobalPtr<U32>,
    /// One slot per CTA.
    sums: GlobalPtr<F32>,
    consumers: u32,
    consumer: Reg<U32>,
    thread: Reg<U32>,
    slot_bytes: u32,
    /// Accumulator registers per thread.
    regs: u32,
    lead: Reg<Pred>,
    /// The named barrier of this consumer's 128 threads.
    named: NamedBarrier,
    /// This thread's upper row in its consumer's 64: `16·warp + lane/4`.
    row: Reg<U32>,
    tries: u32,
}

/// Bytes between one thread's 16-byte pieces of its slot: a consumer's 128 threads × 16.
const STEP: u32 = 128 * 16;
/// 16-byte loads of a slot in flight at once: 32 registers, beside the accumulator's 128 and
/// the 64 bf16 pairs a deferred store may hold, within a consumer's 240.
const BATCH: usize = 8;

impl Partials {
    /// Bytes of workspace per CTA for tiles of `consumers · 64 × bn`.
    pub(crate) fn slot_bytes(consumers: u32, bn: u32) -> u32 {
        consumers * ROWS_PER_CONSUMER * bn * 4
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        k: &mut Kernel,
        (flags, sums): (GlobalPtr<U32>, GlobalPtr<F32>),
        (consumers, bn): (u32, u32),
        consumer: Reg<U32>,
        thread: Reg<U32>,
        tries: u32,
    ) -> Partials {
        let lead = ptx!(k, "setp.eq.u32", thread, 0u32);
        let id = ptx!(k, "add.u32", consumer, 1u32);
        let named = NamedBarrier::new(k, id, 128);
        let row = wgmma::acc_row(k, thread);
        Partials {
            flags,
            sums,
            consumers,
            consumer,
            thread,
            regs: bn / 2,
            slot_bytes: Self::slot_bytes(consumers, bn),
            lead,
            named,
            row,
            tries,
        }
    }

    /// This thread's first 16 bytes in CTA `c`'s slot.
    fn at(&self, k: &mut Kernel, c: Reg<U32>) -> GlobalPtr<F32> {
        let line = ptx!(k, "mul.lo.u32", self.consumer, self.regs / 4 * 128);
        let line = ptx!(k, "add.u32", line, self.thread);
        let lane = ptx!(k, "mul.wide.u32", line, 16u32);
        let slot = ptx!(k, "mul.wide.u32", c, self.slot_bytes);
        let base = self.sums.addr(k);
        let p = ptx!(k, "add.u64", base, slot);
        GlobalPtr::from_reg(ptx!(k, "add.u64", p, lane))
    }

    /// Whether this thread's upper row of tile row `tm` is inside the `m` rows of C: only
    /// then are its partial sums moved.
    pub(super) fn inside(&self, k: &mut Kernel, tm: Reg<U32>, m: Reg<U32>) -> Reg<Pred> {
        let block = ptx!(k, "mad.lo.u32", tm, self.consumers, self.consumer);
        let r = ptx!(k, "mad.lo.u32", block, ROWS_PER_CONSUMER, self.row);
        ptx!(k, "setp.lt.u32", r, m)
    }

    /// This consumer's flag of CTA `c`.
    fn flag(&self, k: &mut Kernel, c: Reg<U32>) -> GlobalPtr<U32> {
        let i = ptx!(k, "mad.lo.u32", c, self.consumers, self.consumer);
        let off = ptx!(k, "mul.wide.u32", i, 4u32);
        let base = self.flags.addr(k);
        GlobalPtr::from_reg(ptx!(k, "add.u64", base, off))
    }

    /// Writes `acc` to CTA `c`'s slot and raises the flag once all 128 threads have written:
    /// the barrier orders their stores before the lead thread's release.
    pub(super) fn write<const R: usize>(&self, k: &mut Kernel, c: Reg<U32>, acc: Acc<F32, R>, inside: Reg<Pred>) {
        k.if_(inside, |k| {
            let at = self.at(k, c);
            for j in 0..R / 4 {
                let v = [acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]];
                ptx!(k, "st.global.v4.f32", at.byte_offset((j as u32 * STEP) as i64).offset(0), v);
            }
        });
        self.named.sync(k);
        let flag = self.flag(k, c);
        k.if_(self.lead, |k| ptx!(k, "st.release.gpu.global.u32", flag.offset(0), 1u32));
    }

    /// Waits for CTA `c`'s flag (bounded: the kernel traps after `tries` polls), adds its slot
    /// to `acc` and lowers the flag.
    pub(super) fn add<const R: usize>(&self, k: &mut Kernel, c: Reg<U32>, acc: Acc<F32, R>, inside: Reg<Pred>) {
        let flag = self.flag(k, c);
        let tries = self.tries;
        k.if_(self.lead, |k| {
            let n = ptx!(k, "mov.u32", 0u32);
            k.loop_(|k, l| {
                let up = ptx!(k, "ld.acquire.gpu.global.u32", flag.offset(0));
                let raised = ptx!(k, "setp.ne.u32", up, 0u32);
                k.bra_if(raised, l.brk);
                ptx!(k, "add.u32" => n, n, 1u32);
                let over = ptx!(k, "setp.ge.u32", n, tries);
                k.if_(over, |k| ptx!(k, "trap"));
                ptx!(k, "nanosleep.u32", 32u32);
            });
        });
        // The lead thread's acquire, then the barrier: every thread reads after the writes.
        self.named.sync(k);
        let at = self.at(k, c);
        for j in 0..R / 4 {
            // A barrier every BATCH loads: ptxas would otherwise issue all of them at once,
            // holding as many registers again as the accumulator.
            if j > 0 && j % BATCH == 0 {
                self.named.sync(k);
            }
            k.if_(inside, |k| {
                let v = ptx!(k, "ld.global.cg.v4.f32", at.byte_offset((j as u32 * STEP) as i64).offset(0));
                for (i, x) in v.into_iter().enumerate() {
                    ptx!(k, "add.f32" => acc[4 * j + i], acc[4 * j + i], x);
                }
            });
        }
        k.if_(self.lead, |k| ptx!(k, "st.relaxed.gpu.global.u32", flag.offset(0), 0u32));
    }
}
