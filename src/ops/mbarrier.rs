//! Barrier objects in shared memory (`mbarrier`): initialisation, arrival with an expected
//! transaction count (the sink `_` result of a remote arrive), and parity waits.
//!
//! The forms come from the table `macros/tables/mbarrier.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(mbarrier);
