//! The GEMM bench's PNG writer (benches/gemm/plot.rs): a well-formed PNG of the stated size
//! whose chunks carry correct CRCs and whose zlib stream inflates to the image rows.
//! (The bench target's own tests cannot run: it has no test harness.)

#[path = "../benches/gemm/plot.rs"]
#[allow(dead_code)]
mod plot;

fn chunks(png: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
    let mut out = vec![];
    let mut at = 8;
    while at < png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind: [u8; 4] = png[at + 4..at + 8].try_into().unwrap();
        let data = png[at + 8..at + 8 + len].to_vec();
        let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
        assert_eq!(crc, plot::crc32(&png[at + 4..at + 8 + len]), "CRC of {}", String::from_utf8_lossy(&kind));
        out.push((kind, data));
        at += 12 + len;
    }
    out
}

#[test]
fn the_gemm_chart_is_a_valid_png() {
    assert_eq!(plot::crc32(b"123456789"), 0xCBF4_3926);
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
