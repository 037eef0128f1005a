use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (tex,): (Texture,)| {
        let x = ptx!(k, "mov.f32", 0.5f32);
        // The layer of a 2-d array lookup is a u32, not a float coordinate.
        let _ = ptx!(k, "tex.a2d.v4.f32.f32", tex.at((x, x, x)));
    });
}
