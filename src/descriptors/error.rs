//! The one error type of the descriptor module.

use super::operand::{ElemBytes, Major};
use super::swizzle::Swizzle;
use std::fmt;

/// Why a descriptor or a tile layout cannot be built. Every variant names the field or
/// dimension at fault and the value that was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DescError {
    /// A byte quantity that must be a multiple of `align` is not.
    Misaligned {
        /// The field or quantity, e.g. `"start address"`.
        field: &'static str,
        /// The value given, in bytes.
        value: u64,
        /// The multiple it must be.
        align: u32,
    },
    /// A value larger than its field (or the shared window) can hold.
    OutOfRange {
        /// The field or quantity, e.g. `"stride-dimension byte offset"`.
        field: &'static str,
        /// The value given.
        value: u64,
        /// The largest value accepted.
        max: u64,
    },
    /// A tile dimension that is zero or not a multiple of what the layout needs.
    Dimension {
        /// `"rows"` (the M or N extent) or `"cols"` (the K extent).
        dim: &'static str,
        /// The value given, in elements.
        value: u32,
        /// The multiple it must be, in elements.
        multiple: u32,
        /// What the multiple is.
        unit: &'static str,
    },
    /// A K-major swizzled tile whose row (its K extent in bytes) is not exactly one swizzle
    /// row wide.
    RowWidth {
        /// The swizzle asked for.
        swizzle: Swizzle,
        /// The row width given, in bytes.
        row_bytes: u64,
    },
    /// An element width that the major-ness cannot take: wgmma transposes (reads MN-major)
    /// only 16-bit f16/bf16 operands.
    ElemWidth {
        /// The major-ness asked for.
        major: Major,
        /// The element width given.
        elem: ElemBytes,
    },
    /// A K-slice index past the tile's last one.
    KStep {
        /// The index given.
        k: u32,
        /// How many K-slices the tile holds.
        steps: u32,
    },
    /// A field value outside the set its context allows (a set that is not a range).
    Value {
        /// The field, e.g. `"scale factor A ID"`.
        field: &'static str,
        /// The value given.
        value: u64,
        /// The values allowed here, in words.
        legal: &'static str,
    },
    /// An M × N shape that a tcgen05.mma kind and issue form does not have.
    Shape {
        /// The kind, e.g. `"kind::f16"`.
        kind: &'static str,
        /// The issue form, e.g. `".cta_group::1"`.
        issue: &'static str,
        /// M given.
        m: u32,
        /// N given.
        n: u32,
        /// The legal shapes, in words.
        legal: &'static str,
    },
    /// A combination of parameters that the instruction does not support.
    Unsupported {
        /// The kind or descriptor concerned, e.g. `"kind::i8"`.
        kind: &'static str,
        /// What is not supported, in words.
        what: &'static str,
    },
    /// A descriptor being decoded holds a value in a field that no parameters produce:
    /// fixed or reserved bits that differ, or a code that names nothing.
    Encoding {
        /// The field, e.g. `"version (bits 46-48)"`.
        field: &'static str,
        /// The value found there.
        value: u64,
    },
}

impl fmt::Display for DescError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DescError::Misaligned { field, value, align } => {
                write!(f, "{field} {value:#x} ({value}) is not a multiple of {align} bytes")
            }
            DescError::OutOfRange { field, value, max } => {
                write!(f, "{field} {value:#x} ({value}) does not fit: the largest accepted is {max:#x} ({max})")
            }
            DescError::Dimension { dim, value, multiple, unit } => {
                write!(f, "tile {dim} = {value} must be a nonzero multiple of {multiple} ({unit})")
            }
            DescError::RowWidth { swizzle, row_bytes } => write!(
                f,
                "a K-major tile with {swizzle} needs rows of exactly {} bytes (its K extent times the element width), got {row_bytes} bytes",
                swizzle.bytes()
            ),
            DescError::ElemWidth { major, elem } => write!(
                f,
                "{major} tiles take only 2-byte (f16/bf16) elements: wgmma transposes no other type; got {} byte elements",
                elem.bytes()
            ),
            DescError::KStep { k, steps } => write!(f, "K-slice {k} is past the tile's last: it holds {steps} (0..{steps})"),
            DescError::Value { field, value, legal } => write!(f, "{field} = {value} is not allowed here: {legal}"),
            DescError::Shape { kind, issue, m, n, legal } => {
                write!(f, "tcgen05.mma {kind} {issue} has no M = {m}, N = {n} shape: {legal}")
            }
            DescError::Unsupported { kind, what } => write!(f, "{kind}: {what}"),
            DescError::Encoding { field, value } => {
                write!(f, "descriptor field {field} holds {value:#x}, which no legal parameters encode")
            }
        }
    }
}

impl std::error::Error for DescError {}
