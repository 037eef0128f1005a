//! Timelines without a GPU: kernels with stamps assemble with ptxas (a parameter buffer and
//! one read from constant memory; a timeline that is off emits nothing); buffers written by
//! hand from known stamps decode into the right spans, marks, drops and unpaired stamps; bad
//! buffers are refused; the Chrome trace parses back as JSON of the expected shape.

#[macro_use]
mod common;

use ptxkit::intrinsics::timeline::{buffer_words, header, region_bytes, StampKind, Timeline, HEADER_WORDS, REGION_HEAD_WORDS};
use ptxkit::prelude::*;
use ptxkit::trace::Trace;

fn stamped_kernel(m: &mut Module, on: bool) -> KernelRef<(GlobalPtr<U32>, GlobalPtr<F32>, Reg<U32>)> {
    m.kernel("stamped", |k, (buf, x, n): (GlobalPtr<U32>, GlobalPtr<F32>, Reg<U32>)| {
        let tl = if on { Timeline::new(k, buf, 128) } else { Timeline::off() };
        tl.mark(k, "start");
        k.for_range(0u32, n, 1, |k, i| {
            tl.span(k, "step", |k| {
                let v = k.ld(x.at(i));
                let v = ptx!(k, "add.f32", v, v);
                k.st(x.at(i), v);
            });
        });
    })
    .unwrap()
}

fn stamps_assemble_and_cost_nothing_when_off() {
    for target in [Target::SM_80, Target::SM_90, Target::SM_90A] {
        let mut m = Module::new(target);
        let kr = stamped_kernel(&mut m, true);
        assert_eq!(kr.probes().events(), ["start", "step"]);
        let text = common::assemble("stamps", &m);
        assert_eq!(text.matches("%globaltimer").count(), 3, "a read per stamp:\n{text}");
        assert_eq!(text.matches("st.global.v4.b32").count(), 3);
        // Off: the same kernel as one written without stamps.
        let mut off = Module::new(target);
        let kr = stamped_kernel(&mut off, false);
        assert!(kr.probes().events().is_empty());
        let mut plain = Module::new(target);
        plain
            .kernel("stamped", |k, (_buf, x, n): (GlobalPtr<U32>, GlobalPtr<F32>, Reg<U32>)| {
                k.for_range(0u32, n, 1, |k, i| {
                    let v = k.ld(x.at(i));
                    let v = ptx!(k, "add.f32", v, v);
                    k.st(x.at(i), v);
                });
            })
            .unwrap();
        assert_eq!(off.to_ptx().unwrap(), plain.to_ptx().unwrap());
    }
    // The buffer's address in constant memory, read at each stamp.
    let mut m = Module::new(Target::SM_90);
    let at = m.constant::<U64>("tl_at", &[0]).unwrap();
    m.kernel("indirect", |k, (n,): (Reg<U32>,)| {
        let tl = Timeline::indirect(k, at.ptr(), 16);
        k.for_range(0u32, n, 1, |k, _| tl.mark(k, "tick"));
    })
    .unwrap();
    let text = common::assemble("indirect", &m);
    assert!(text.contains("ld.const.u64") && text.contains("%smid"), "{text}");
}

/// A record written by hand: `%globaltimer`, kind, event, `%smid`.
type Record = (u64, StampKind, u32, u32);

/// A buffer written by hand: `warps` per CTA, `slots` per warp, and per region its count
/// and its records `(ns, kind, event, sm)`.
fn buffer(slots: u32, warps: u32, regions: &[(u32, Vec<Record>)]) -> Vec<u32> {
    let n = regions.len() as u32;
    let mut w = vec![0xFFFF_FFFFu32; buffer_words(slots, n) as usize];
    w[..HEADER_WORDS as usize].copy_from_slice(&header(slots, n, warps));
    let region = (region_bytes(slots) / 4) as usize;
    for r in 0..=n as usize {
        let at = HEADER_WORDS as usize + r * region;
        w[at] = regions.get(r).map_or(0, |x| x.0);
        for (i, &(ns, kind, event, sm)) in regions.get(r).map_or(&[][..], |x| &x.1[..]).iter().enumerate() {
            let rec = at + REGION_HEAD_WORDS as usize + 4 * i;
            w[rec..rec + 4].copy_from_slice(&[ns as u32, (ns >> 32) as u32, (kind as u32) << 24 | event, sm]);
        }
    }
    w
}

