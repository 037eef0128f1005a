use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a,): (Reg<U32>,)| {
        let _ = ptx!(k, "add.u32", a);
    });
}
