//! Warpgroup matrix multiply-accumulate (`wgmma`, sm_90a): `wgmma.mma_async` for every dense
//! shape and type, with A and B from shared-memory descriptors ([`Gdesc`](crate::types::Gdesc)
//! registers) or A from registers (`as rs`), and `wgmma.fence`, `commit_group`,
//! `wait_group`. The accumulator is a tied [`Acc`](crate::ops::Acc) (`N/2` registers for an
//! `m64nNk16` f32 accumulator), passed with `=> acc` and updated in place.
//!
//! The forms come from the table `macros/tables/wgmma.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(wgmma);