fn hand_made_buffers_decode_into_their_spans() {
    use StampKind::{Begin, End, Mark};
    let names: Vec<String> = ["wait", "loop", "tick"].map(String::from).to_vec();
    let base = 5u64 << 32; // times past 2^32 ns: both words matter
    let words = buffer(
        6,
        2,
        &[
            // CTA 0 warp 0 on SM 3: a loop with a wait inside it, then a mark.
            (
                5,
                vec![
                    (base + 100, Begin, 1, 3),
                    (base + 150, Begin, 0, 3),
                    (base + 400, End, 0, 3),
                    (base + 900, End, 1, 3),
                    (base + 950, Mark, 2, 3),
                ],
            ),
            // CTA 0 warp 1: nothing stamped (its records are poison).
            (0, vec![]),
            // CTA 1 warp 0 on SM 7: eight stamps in six slots; the last written is a begin.
            (
                8,
                vec![
                    (base + 10, Begin, 0, 7),
                    (base + 20, End, 0, 7),
                    (base + 30, Begin, 0, 7),
                    (base + 40, End, 0, 7),
                    (base + 50, End, 1, 7),
                    (base + 60, Begin, 1, 7),
                ],
            ),
            // CTA 1 warp 1 on SM 7: one wait.
            (2, vec![(base + 1000, Begin, 0, 7), (base + 2500, End, 0, 7)]),
        ],
    );
    let t = Trace::decode(&words, &names).unwrap();
    let got: Vec<(&str, u32, u32, u32, u64, u64)> =
        t.spans.iter().map(|s| (t.name(s.event), s.sm, s.cta, s.warp, s.start_ns - base, s.end_ns - base)).collect();
    assert_eq!(
        got,
        [
            ("wait", 3, 0, 0, 150, 400),
            ("loop", 3, 0, 0, 100, 900),
            ("wait", 7, 1, 0, 10, 20),
            ("wait", 7, 1, 0, 30, 40),
            ("wait", 7, 1, 1, 1000, 2500),
        ]
    );
    assert_eq!(t.marks.len(), 1);
    assert_eq!((t.marks[0].sm, t.marks[0].cta, t.marks[0].warp, t.marks[0].at_ns - base), (3, 0, 0, 950));
    // Two records dropped; an end with no begin and a begin never ended.
    assert_eq!((t.dropped, t.unpaired, t.homeless), (2, 2, false));
    assert_eq!(t.time_range(), Some((base + 10, base + 2500)));
    let totals = t.totals();
    assert_eq!((totals[0].count, totals[0].total_ns), (4, 250 + 10 + 10 + 1500));
    assert_eq!((totals[1].count, totals[1].total_ns), (1, 800));
    assert_eq!(totals[2].count, 0);
    assert_eq!(t.places().len(), 3);

    // The spare region's count says that warps without a place stamped.
    let mut spare = buffer(2, 1, &[(0, vec![])]);
    spare[HEADER_WORDS as usize + (region_bytes(2) / 4) as usize] = 3;
    assert!(Trace::decode(&spare, &names).unwrap().homeless);
}

fn bad_buffers_are_refused() {
    use StampKind::Begin;
    let names = vec!["a".to_string()];
    let good = buffer(2, 1, &[(1, vec![(1, Begin, 0, 0)])]);
    assert!(Trace::decode(&good, &names).is_ok());
    let mut bad = good.clone();
    bad[0] = 0;
    assert!(Trace::decode(&bad, &names).unwrap_err().to_string().contains("magic"));
    assert!(Trace::decode(&good[..good.len() - 1], &names).unwrap_err().to_string().contains("needed"));
    assert!(Trace::decode(&good, &[]).unwrap_err().to_string().contains("event 0"));
    let mut kindless = good.clone();
    kindless[(HEADER_WORDS + REGION_HEAD_WORDS + 2) as usize] = 0;
    assert!(Trace::decode(&kindless, &names).unwrap_err().to_string().contains("no kind"));
}

/// A JSON value, parsed by hand (enough of JSON for the trace).
#[derive(Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

