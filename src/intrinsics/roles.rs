//! Warp specialisation (sm_90a): warpgroups in roles with their register budgets
//! ([`Roles`]: a producer warpgroup that gives registers back with `setmaxnreg.dec`, consumer
//! warpgroups that take them with `setmaxnreg.inc`), and named barriers that synchronise a
//! subset of the CTA's threads ([`NamedBarrier`]: `bar.sync id, count` / `bar.arrive`).
//!
//! ```
//! use ptxkit::intrinsics::roles::{NamedBarrier, Roles};
//! use ptxkit::prelude::*;
//!
//! let mut m = Module::new(Target::SM_90A);
//! m.kernel("roles", |k, (out,): (GlobalPtr<U32>,)| {
//!     let roles = Roles { producer_regs: 40, consumer_regs: 224, consumers: 2 };
//!     roles.run(
//!         k,
//!         |k, tid| ptx!(k, "st.global.u32", out.at(tid), 0u32),
//!         |k, c| {
//!             // The consumers meet among themselves, not with the producer.
//!             let both = NamedBarrier::new(k, 1u32, 256);
//!             both.sync(k);
//!             let at = ptx!(k, "mad.lo.u32", c.index, 128u32, c.thread);
//!             ptx!(k, "st.global.u32", out.offset(128).at(at), c.index);
//!         },
//!     );
//! })?;
//! let text = m.to_ptx()?;
//! assert!(text.contains("setmaxnreg.dec.sync.aligned.u32 40;") && text.contains("setmaxnreg.inc.sync.aligned.u32 224;"));
//! assert!(text.contains(".maxnreg 168"));
//! assert!(text.contains("bar.sync 1, 256;"));
//!
//! // A budget the register file cannot hold is an error when the kernel is built.
//! let mut m = Module::new(Target::SM_90A);
//! let wide = Roles { producer_regs: 24, consumer_regs: 256, consumers: 3 };
//! let e = m.kernel("too_many", |k, (): ()| wide.run(k, |_, _| {}, |_, _| {})).unwrap_err();
//! assert!(e.to_string().contains("the CTA holds 65536"), "{e}");
//! assert_eq!(Roles::balanced(2), Roles { producer_regs: 24, consumer_regs: 240, consumers: 2 });
//! # Ok::<(), ptxkit::Error>(())
//! ```

use crate::builder::Kernel;
use crate::ptx;
use crate::regs::{sreg, Reg};
use crate::types::U32;

/// Registers of the SM's register file one CTA may hold (per thread times threads).
pub const REGISTER_FILE: u32 = 65536;

/// A CTA of `1 + consumers` warpgroups: warpgroup 0 the producer, 1.. the consumers, each
/// with its register budget per thread after `setmaxnreg` (multiples of 8 from 24 to 256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles {
    /// The producer's registers per thread (`setmaxnreg.dec`).
    pub producer_regs: u32,
    /// Each consumer's registers per thread (`setmaxnreg.inc`).
    pub consumer_regs: u32,
    /// The number of consumer warpgroups.
    pub consumers: u32,
}

/// A consumer warpgroup's place: its index among the consumers (0..) and the thread's
/// index in it (0..128).
#[derive(Clone, Copy, Debug)]
pub struct Consumer {
    pub index: Reg<U32>,
    pub thread: Reg<U32>,
}

impl Roles {
    /// `consumers` consumer warpgroups and a producer of 24 registers, the consumers taking
    /// what the CTA holds at entry (at most 240 each).
    pub fn balanced(consumers: u32) -> Roles {
        let mut r = Roles { producer_regs: 24, consumer_regs: 0, consumers };
        let held = r.at_entry() * r.threads();
        r.consumer_regs = ((held.saturating_sub(128 * r.producer_regs)) / (128 * consumers.max(1)) / 8 * 8).min(240);
        r
    }

    /// The threads of the CTA: `128 · (1 + consumers)`.
    pub fn threads(&self) -> u32 {
        128 * (1 + self.consumers)
    }

    /// Registers per thread at entry (`.maxnreg`): the most that lets the CTA's threads fit
    /// the register file, a multiple of 8, at most 248. The CTA keeps `at_entry · threads`
    /// registers: what the producer gives back is what the consumers may take.
    pub fn at_entry(&self) -> u32 {
        (REGISTER_FILE / self.threads() / 8 * 8).min(248)
    }

