// `cvt.bf16.f32` lacks its rounding; the advice keeps the destination type first and says
// that `cvt.f32.bf16` (the same parts) converts the other way.
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a,): (Reg<F32>,)| {
        let _ = ptx!(k, "cvt.bf16.f32", a);
    });
}
