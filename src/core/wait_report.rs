//! The host's reading of a wait log: what each bounded wait that gave up was waiting for,
//! named through the kernel's [`Probes`]. The device writes the log
//! ([`Deadline::recording`](crate::intrinsics::mbarrier::Deadline::recording)); reading it
//! needs no GPU, so it is here, below the runtime that downloads it.

use super::probes::{Probes, WaitSite};
use std::fmt;

/// Words of a wait log's header: records written (counting those that did not fit), capacity.
pub const WAIT_LOG_HEADER_WORDS: u32 = 4;
/// Words of one record of a wait log.
pub const WAIT_RECORD_WORDS: u32 = 8;

/// One wait that gave up, as the lowest of the lanes giving up together recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitRecord {
    /// The wait: its barrier array and Rust location.
    pub site: WaitSite,
    /// The barrier's index in its array, when known.
    pub index: Option<u32>,
    /// The parity of the phase waited for.
    pub parity: u32,
    /// The recording thread's rank in its CTA (its warp is `thread / 32`).
    pub thread: u32,
    /// `%ctaid` of its CTA.
    pub cta: [u32; 3],
    /// The lanes of the warp that gave up with it.
    pub lanes: u32,
}

/// The waits of one launch that gave up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitReport {
    /// The kernel's name.
    pub kernel: String,
    /// How many records the kernel wrote, counting those that did not fit.
    pub written: u32,
    /// The records that fit, in the order the device wrote them.
    pub records: Vec<WaitRecord>,
}

impl WaitReport {
    /// Reads a wait log (header and records, as the host downloaded it) of kernel `kernel`
    /// whose probes are `probes`. An error says what is malformed: a log shorter than its
    /// header or capacity, or a record naming a wait site the kernel does not have (the log
    /// of another kernel).
    pub fn decode(kernel: &str, probes: &Probes, words: &[u32]) -> Result<WaitReport, String> {
        let head = WAIT_LOG_HEADER_WORDS as usize;
        if words.len() < head {
            return Err(format!("a wait log of {} words is shorter than its {head}-word header", words.len()));
        }
        let (written, capacity) = (words[0], words[1]);
        let stored = written.min(capacity) as usize;
        let need = head + stored * WAIT_RECORD_WORDS as usize;
        if words.len() < need {
            return Err(format!("the wait log holds {stored} records, which need {need} words; it has {}", words.len()));
        }
        let sites = probes.wait_sites();
        let mut records = Vec::with_capacity(stored);
        for r in words[head..need].chunks_exact(WAIT_RECORD_WORDS as usize) {
            let site = r[0].checked_sub(1).and_then(|s| sites.get(s as usize)).ok_or_else(|| {
                format!("a record names wait site {}, but kernel `{kernel}` has {} recorded waits", r[0].wrapping_sub(1), sites.len())
            })?;
            records.push(WaitRecord {
                site: site.clone(),
                index: (r[1] != u32::MAX).then_some(r[1]),
                parity: r[2],
                thread: r[3],
                cta: [r[4], r[5], r[6]],
                lanes: r[7],
            });
        }
        Ok(WaitReport { kernel: kernel.to_string(), written, records })
    }

    /// Whether every wait completed.
    pub fn is_empty(&self) -> bool {
        self.written == 0
    }
}

/// Records listed in a report's text; the rest are counted.
const SHOWN: usize = 12;

impl fmt::Display for WaitRecord {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let [x, y, z] = self.cta;
        write!(f, "CTA ({x},{y},{z}) warp {} (thread {}, lanes {:#010x}) waited on ", self.thread / 32, self.thread, self.lanes)?;
        match (&self.site.barrier, self.index) {
            (Some(b), Some(i)) => write!(f, "`{b}[{i}]`")?,
            (Some(b), None) => write!(f, "`{b}`")?,
            (None, Some(i)) => write!(f, "barrier {i}")?,
            (None, None) => f.write_str("an unnamed barrier")?,
        }
        write!(f, " for the phase of parity {} at {}", self.parity, self.site)
    }
}

impl fmt::Display for WaitReport {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let n = self.written;
        write!(f, "kernel `{}`: {n} bounded wait{} gave up", self.kernel, if n == 1 { "" } else { "s" })?;
        if (self.records.len() as u32) < n {
            write!(f, " ({} recorded)", self.records.len())?;
        }
        for r in self.records.iter().take(SHOWN) {
            write!(f, "\n  {r}")?;
        }
        if self.records.len() > SHOWN {
            write!(f, "\n  and {} more", self.records.len() - SHOWN)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probes() -> Probes {
        let mut p = Probes::default();
        let full = p.barrier("ring_full");
        p.barrier("ring_empty");
        let at = std::panic::Location::caller();
        p.wait(Some(full), at);
        p.wait(None, at);
        p
    }

    #[test]
    fn a_log_names_barrier_index_cta_and_warp() {
        let p = probes();
        // Header: 2 written, capacity 4; record 1: site 0, index 1, parity 0, thread 32,
        // CTA (3,0,0), all lanes; record 2: site 1, no index, parity 1, thread 0, CTA (0,1,0).
        let mut log = vec![2, 4, 0, 0, 1, 1, 0, 32, 3, 0, 0, u32::MAX, 2, u32::MAX, 1, 0, 0, 1, 0, 1];
        log.resize(4 + 4 * 8, 0xdead);
        let r = WaitReport::decode("k", &p, &log).unwrap();
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.records[0].index, Some(1));
        assert_eq!(r.records[1].index, None);
        let text = r.to_string();
        assert!(text.starts_with("kernel `k`: 2 bounded waits gave up\n"), "{text}");
        assert!(text.contains("CTA (3,0,0) warp 1 (thread 32, lanes 0xffffffff) waited on `ring_full[1]` for the phase of parity 0 at src/core/wait_report.rs:"), "{text}");
        assert!(
            text.contains("CTA (0,1,0) warp 0 (thread 0, lanes 0x00000001) waited on an unnamed barrier for the phase of parity 1"),
            "{text}"
        );
    }

    #[test]
    fn records_past_the_capacity_are_counted() {
        let p = probes();
        let mut log = vec![5, 1, 0, 0];
        log.extend([1, 0, 1, 64, 0, 0, 0, 0xff]);
        let r = WaitReport::decode("k", &p, &log).unwrap();
        assert_eq!((r.written, r.records.len()), (5, 1));
        assert!(r.to_string().starts_with("kernel `k`: 5 bounded waits gave up (1 recorded)"), "{r}");
    }

    #[test]
    fn malformed_logs_are_errors() {
        let p = probes();
        assert!(WaitReport::decode("k", &p, &[0, 1]).unwrap_err().contains("shorter than its 4-word header"));
        assert!(WaitReport::decode("k", &p, &[1, 1, 0, 0, 1]).unwrap_err().contains("need 12 words; it has 5"));
        let e = WaitReport::decode("k", &p, &[1, 1, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert!(e.contains("names wait site 8, but kernel `k` has 2 recorded waits"), "{e}");
        assert!(WaitReport::decode("k", &p, &[0, 8, 0, 0]).unwrap().is_empty());
    }
}
