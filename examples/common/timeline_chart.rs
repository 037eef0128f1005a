//! A timeline drawn as a PNG: one row per SM, a thin sub-row per warp that stamped on it,
//! its spans coloured by name in proportion to the time they cover (a span inside another
//! paints over it for its own time, so the waits inside a main loop show), a legend and a
//! time axis in µs. Included with `#[path]` beside
//! `canvas.rs` (as `canvas`) by the timeline example and `tests/plot.rs`.

use super::canvas::{png, text_width, Canvas};
use ptxkit::trace::{Place, Trace};

/// Colours of the event names, in number order (then round again).
pub const PALETTE: [[u8; 3]; 8] =
    [[31, 100, 200], [230, 120, 20], [20, 150, 60], [200, 40, 40], [140, 80, 190], [120, 80, 50], [220, 100, 180], [100, 100, 100]];

const W: usize = 1600;
const LEFT: i64 = 70;
const RIGHT: i64 = 20;
const TOP: i64 = 60;
const BOTTOM: i64 = 50;

/// The PNG of `trace` under `title`.
pub fn timeline_png(trace: &Trace, title: &str) -> Vec<u8> {
    let places = trace.places();
    let sms = {
        let mut s: Vec<u32> = places.iter().map(|p| p.sm).collect();
        s.dedup();
        s
    };
    // Sub-rows of 1 to 4 pixels, a pixel between SMs, the plot at most about 2000 pixels tall.
    let sub = (2000 / places.len().max(1)).clamp(1, 4) as i64;
    let row_of = |p: &Place| {
        let i = places.binary_search(p).unwrap_or(0) as i64;
        let sm = sms.binary_search(&p.sm).unwrap_or(0) as i64;
        TOP + i * sub + sm
    };
    let plot_h = places.len() as i64 * sub + sms.len() as i64;
    let h = (TOP + plot_h + BOTTOM) as usize;
    let mut c = Canvas::new(W, h);
    let (ink, grid) = ([20, 20, 20], [225, 225, 225]);
    c.text(LEFT, 8, title, 2, ink);
    // Legend: a swatch and the name of each event, left to right.
    let mut x = LEFT;
    for (i, name) in trace.events.iter().enumerate() {
        let rgb = PALETTE[i % PALETTE.len()];
        c.rect(x, 34, x + 14, 44, rgb);
        c.text(x + 20, 34, name, 1, ink);
        x += 20 + text_width(name, 1) + 24;
    }
    let Some((t0, t1)) = trace.time_range() else {
        c.text(LEFT, TOP, "no stamps", 2, ink);
        return png(&c);
    };
    let plot_w = W as i64 - LEFT - RIGHT;
    let span_ns = (t1 - t0).max(1) as f64;
    let px = |t: u64| LEFT + ((t - t0) as f64 / span_ns * plot_w as f64) as i64;
    // Time axis: a tick every 1, 2 or 5 × 10^k µs, about ten of them.
    let step_us = nice_step(span_ns / 1000.0 / 10.0);
    let mut t = 0.0;
    let bottom = TOP + plot_h;
    while t * 1000.0 <= span_ns {
        let x = px(t0 + (t * 1000.0) as u64);
        c.line((x, TOP), (x, bottom), 1, grid);
        let label = if step_us < 1.0 { format!("{t:.1}") } else { format!("{t:.0}") };
        c.text(x - text_width(&label, 1) / 2, bottom + 6, &label, 1, ink);
        t += step_us;
    }
    c.text(LEFT + plot_w / 2 - text_width("time (us)", 1) / 2, bottom + 22, "time (us)", 1, ink);
    // SM labels, as many as fit.
    let every = (10 / (sub * (places.len() as i64 / sms.len().max(1) as i64)).max(1)).max(1) as usize;
    for &sm in sms.iter().step_by(every) {
        let first = places.iter().find(|p| p.sm == sm).expect("a place of each SM");
        let label = format!("SM {sm}");
        c.text(LEFT - 6 - text_width(&label, 1), row_of(first), &label, 1, ink);
    }
    // Spans, in proportion: each sub-row is painted on a grid of BINS cells per pixel,
    // longest spans first so that the spans inside them (a wait inside a main loop) paint
    // over them for exactly their own time; a pixel then takes the colour of most of its
    // cells, and stays blank where spans cover under a quarter of it. (A span drawn at
    // least a pixel wide would let 2 million waits of 0.15 µs cover a 1.4 ms chart.)
    const BINS: i64 = 16;
    let cells = (plot_w * BINS) as usize;
    let bin = |t: u64| (((t - t0) as f64 / span_ns * cells as f64) as usize).min(cells);
    let mut grid = vec![u8::MAX; places.len() * cells];
    let mut order: Vec<usize> = (0..trace.spans.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(trace.spans[i].duration_ns()));
    for i in order {
        let s = &trace.spans[i];
        let row = places.binary_search(&s.place()).unwrap_or(0);
        let event = (s.event as usize % PALETTE.len()) as u8;
        grid[row * cells..][bin(s.start_ns)..bin(s.end_ns)].fill(event);
    }
    for (row, place) in places.iter().enumerate() {
        let y = row_of(place);
        for (x, px_cells) in grid[row * cells..(row + 1) * cells].chunks(BINS as usize).enumerate() {
            let mut count = [0u8; PALETTE.len()];
            px_cells.iter().filter(|&&e| e != u8::MAX).for_each(|&e| count[e as usize] += 1);
            let (best, n) = count.iter().enumerate().max_by_key(|&(_, n)| *n).unwrap_or((0, &0));
            if count.iter().map(|&n| n as i64).sum::<i64>() * 4 >= BINS && *n > 0 {
                let x = LEFT + x as i64;
                c.rect(x, y, x, y + sub - 1, PALETTE[best]);
            }
        }
    }
    for m in &trace.marks {
        let y = row_of(&Place { sm: m.sm, cta: m.cta, warp: m.warp });
        c.rect(px(m.at_ns), y, px(m.at_ns), y + sub - 1, ink);
    }
    png(&c)
}

/// 1, 2 or 5 × 10^k, the first at least `x`.
fn nice_step(x: f64) -> f64 {
    let p = 10f64.powf(x.max(1e-3).log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&s| s >= x).unwrap_or(10.0 * p)
}