fn parse(s: &str) -> Json {
    let b = s.as_bytes();
    let mut at = 0;
    let v = value(b, &mut at);
    ws(b, &mut at);
    assert_eq!(at, b.len(), "trailing text after the JSON value");
    v
}
fn ws(b: &[u8], at: &mut usize) {
    while *at < b.len() && b[*at].is_ascii_whitespace() {
        *at += 1;
    }
}
fn value(b: &[u8], at: &mut usize) -> Json {
    ws(b, at);
    match b[*at] {
        b'{' => {
            *at += 1;
            let mut kv = vec![];
            ws(b, at);
            if b[*at] == b'}' {
                *at += 1;
                return Json::Obj(kv);
            }
            loop {
                ws(b, at);
                let Json::Str(k) = value(b, at) else { panic!("a key at {at}") };
                ws(b, at);
                assert_eq!(b[*at], b':', "':' at {at}");
                *at += 1;
                kv.push((k, value(b, at)));
                ws(b, at);
                *at += 1;
                match b[*at - 1] {
                    b',' => continue,
                    b'}' => return Json::Obj(kv),
                    c => panic!("'{}' at {at} in an object", c as char),
                }
            }
        }
        b'[' => {
            *at += 1;
            let mut v = vec![];
            ws(b, at);
            if b[*at] == b']' {
                *at += 1;
                return Json::Arr(v);
            }
            loop {
                v.push(value(b, at));
                ws(b, at);
                *at += 1;
                match b[*at - 1] {
                    b',' => continue,
                    b']' => return Json::Arr(v),
                    c => panic!("'{}' at {at} in an array", c as char),
                }
            }
        }
        b'"' => {
            *at += 1;
            let mut s = String::new();
            while b[*at] != b'"' {
                if b[*at] == b'\\' {
                    *at += 1;
                    match b[*at] {
                        b'"' => s.push('"'),
                        b'\\' => s.push('\\'),
                        b'n' => s.push('\n'),
                        b'u' => {
                            let h = std::str::from_utf8(&b[*at + 1..*at + 5]).unwrap();
                            s.push(char::from_u32(u32::from_str_radix(h, 16).unwrap()).unwrap());
                            *at += 4;
                        }
                        c => panic!("escape \\{}", c as char),
                    }
                    *at += 1;
                } else {
                    let len = std::str::from_utf8(&b[*at..]).unwrap().chars().next().unwrap().len_utf8();
                    s.push_str(std::str::from_utf8(&b[*at..*at + len]).unwrap());
                    *at += len;
                }
            }
            *at += 1;
            Json::Str(s)
        }
        b't' if b[*at..].starts_with(b"true") => {
            *at += 4;
            Json::Bool(true)
        }
        b'f' if b[*at..].starts_with(b"false") => {
            *at += 5;
            Json::Bool(false)
        }
        b'n' if b[*at..].starts_with(b"null") => {
            *at += 4;
            Json::Null
        }
        _ => {
            let start = *at;
            while *at < b.len() && (b[*at].is_ascii_digit() || b"+-.eE".contains(&b[*at])) {
                *at += 1;
            }
            Json::Num(std::str::from_utf8(&b[start..*at]).unwrap().parse().unwrap_or_else(|e| panic!("a number at {start}: {e}")))
        }
    }
}

fn chrome_trace_is_json_of_the_trace_event_format() {
    use StampKind::{Begin, End, Mark};
    let names: Vec<String> = ["wait \"empty\"", "tick"].map(String::from).to_vec();
    let words = buffer(
        4,
        2,
        &[
            (3, vec![(2_000, Begin, 0, 5), (3_500, End, 0, 5), (4_000, Mark, 1, 5)]),
            (0, vec![]),
            (0, vec![]),
            (2, vec![(1_000, Begin, 0, 9), (1_250, End, 0, 9)]),
        ],
    );
    let t = Trace::decode(&words, &names).unwrap();
    let json = parse(&t.to_chrome_trace());
    let Some(Json::Arr(events)) = json.get("traceEvents") else { panic!("no traceEvents array: {json:?}") };
    let num = |e: &Json, k: &str| match e.get(k) {
        Some(Json::Num(x)) => *x,
        other => panic!("{k} of {e:?}: {other:?}"),
    };
    let text = |e: &Json, k: &str| match e.get(k) {
        Some(Json::Str(x)) => x.clone(),
        other => panic!("{k} of {e:?}: {other:?}"),
    };
    let spans: Vec<&Json> = events.iter().filter(|e| e.get("ph") == Some(&Json::Str("X".into()))).collect();
    assert_eq!(spans.len(), 2);
    // Times in µs from the earliest stamp; pid the SM; tid CTA · warps + warp.
    let first = spans.iter().find(|e| num(e, "pid") == 5.0).unwrap();
    assert_eq!(text(first, "name"), "wait \"empty\"");
    assert_eq!((num(first, "ts"), num(first, "dur"), num(first, "tid")), (1.0, 1.5, 0.0));
    let second = spans.iter().find(|e| num(e, "pid") == 9.0).unwrap();
    assert_eq!((num(second, "ts"), num(second, "dur"), num(second, "tid")), (0.0, 0.25, 3.0));
    let marks: Vec<&Json> = events.iter().filter(|e| e.get("ph") == Some(&Json::Str("i".into()))).collect();
    assert_eq!(marks.len(), 1);
    assert_eq!((text(marks[0], "name"), num(marks[0], "ts")), ("tick".to_string(), 3.0));
    // Each SM and warp is named.
    let meta: Vec<String> = events.iter().filter(|e| e.get("ph") == Some(&Json::Str("M".into()))).map(|e| text(e, "name")).collect();
    assert_eq!(meta.iter().filter(|n| *n == "process_name").count(), 2);
    assert_eq!(meta.iter().filter(|n| *n == "thread_name").count(), 2);
}

fn main() {
    common::harness::main(&[&[
        host!(stamps_assemble_and_cost_nothing_when_off),
        host!(hand_made_buffers_decode_into_their_spans),
        host!(bad_buffers_are_refused),
        host!(chrome_trace_is_json_of_the_trace_event_format),
    ]]);
}
