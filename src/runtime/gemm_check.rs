//! Checks shared by the GEMM runners: operand lengths. (How far one product is from another,
//! what their tests ask, is [`testing::discrepancy`](super::testing::discrepancy).)

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
