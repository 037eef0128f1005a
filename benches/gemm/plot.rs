//! A line chart of TFLOP/s against size, written as a PNG: an RGB canvas, a 5×7 bitmap
//! font for the labels, the rows deflated by miniz_oxide.

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

struct Canvas {
    px: Vec<u8>,
}

impl Canvas {
    fn new() -> Canvas {
        Canvas { px: vec![255; W * H * 3] }
    }
    fn set(&mut self, x: i64, y: i64, c: [u8; 3]) {
        if (0..W as i64).contains(&x) && (0..H as i64).contains(&y) {
            let i = (y as usize * W + x as usize) * 3;
            self.px[i..i + 3].copy_from_slice(&c);
        }
    }
    fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: [u8; 3]) {
        for y in y0..=y1 {
            for x in x0..=x1 {
                self.set(x, y, c);
            }
        }
    }
    /// A line `width` pixels thick (Bresenham, stamped with a square).
    fn line(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), width: i64, c: [u8; 3]) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut err) = (x0, y0, dx + dy);
        let r = width / 2;
        loop {
            self.rect(x - r, y - r, x + r, y + r, c);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }
    /// `s` in the 5×7 font scaled by `scale`, its top left at (x, y).
    fn text(&mut self, x: i64, y: i64, s: &str, scale: i64, c: [u8; 3]) {
        for (i, ch) in s.chars().enumerate() {
            let g = glyph(ch);
            for (row, bits) in g.iter().enumerate() {
                for col in 0..5 {
                    if bits & (0x10 >> col) != 0 {
                        let (px, py) = (x + (i as i64 * 6 + col) * scale, y + row as i64 * scale);
                        self.rect(px, py, px + scale - 1, py + scale - 1, c);
                    }
                }
            }
        }
    }
}

/// Width in pixels of `s` at `scale`.
fn text_width(s: &str, scale: i64) -> i64 {
    s.chars().count() as i64 * 6 * scale
}

/// The chart of `series` over sizes `sizes` (a log₂ x axis) as PNG bytes.
pub fn chart(title: &str, x_label: &str, sizes: &[u32], series: &[Series]) -> Vec<u8> {
    let mut c = Canvas::new();
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
    png(&c.px)
}

fn png(rgb: &[u8]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(H * (W * 3 + 1));
    for row in rgb.chunks(W * 3) {
        raw.push(0); // filter: none
        raw.extend_from_slice(row);
    }
    let z = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 9);
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    let mut ihdr = vec![];
    ihdr.extend_from_slice(&(W as u32).to_be_bytes());
    ihdr.extend_from_slice(&(H as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter method, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
    }
    !c
}

/// Rows of a 5×7 glyph, bit 4 the leftmost column; characters without one are blank.
fn glyph(c: char) -> [u8; 7] {
    match c {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        'A' => [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'B' => [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        'C' => [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
        'D' => [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        'E' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        'F' => [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        'G' => [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F],
        'H' => [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        'I' => [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'J' => [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
        'L' => [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        'M' => [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'O' => [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        'Q' => [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D],
        'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        'S' => [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
        'T' => [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        'V' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A],
        'X' => [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        'Y' => [0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04],
        'Z' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        'a' => [0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F],
        'b' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E],
        'c' => [0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E],
        'd' => [0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F],
        'e' => [0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E],
        'f' => [0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08],
        'g' => [0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E],
        'h' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11],
        'i' => [0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E],
        'k' => [0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12],
        'l' => [0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        'm' => [0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11],
        'n' => [0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11],
        'o' => [0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E],
        'p' => [0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10],
        'r' => [0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10],
        's' => [0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E],
        't' => [0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06],
        'u' => [0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D],
        'q' => [0x00, 0x00, 0x0F, 0x11, 0x0F, 0x01, 0x01],
        'v' => [0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04],
        'w' => [0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A],
        'x' => [0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11],
        'y' => [0x00, 0x00, 0x11, 0x11, 0x0F, 0x01, 0x0E],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        ',' => [0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08],
        '/' => [0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00],
        '=' => [0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00],
        '-' => [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        '(' => [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ')' => [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        ':' => [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        _ => [0; 7],
    }
}
