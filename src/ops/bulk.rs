//! Bulk and tensor copies (TMA): `cp.async.bulk.tensor` loads into shared memory completing
//! on an mbarrier, stores from shared memory completing in bulk groups, and the group
//! commit and wait. The tensor operand is a [`TensorAt`](crate::regs::TensorAt) whose
//! coordinate count is the copy's dimension.
//!
//! The forms come from the table `macros/tables/bulk.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(bulk);