    /// The budget, checked: each count a multiple of 8 from 24 to 256, and the roles'
    /// registers within what the CTA holds at entry.
    pub fn check(&self) -> Result<(), String> {
        for (what, r) in [("producer", self.producer_regs), ("consumer", self.consumer_regs)] {
            if !(24..=256).contains(&r) || r % 8 != 0 {
                return Err(format!("setmaxnreg takes a multiple of 8 from 24 to 256 registers: the {what}'s {r} is not"));
            }
        }
        let (total, held) = (128 * (self.producer_regs + self.consumers * self.consumer_regs), self.at_entry() * self.threads());
        if self.consumers == 0 || total > held {
            return Err(format!(
                "{} consumer warpgroups of {} registers and a producer of {} take {total} registers: the CTA holds {held} \
                 ({} threads of {} at entry, of the {REGISTER_FILE} of the register file)",
                self.consumers,
                self.consumer_regs,
                self.producer_regs,
                self.threads(),
                self.at_entry()
            ));
        }
        Ok(())
    }

    /// Gives the kernel `.maxnreg` [`at_entry`](Self::at_entry), then runs `producer` in
    /// warpgroup 0 (with the thread's index, `%tid.x`) after `setmaxnreg.dec`, and
    /// `consumer` in the others after `setmaxnreg.inc`. A budget that fails
    /// [`check`](Self::check) is an error of the kernel, reported when it is built. Launch
    /// it with [`threads`](Self::threads) threads.
    #[track_caller]
    pub fn run(&self, k: &mut Kernel, producer: impl FnOnce(&mut Kernel, Reg<U32>), consumer: impl FnOnce(&mut Kernel, Consumer)) {
        if let Err(e) = self.check() {
            k.invalid(e);
        }
        k.maxnreg(self.at_entry());
        let tid = ptx!(k, "mov.u32", sreg::TID_X);
        let wg = ptx!(k, "shr.u32", tid, 7u32);
        let is_producer = ptx!(k, "setp.eq.u32", wg, 0u32);
        let (down, up) = (self.producer_regs, self.consumer_regs);
        k.if_else(
            is_producer,
            |k| {
                ptx!(k, "setmaxnreg.dec.sync.aligned.u32", down);
                producer(k, tid);
            },
            |k| {
                ptx!(k, "setmaxnreg.inc.sync.aligned.u32", up);
                let index = ptx!(k, "sub.u32", wg, 1u32);
                let thread = ptx!(k, "and.b32", tid, 127u32).bitcast::<U32>();
                consumer(k, Consumer { index, thread });
            },
        );
    }
}

/// A named barrier (`bar.sync id, threads`): barrier `id` (1 to 15; 0 is `bar.sync 0`'s, the
/// whole CTA's) among `threads` threads, a multiple of 32. The id may be a register (one
/// barrier per consumer warpgroup: `1 + index`).
#[derive(Clone, Copy, Debug)]
pub struct NamedBarrier {
    id: Id,
    threads: u32,
}

#[derive(Clone, Copy, Debug)]
enum Id {
    Const(u32),
    Reg(Reg<U32>),
}

/// A barrier id: a constant or a register.
pub trait BarrierId {
    #[doc(hidden)]
    fn id(self, k: &mut Kernel) -> (u32, Option<Reg<U32>>);
}
impl BarrierId for u32 {
    #[track_caller]
    fn id(self, _: &mut Kernel) -> (u32, Option<Reg<U32>>) {
        (self, None)
    }
}
impl BarrierId for Reg<U32> {
    #[track_caller]
    fn id(self, _: &mut Kernel) -> (u32, Option<Reg<U32>>) {
        (1, Some(self))
    }
}

impl NamedBarrier {
    /// Barrier `id` among `threads` threads. A constant id outside 1..16 or a count that is
    /// not a multiple of 32 is an error of the kernel.
    #[track_caller]
    pub fn new(k: &mut Kernel, id: impl BarrierId, threads: u32) -> NamedBarrier {
        let (c, r) = id.id(k);
        if r.is_none() && !(1..16).contains(&c) {
            k.invalid(format!("named barriers are 1 to 15 (0 is the CTA's `bar.sync 0`), not {c}"));
        }
        if threads == 0 || threads % 32 != 0 {
            k.invalid(format!("a named barrier counts whole warps: {threads} threads is not a multiple of 32"));
        }
        NamedBarrier { id: r.map_or(Id::Const(c), Id::Reg), threads }
    }

    /// `bar.sync id, threads`: waits until `threads` threads arrived (this one included).
    #[track_caller]
    pub fn sync(&self, k: &mut Kernel) {
        match self.id {
            Id::Const(c) => ptx!(k, "bar.sync" as counted, c, self.threads),
            Id::Reg(r) => ptx!(k, "bar.sync" as counted, r, self.threads),
        }
    }

    /// `bar.arrive id, threads`: counts this thread's arrival without waiting (a producer
    /// signalling threads that `sync`).
    #[track_caller]
    pub fn arrive(&self, k: &mut Kernel) {
        match self.id {
            Id::Const(c) => ptx!(k, "bar.arrive", c, self.threads),
            Id::Reg(r) => ptx!(k, "bar.arrive", r, self.threads),
        }
    }
}
