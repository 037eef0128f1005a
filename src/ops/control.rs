//! Control: branches, return, exit, trap, breakpoint, performance-monitor events
//! (`pmevent` of one event 0..15, `pmevent.mask` of a 16-bit mask, both immediates). Calls
//! of `.func`s are made with [`Kernel::call`](crate::Kernel::call), which checks the
//! argument and result types.
//!
//! The forms come from the table `macros/tables/control.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(control);
