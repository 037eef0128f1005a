use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a,): (Reg<F32>,)| {
        let _ = ptx!(k, "fmaa.rn.f32", a, a, a);
    });
}
