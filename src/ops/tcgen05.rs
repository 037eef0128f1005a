//! Tensor memory (`tcgen05`, sm_100a and later): allocation, loads into register vectors
//! whose length follows the shape and `.num`, loads with a reduction (two destinations: the
//! vector and the reduced value), and the load/store waits. Tensor-memory operands are
//! [`TmemAddr`](crate::regs::TmemAddr)s.
//!
//! The forms come from the table `macros/tables/tcgen05.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(tcgen05);
