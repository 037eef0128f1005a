//! Tensor memory (`tcgen05`, sm_100a and later): allocation, loads into register vectors
//! whose length follows the shape and `.num`, loads with a reduction (two destinations: the
//! vector and the reduced value), stores from such vectors, the load/store waits, copies
//! from shared memory (`tcgen05.cp`), `tcgen05.shift`, the matrix multiply `tcgen05.mma` in
//! every kind (with variants for A in tensor memory, `as ts`, the disable-output-lane mask,
//! `as masked`, and scale-input-d, `as scaled`, and their combinations), `tcgen05.commit` to
//! an mbarrier and the thread-sync fences. Tensor-memory operands are
//! [`TmemAddr`](crate::regs::TmemAddr)s.
//!
//! The forms come from the table `macros/tables/tcgen05.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(tcgen05);
