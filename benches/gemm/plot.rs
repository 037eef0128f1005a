//! A line chart of TFLOP/s against size, written as a PNG (the canvas, font and encoder are
//! `examples/common/canvas.rs`, which the bench includes as `canvas`).

use super::canvas::{png, text_width, Canvas};

/// One series: a label, a colour, and (size, TFLOP/s) points.
pub struct Series {
    pub label: String,
    pub rgb: [u8; 3],
    pub points: Vec<(u32, f64)>,
}

const W: usize = 900;
const H: usize = 560;
const LEFT: usize = 80;
const RIGHT: usize = 30;
const TOP: usize = 50;
const BOTTOM: usize = 60;

/// The chart of `series` over sizes `sizes` (a log₂ x axis) as PNG bytes.
pub fn chart(title: &str, x_label: &str, sizes: &[u32], series: &[Series]) -> Vec<u8> {
    let mut c = Canvas::new(W, H);
    let ymax = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(100.0f64, f64::max);
    let ymax = (ymax / 100.0).ceil() * 100.0;
    let (lo, hi) = (sizes.iter().copied().min().unwrap_or(1) as f64, sizes.iter().copied().max().unwrap_or(2) as f64);
    let span = (hi.log2() - lo.log2()).max(1.0);
    let px = |size: u32| LEFT as f64 + ((size as f64).log2() - lo.log2()) / span * (W - LEFT - RIGHT) as f64;
    let py = |v: f64| (H - BOTTOM) as i64 - (v / ymax * (H - TOP - BOTTOM) as f64) as i64;
    let (grid, axis, ink) = ([225, 225, 225], [90, 90, 90], [20, 20, 20]);
    // Grid and y labels every 100 TFLOP/s.
    let mut v = 0.0;
    while v <= ymax {
        let y = py(v);
        c.line((LEFT as i64, y), ((W - RIGHT) as i64, y), 1, grid);
        let label = format!("{v:.0}");
        c.text(LEFT as i64 - 8 - text_width(&label, 2), y - 7, &label, 2, ink);
        v += 100.0;
    }
    // x labels at each size.
    for &s in sizes {
        let x = px(s) as i64;
        c.line((x, TOP as i64), (x, (H - BOTTOM) as i64), 1, grid);
        let label = s.to_string();
        c.text(x - text_width(&label, 2) / 2, (H - BOTTOM) as i64 + 10, &label, 2, ink);
    }
    c.line((LEFT as i64, (H - BOTTOM) as i64), ((W - RIGHT) as i64, (H - BOTTOM) as i64), 2, axis);
    c.line((LEFT as i64, TOP as i64), (LEFT as i64, (H - BOTTOM) as i64), 2, axis);
    c.text(LEFT as i64, 14, title, 2, ink);
    c.text((W / 2) as i64 - text_width(x_label, 2) / 2, (H - 24) as i64, x_label, 2, ink);
    // Series: lines and dots; the legend bottom right (under the curves' large sizes).
    for (i, s) in series.iter().enumerate() {
        let pts: Vec<(i64, i64)> = s.points.iter().map(|&(size, v)| (px(size) as i64, py(v))).collect();
        for w in pts.windows(2) {
            c.line(w[0], w[1], 3, s.rgb);
        }
        for &(x, y) in &pts {
            c.rect(x - 4, y - 4, x + 4, y + 4, s.rgb);
        }
        let ly = (H - BOTTOM) as i64 - 24 * (series.len() - i) as i64 - 8;
        let lx = (W - RIGHT) as i64 - 260;
        c.rect(lx, ly + 3, lx + 24, ly + 9, s.rgb);
        c.text(lx + 34, ly, &s.label, 2, ink);
    }
    png(&c)
}
