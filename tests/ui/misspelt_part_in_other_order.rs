use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        // `ld.relaxed.gpu.global.u32` in another order ptxas accepts, with `.relaxed` misspelt.
        let _ = ptx!(k, "ld.global.relaxd.gpu.u32", x.offset(0));
        let _ = ptx!(k, "cvt.f32.rn.f46", ptx!(k, "mov.f64", 1.0f64));
    });
}
