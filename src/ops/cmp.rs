//! Compare and select: setp (single, boolean-combined and dual-predicate `p|q` forms),
//! selp, set and slct.
//!
//! The dual-predicate rows (`as pair`) are the wrapper pattern: the same chain as the
//! chain default with another destination layout, reached with
//! `ptx!(k, "setp.lt.s32" as pair, a, b)` and returning `(Reg<Pred>, Reg<Pred>)`.
//!
//! The forms come from the table `macros/tables/cmp.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(cmp);
