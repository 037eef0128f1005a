use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a,): (Reg<B32>,)| {
        let _ = ptx!(k, "lop3.b32", a, a, a, a);
    });
}
