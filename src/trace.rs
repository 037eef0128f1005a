//! A timeline buffer read back: the records that [`Timeline`](crate::intrinsics::timeline::Timeline) stamps
//! wrote, decoded into spans and instants per SM, CTA and warp, named by the kernel's
//! [`Probes`](crate::core::Probes), and written out in the Chrome trace event format
//! (`chrome://tracing`, Perfetto). Pure host code: the buffer is a slice of words, however
//! it was read (`ptxkit::runtime::TimelineBuffer` downloads one).
//!
//! A warp's records are read in the order it wrote them. An end closes the innermost open
//! span of its name; ends without a begin and begins never ended (a warp that ran out of
//! slots) are counted in [`Trace::unpaired`], not drawn.
//!
//! ```
//! use ptxkit::intrinsics::timeline::{buffer_words, header, StampKind, HEADER_WORDS, REGION_HEAD_WORDS};
//! use ptxkit::trace::Trace;
//!
//! // One CTA of one warp, four slots: "load" from 1000 ns to 3500 ns on SM 7.
//! let mut words = vec![0u32; buffer_words(4, 1) as usize];
//! words[..HEADER_WORDS as usize].copy_from_slice(&header(4, 1, 1));
//! let region = HEADER_WORDS as usize;
//! words[region] = 2; // stamps made
//! let rec = region + REGION_HEAD_WORDS as usize;
//! words[rec..rec + 8].copy_from_slice(&[1000, 0, (StampKind::Begin as u32) << 24, 7, 3500, 0, (StampKind::End as u32) << 24, 7]);
//! let trace = Trace::decode(&words, &["load".to_string()]).unwrap();
//! assert_eq!((trace.spans[0].sm, trace.spans[0].start_ns, trace.spans[0].end_ns), (7, 1000, 3500));
//! assert!(trace.to_chrome_trace().contains(r#""name":"load","ph":"X","ts":0.000,"dur":2.500"#));
//! ```

use crate::intrinsics::timeline::{
    region_bytes, StampKind, HEADER_WORDS, MAGIC, MAGIC_WORD, MAX_EVENTS, RECORD_WORDS, REGIONS_WORD, REGION_HEAD_WORDS, SLOTS_WORD,
    WARPS_WORD,
};
use std::fmt::Write;

/// Where a record was stamped: the SM (`%smid`), the CTA (`%ctaid` flattened, x fastest)
/// and the warp in the CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub sm: u32,
    pub cta: u32,
    pub warp: u32,
}

/// A span: from a begin to the end of the same name, in one warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The event's number (its name is `Trace::events[event]`).
    pub event: u32,
    pub sm: u32,
    pub cta: u32,
    pub warp: u32,
    /// `%globaltimer` at the begin and the end, in ns.
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Span {
    /// Where it ran.
    pub fn place(&self) -> Place {
        Place { sm: self.sm, cta: self.cta, warp: self.warp }
    }
    /// How long it took, in ns.
    pub fn duration_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

/// An instant ([`Timeline::mark`](crate::intrinsics::timeline::Timeline::mark)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub event: u32,
    pub sm: u32,
    pub cta: u32,
    pub warp: u32,
    pub at_ns: u64,
}

/// A decoded timeline buffer.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The event names, by number.
    pub events: Vec<String>,
    /// Warps per CTA, as the host set it.
    pub warps_per_cta: u32,
    /// Spans, warp by warp (region order), each warp's in the order they ended.
    pub spans: Vec<Span>,
    pub marks: Vec<Mark>,
    /// Records the warps did not write for want of slots.
    pub dropped: u64,
    /// Ends without a begin and begins never ended.
    pub unpaired: u64,
    /// Whether warps beyond the buffer's regions stamped (their records are lost).
    pub homeless: bool,
}

/// A buffer that is not a timeline buffer as [`Timeline`](crate::intrinsics::timeline::Timeline) writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "timeline buffer: {}", self.0)
    }
}
impl std::error::Error for DecodeError {}

/// Per event name: how many spans, and their total duration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventTotal {
    pub name: String,
    pub count: u64,
    pub total_ns: u64,
}

impl EventTotal {
    /// The mean duration in ns (0 for no span).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64
        }
    }
}

