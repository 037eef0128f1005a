use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a, b): (Reg<U32>, Reg<F32>)| {
        let _ = ptx!(k, "fma.rn.f32", a, b, b);
    });
}
