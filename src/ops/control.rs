//! Control: branches, return, exit, trap, breakpoint. Calls of `.func`s are made with
//! [`Kernel::call`](crate::Kernel::call), which checks the argument and result types.

ptxkit_macros::forms! {
//  form                                              dst = operands
    "bra{.uni}"                                       "- = label";
    "ret{.uni}"                                       "- =";
    "exit"                                            "- =";
    "trap"                                            "- =";
    "brkpt"                                           "- =";
}
