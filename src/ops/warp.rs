//! Warp collectives: vote, shfl.sync (with and without the `|p` in-range predicate), match,
//! redux, activemask and elect.
//!
//! `shfl.sync` and `match.sync.all` show the wrapper pattern: the `pair` rows give the same
//! chain a grouped `d|p` destination, reached with `ptx!(k, "shfl.sync.bfly.b32" as pair, ...)`.
//!
//! The forms come from the table `macros/tables/warp.forms`; [`FORMS`] lists them and
//! shows the table.

ptxkit_macros::forms!(warp);
