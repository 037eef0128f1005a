//! Synchronisation: bar/barrier (CTA and cluster), bar.warp.sync, fence, membar, and
//! nanosleep.
//!
//! `bar.sync a, b` (with a thread count) is the `counted` variant of `bar.sync a`.
//!
//! The forms come from the table `macros/tables/sync.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(sync);
