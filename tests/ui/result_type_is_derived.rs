use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a,): (Reg<F32>,)| {
        let r: Reg<F64> = ptx!(k, "add.f32", a, a);
        let _ = r;
    });
}
