// A chain that lacks a required part names the chains that add it, before anything that
// substitutes a type.
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a,): (Reg<U32>,)| {
        let _ = ptx!(k, "mul.u32", a, a);
    });
}
