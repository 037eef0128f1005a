//! Synchronisation: bar/barrier (CTA and cluster), bar.warp.sync, fence, membar, and
//! nanosleep.
//!
//! `bar.sync a, b` (with a thread count) is the `counted` variant of `bar.sync a`.

ptxkit_macros::forms! {
//  form                                              dst = operands
    "bar{.cta}.sync"                                  "- = u32";
    "bar{.cta}.sync"                                  "- = u32, u32" as counted;
    "bar{.cta}.arrive"                                "- = u32, u32";
    "bar{.cta}.red.popc.u32"                          "u32 = u32, pred";
    "bar{.cta}.red.<and|or>.pred"                     "pred = u32, pred";
    "barrier{.cta}.sync{.aligned}"                    "- = u32";
    "barrier{.cta}.sync{.aligned}"                    "- = u32, u32" as counted;
    "barrier{.cta}.arrive{.aligned}"                  "- = u32, u32";
    "barrier.cluster.arrive{.<release|relaxed>}{.aligned}" "- =";
    "barrier.cluster.wait{.acquire}{.aligned}"        "- =";
    "bar.warp.sync"                                   "- = b32";
    "fence{.<sc|acq_rel>}.<scope>"                    "- =";
    "fence.proxy.alias"                               "- =";
    "fence.proxy.async{.<global|shared::cta|shared::cluster>}" "- =";
    "membar.<cta|gl|sys>"                             "- =";
    "nanosleep.u32"                                   "- = u32";
}
