//! Data movement and atomics: mov; ld/st over every state space with cache operators,
//! .volatile/.relaxed/.acquire/.release and scopes, .v2/.v4; ldu; prefetch; isspacep;
//! atom and red with semantics, scopes, cas and exch.
//!
//! An address operand `[T]` takes a pointer in the chain's state space (generic when the
//! chain names none) whose element type the instruction type accepts; shared-space
//! addresses are 32-bit.
//!
//! The forms come from the table `macros/tables/mem.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(mem);
