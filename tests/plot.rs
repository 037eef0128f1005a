//! The charts' PNG writer (examples/common/canvas.rs) through the GEMM bench's chart
//! (benches/gemm/plot.rs) and the timeline example's (examples/common/timeline_chart.rs): a
//! well-formed PNG of the stated size whose chunks carry correct CRCs and whose zlib stream
//! inflates to the image rows. (The bench and example targets' own tests cannot run.)

#[path = "../examples/common/canvas.rs"]
mod canvas;
#[path = "../benches/gemm/plot.rs"]
#[allow(dead_code)]
mod plot;
#[path = "../examples/common/timeline_chart.rs"]
mod timeline_chart;

fn chunks(png: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
    let mut out = vec![];
    let mut at = 8;
    while at < png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind: [u8; 4] = png[at + 4..at + 8].try_into().unwrap();
        let data = png[at + 8..at + 8 + len].to_vec();
        let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
        assert_eq!(crc, canvas::crc32(&png[at + 4..at + 8 + len]), "CRC of {}", String::from_utf8_lossy(&kind));
        out.push((kind, data));
        at += 12 + len;
    }
    out
}

/// The image's width, height and RGB rows (filter bytes dropped), checked as a PNG.
fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    assert_eq!(&png[..8], &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]);
    let cs = chunks(png);
    let kinds: Vec<&[u8]> = cs.iter().map(|c| &c.0[..]).collect();
    assert_eq!(kinds, [&b"IHDR"[..], b"IDAT", b"IEND"]);
    let (w, h) = (u32::from_be_bytes(cs[0].1[0..4].try_into().unwrap()), u32::from_be_bytes(cs[0].1[4..8].try_into().unwrap()));
    assert_eq!(&cs[0].1[8..], &[8, 2, 0, 0, 0]);
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&cs[1].1).expect("the IDAT stream inflates");
    assert_eq!(raw.len(), (h * (3 * w + 1)) as usize);
    let rgb = raw.chunks(3 * w as usize + 1).flat_map(|row| {
        assert_eq!(row[0], 0, "filter: none");
        row[1..].to_vec()
    });
    (w, h, rgb.collect())
}

#[test]
fn the_timeline_chart_is_a_valid_png_with_a_colour_per_phase() {
    use ptxkit::intrinsics::timeline::{buffer_words, header, region_bytes, StampKind, HEADER_WORDS, REGION_HEAD_WORDS};
    // Two SMs, two warps each: a long span with short ones inside it, per warp.
    let (slots, warps, ctas) = (8u32, 2u32, 2u32);
    let mut words = vec![0u32; buffer_words(slots, warps * ctas) as usize];
    words[..HEADER_WORDS as usize].copy_from_slice(&header(slots, warps * ctas, warps));
    for r in 0..warps * ctas {
        let at = (HEADER_WORDS + r * region_bytes(slots) / 4) as usize;
        let sm = 10 + r / warps;
        let recs: [(u64, StampKind, u32); 6] = [
            (0, StampKind::Begin, 0),
            (1_000, StampKind::Begin, 1),
            (9_000, StampKind::End, 1),
            (20_000, StampKind::Begin, 1),
            (30_000, StampKind::End, 1),
            (50_000 + 1000 * r as u64, StampKind::End, 0),
        ];
        words[at] = recs.len() as u32;
        for (i, (ns, kind, event)) in recs.into_iter().enumerate() {
            let rec = at + (REGION_HEAD_WORDS + 4 * i as u32) as usize;
            words[rec..rec + 4].copy_from_slice(&[ns as u32, 0, (kind as u32) << 24 | event, sm]);
        }
    }
    let trace = ptxkit::trace::Trace::decode(&words, &["loop".to_string(), "wait".to_string()]).unwrap();
    let png = timeline_chart::timeline_png(&trace, "test timeline");
    if let Ok(path) = std::env::var("PTXKIT_TIMELINE_SAMPLE") {
        std::fs::write(path, &png).unwrap();
    }
    let (w, h, rgb) = decode(&png);
    assert!(w >= 800 && h > 100, "{w} x {h}");
    let px = |x: u32, y: u32| -> [u8; 3] { rgb[3 * (y * w + x) as usize..][..3].try_into().unwrap() };
    for c in &timeline_chart::PALETTE[..2] {
        assert!(rgb.chunks(3).any(|p| p == c), "{c:?} drawn");
    }
    // Across the plot at the first sub-row's height: the loop's colour, then the wait's over it.
    let row: Vec<[u8; 3]> = (0..w).map(|x| px(x, 61)).collect();
    let at = |c: [u8; 3]| row.iter().position(|p| *p == c);
    let (loop_at, wait_at) = (at(timeline_chart::PALETTE[0]).expect("loop drawn"), at(timeline_chart::PALETTE[1]).expect("wait drawn"));
    assert!(loop_at < wait_at, "the loop starts before its first wait");
}

#[test]
fn the_gemm_chart_is_a_valid_png() {
    assert_eq!(canvas::crc32(b"123456789"), 0xCBF4_3926);
    let series = [
        plot::Series { label: "ptxkit bf16".into(), rgb: [31, 100, 200], points: vec![(512, 26.0), (4096, 781.0), (16384, 731.0)] },
        plot::Series { label: "cuBLAS bf16".into(), rgb: [230, 120, 20], points: vec![(512, 18.0), (4096, 782.0), (16384, 722.0)] },
    ];
    let png = plot::chart("TFLOP/s, test", "M = N = K", &[512, 4096, 16384], &series);
    if let Ok(path) = std::env::var("PTXKIT_PLOT_SAMPLE") {
        std::fs::write(path, &png).unwrap();
    }
    assert_eq!(&png[..8], &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]);
    let cs = chunks(&png);
    let kinds: Vec<&[u8]> = cs.iter().map(|c| &c.0[..]).collect();
    assert_eq!(kinds, [&b"IHDR"[..], b"IDAT", b"IEND"]);
    let (w, h) = (u32::from_be_bytes(cs[0].1[0..4].try_into().unwrap()), u32::from_be_bytes(cs[0].1[4..8].try_into().unwrap()));
    assert_eq!(&cs[0].1[8..], &[8, 2, 0, 0, 0]);
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&cs[1].1).expect("the IDAT stream inflates");
    assert_eq!(raw.len(), (h * (3 * w + 1)) as usize);
    // Both series' colours are drawn.
    for rgb in [[31u8, 100, 200], [230, 120, 20]] {
        assert!(raw.windows(3).any(|p| p == rgb), "{rgb:?} drawn");
    }
}
