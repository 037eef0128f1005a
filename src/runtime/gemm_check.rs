//! Checks shared by the GEMM runners and their tests: operand lengths, and how far one
//! product is from another.

use super::RuntimeError;

/// Whether buffers of `lens` elements (A, B, C) hold an `m × n × k` product's operands.
pub(super) fn check_lengths(lens: [usize; 3], (m, n, k): (u32, u32, u32)) -> Result<(), RuntimeError> {
    let want = [m as u64 * k as u64, n as u64 * k as u64, m as u64 * n as u64];
    for ((name, len), want) in ["A", "B", "C"].into_iter().zip(lens).zip(want) {
        if (len as u64) < want {
            return Err(RuntimeError::Invalid(format!("{name} holds {len} elements; a {m}x{n}x{k} product needs {want}")));
        }
    }
    Ok(())
}

/// How far one product is from another (the reference).
#[derive(Clone, Debug, PartialEq)]
pub struct Discrepancy {
    /// ‖got − want‖ / ‖want‖ (Frobenius norms).
    pub relative: f64,
    /// Elements outside `tol·(|want| + rms(want))`, NaNs included.
    pub wrong: usize,
    /// The first such element: (index, got, want).
    pub first: Option<(usize, f32, f32)>,
}

/// Compares `got` with `want` element by element, with the tolerance `tol` relative to each
/// element's magnitude plus the reference's root mean square (so that elements near zero,
/// where summation order moves the last bits, are judged on the matrix's scale).
pub fn discrepancy(got: &[f32], want: &[f32], tol: f64) -> Discrepancy {
    assert_eq!(got.len(), want.len(), "products of different sizes");
    let norm: f64 = want.iter().map(|w| (*w as f64).powi(2)).sum::<f64>();
    let rms = (norm / want.len().max(1) as f64).sqrt();
    let mut diff = 0.0f64;
    let mut wrong = 0;
    let mut first = None;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let d = (g as f64 - w as f64).abs();
        diff += if d.is_finite() { d * d } else { f64::INFINITY };
        if d.is_nan() || d > tol * ((w as f64).abs() + rms) {
            wrong += 1;
            if first.is_none() {
                first = Some((i, g, w));
            }
        }
    }
    let relative = if norm > 0.0 { (diff / norm).sqrt() } else { diff.sqrt() };
    Discrepancy { relative, wrong, first }
}

#[cfg(test)]
mod tests {
    use super::discrepancy;

    #[test]
    fn discrepancy_finds_wrong_and_nan_elements() {
        let want = [1.0f32, -2.0, 3.0, 0.0];
        assert_eq!(discrepancy(&want, &want, 1e-2).wrong, 0);
        let got = [1.0f32, -2.0, 3.5, f32::NAN];
        let d = discrepancy(&got, &want, 1e-2);
        assert_eq!((d.wrong, d.first.map(|f| f.0)), (2, Some(2)));
        assert!(d.relative.is_nan() || d.relative.is_infinite() || d.relative > 0.1);
        let close = [1.001f32, -2.001, 3.001, 0.001];
        assert_eq!(discrepancy(&close, &want, 1e-2).wrong, 0);
    }
}
