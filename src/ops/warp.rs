//! Warp collectives: vote, shfl.sync (with and without the `|p` in-range predicate), match,
//! redux, activemask and elect.
//!
//! `shfl.sync` and `match.sync.all` show the wrapper pattern: the `pair` rows give the same
//! chain a grouped `d|p` destination, reached with `ptx!(k, "shfl.sync.bfly.b32" as pair, ...)`.

ptxkit_macros::forms! {
//  form                                              dst = operands
    "vote.sync.<all|any|uni>.pred"                    "pred = pred, b32";
    "vote.sync.ballot.b32"                            "b32 = pred, b32";
    "shfl.sync.<shflmode>.b32"                        "b32 = b32, u32, u32, b32";
    "shfl.sync.<shflmode>.b32"                        "b32|pred = b32, u32, u32, b32" as pair;
    "match.<any|all>.sync.<T:bits3264>"               "b32 = T, b32";
    "match.all.sync.<T:bits3264>"                     "b32|pred = T, b32" as pair;
    "redux.sync.<add|min|max>.<T:u32|s32>"            "T = T, b32";
    "redux.sync.<and|or|xor>.b32"                     "b32 = b32, b32";
    "redux.sync.<min|max>{.abs}{.NaN}.f32"            "f32 = f32, b32";
    "activemask.b32"                                  "b32 =";
    "elect.sync"                                      "b32|pred = b32";
}