impl Trace {
    /// Decodes `words` (a whole buffer: header and regions) with the kernel's event names
    /// (`KernelRef::probes().events()`).
    pub fn decode(words: &[u32], events: &[String]) -> Result<Trace, DecodeError> {
        let err = |s: String| Err(DecodeError(s));
        if words.len() < HEADER_WORDS as usize {
            return err(format!("{} words, less than its header", words.len()));
        }
        let h = |i: u32| words[i as usize];
        if h(MAGIC_WORD) != MAGIC {
            return err(format!("header word {:#010x} is not the timeline's magic {MAGIC:#010x}", h(MAGIC_WORD)));
        }
        let (slots, regions, warps) = (h(SLOTS_WORD), h(REGIONS_WORD), h(WARPS_WORD));
        if slots == 0 || warps == 0 {
            return err(format!("{slots} slots per warp and {warps} warps per CTA"));
        }
        let region_words = (region_bytes(slots) / 4) as usize;
        let need = HEADER_WORDS as usize + (regions as usize + 1) * region_words;
        if words.len() < need {
            return err(format!("{} words for {regions} regions (and a spare) of {slots} slots: {need} needed", words.len()));
        }
        let spare = HEADER_WORDS as usize + regions as usize * region_words;
        let mut t = Trace { events: events.to_vec(), warps_per_cta: warps, homeless: words[spare] != 0, ..Trace::default() };
        let mut open: Vec<(u32, u64, u32)> = vec![];
        for r in 0..regions as usize {
            let region = &words[HEADER_WORDS as usize + r * region_words..][..region_words];
            let made = region[0] as u64;
            let written = made.min(slots as u64) as usize;
            t.dropped += made - written as u64;
            let (cta, warp) = (r as u32 / warps, r as u32 % warps);
            open.clear();
            for (i, rec) in region[REGION_HEAD_WORDS as usize..].chunks_exact(RECORD_WORDS as usize).take(written).enumerate() {
                let at_ns = rec[0] as u64 | (rec[1] as u64) << 32;
                let (event, sm) = (rec[2] % MAX_EVENTS, rec[3]);
                let Some(kind) = StampKind::of_word(rec[2]) else {
                    return err(format!("record {i} of warp {warp} of CTA {cta} has no kind ({:#010x})", rec[2]));
                };
                if event as usize >= events.len() {
                    return err(format!("record {i} of warp {warp} of CTA {cta} names event {event} of {}", events.len()));
                }
                match kind {
                    StampKind::Begin => open.push((event, at_ns, sm)),
                    StampKind::Mark => t.marks.push(Mark { event, sm, cta, warp, at_ns }),
                    StampKind::End => match open.iter().rposition(|o| o.0 == event) {
                        Some(j) => {
                            let (_, start_ns, sm) = open.remove(j);
                            t.spans.push(Span { event, sm, cta, warp, start_ns, end_ns: at_ns });
                        }
                        None => t.unpaired += 1,
                    },
                }
            }
            t.unpaired += open.len() as u64;
        }
        Ok(t)
    }

    /// The name of event `event`.
    pub fn name(&self, event: u32) -> &str {
        self.events.get(event as usize).map_or("?", String::as_str)
    }

    /// The earliest and the latest time stamped, in ns (`None` for no stamp).
    pub fn time_range(&self) -> Option<(u64, u64)> {
        let starts = self.spans.iter().map(|s| s.start_ns).chain(self.marks.iter().map(|m| m.at_ns));
        let ends = self.spans.iter().map(|s| s.end_ns).chain(self.marks.iter().map(|m| m.at_ns));
        Some((starts.min()?, ends.max()?))
    }

    /// The places that stamped, sorted by SM, CTA and warp.
    pub fn places(&self) -> Vec<Place> {
        let mut p: Vec<Place> = self.spans.iter().map(Span::place).collect();
        p.extend(self.marks.iter().map(|m| Place { sm: m.sm, cta: m.cta, warp: m.warp }));
        p.sort();
        p.dedup();
        p
    }

    /// Per event name (in number order), the spans' count and total duration.
    pub fn totals(&self) -> Vec<EventTotal> {
        let mut out: Vec<EventTotal> = self.events.iter().map(|n| EventTotal { name: n.clone(), count: 0, total_ns: 0 }).collect();
        for s in &self.spans {
            if let Some(e) = out.get_mut(s.event as usize) {
                e.count += 1;
                e.total_ns += s.duration_ns();
            }
        }
        out
    }

    /// The trace in the Chrome trace event format: a complete event (`"ph":"X"`) per span
    /// and an instant (`"ph":"i"`) per mark, `ts` and `dur` in µs from the earliest stamp,
    /// `pid` the SM and `tid` the warp's number over the grid (`cta · warps + warp`), with
    /// the processes named `SM n` and the threads `CTA c warp w`.
    pub fn to_chrome_trace(&self) -> String {
        let t0 = self.time_range().map_or(0, |r| r.0);
        let us = |ns: u64| (ns - t0) as f64 / 1000.0;
        let tid = |cta: u32, warp: u32| cta as u64 * self.warps_per_cta as u64 + warp as u64;
        let mut out = String::from("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !first {
                out.push_str(",\n");
            }
            first = false;
        };
        let mut sms: Vec<u32> = vec![];
        for p in self.places() {
            if sms.last() != Some(&p.sm) {
                sms.push(p.sm);
                sep(&mut out);
                let _ = write!(out, r#"{{"name":"process_name","ph":"M","pid":{},"args":{{"name":"SM {}"}}}}"#, p.sm, p.sm);
            }
            sep(&mut out);
            let _ = write!(
                out,
                r#"{{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"CTA {} warp {}"}}}}"#,
                p.sm,
                tid(p.cta, p.warp),
                p.cta,
                p.warp
            );
        }
        for s in &self.spans {
            sep(&mut out);
            let _ = write!(
                out,
                r#"{{"name":{},"ph":"X","ts":{:.3},"dur":{:.3},"pid":{},"tid":{}}}"#,
                json_string(self.name(s.event)),
                us(s.start_ns),
                s.duration_ns() as f64 / 1000.0,
                s.sm,
                tid(s.cta, s.warp)
            );
        }
        for m in &self.marks {
            sep(&mut out);
            let _ = write!(
                out,
                r#"{{"name":{},"ph":"i","s":"t","ts":{:.3},"pid":{},"tid":{}}}"#,
                json_string(self.name(m.event)),
                us(m.at_ns),
                m.sm,
                tid(m.cta, m.warp)
            );
        }
        out.push_str("\n]}\n");
        out
    }
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
