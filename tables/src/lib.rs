//! The PTX instruction tables of ptxkit as data: one file per family (`forms/*.forms`, one
//! row per line in PTX-ISA notation), the parser that expands the rows into forms, the order
//! rules measured with ptxas (`orders.tsv`), and the suggestions for a chain that is not a
//! form.
//!
//! Both `ptxkit-macros` (which checks `ptx!` chains and writes their types when it expands)
//! and `ptxkit` (which lists the forms at run time: the ptxas checks, the ISA sweep, the
//! forms reference) read the tables through this crate, so there is one parser and one copy
//! of the data.
//!
//! A family is one table file and one line of [`FAMILIES`]. The file's header holds its
//! vocabulary: `//!` lines are the module documentation of `ptxkit::ops::<family>`,
//! `@variant name "doc";` declares a form variant, and `@count N;` pins the number of forms
//! the rows expand to (a test fails until it is updated, so a change of the count is a
//! deliberate one).

mod display;
mod load;
pub mod notation;
pub mod orders;
pub mod suggest;
pub mod vocab;

pub use load::{orders, tables, Family, Form, Tables};
pub use notation::{Dst, Src};

/// The family tables, in the order `ptxkit::ops::families()` lists them: one line each.
pub const FAMILIES: &[(&str, &str)] = &[
    ("arith", include_str!("../forms/arith.forms")),
    ("bits", include_str!("../forms/bits.forms")),
    ("cmp", include_str!("../forms/cmp.forms")),
    ("cvt", include_str!("../forms/cvt.forms")),
    ("mem", include_str!("../forms/mem.forms")),
    ("sync", include_str!("../forms/sync.forms")),
    ("warp", include_str!("../forms/warp.forms")),
    ("control", include_str!("../forms/control.forms")),
    ("matrix", include_str!("../forms/matrix.forms")),
    ("mma", include_str!("../forms/mma.forms")),
    ("wmma", include_str!("../forms/wmma.forms")),
    ("wgmma", include_str!("../forms/wgmma.forms")),
    ("mbarrier", include_str!("../forms/mbarrier.forms")),
    ("cpasync", include_str!("../forms/cpasync.forms")),
    ("cluster", include_str!("../forms/cluster.forms")),
    ("bulk", include_str!("../forms/bulk.forms")),
    ("tcgen05", include_str!("../forms/tcgen05.forms")),
    ("cache", include_str!("../forms/cache.forms")),
    ("stack", include_str!("../forms/stack.forms")),
    ("multimem", include_str!("../forms/multimem.forms")),
    ("video", include_str!("../forms/video.forms")),
    ("texture", include_str!("../forms/texture.forms")),
];

/// The order rules, `orders.tsv` (written by `cargo run --release --example order_sweep`).
pub const ORDERS_TSV: &str = include_str!("../orders.tsv");

/// PTX's relaxed size rule (the ISA's "operand size exceeding instruction-type size"): the
/// data operands of `ld`, `ldu`, `st` and `cvt` may be registers wider than the instruction
/// type, so that narrow values are loaded, stored and converted in registers of a regular
/// width. A wider source is truncated to the type; a wider destination is written
/// sign-extended for a signed type, zero-extended otherwise.
pub mod wide {
    /// Whether the destination of the opcode's forms may be a wider register.
    pub fn dst(opcode: &str) -> bool {
        matches!(opcode, "ld" | "ldu" | "cvt")
    }

    /// Whether the source at `index` of the opcode's forms may be a wider register: the value
    /// `st` writes (after the address) and the sources of `cvt`.
    pub fn src(opcode: &str, index: usize) -> bool {
        match opcode {
            "st" => index == 1,
            "cvt" => true,
            _ => false,
        }
    }

    /// Whether the scalar data operand of the opcode's forms (the destination of `ld` and
    /// `ldu`, the value `st` writes) may also be written as a one-element vector, `{%r1}`.
    /// ptxas takes it there (and may assemble it to other code than `%r1`: compilers emit
    /// it, Triton for its predicated loads), and refuses it for `cvt`'s operands.
    pub fn braced(opcode: &str) -> bool {
        matches!(opcode, "ld" | "ldu" | "st")
    }
}
