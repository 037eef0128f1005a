use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (tex,): (Texture,)| {
        let x = ptx!(k, "mov.f32", 0.5f32);
        // A 2-d lookup takes two coordinates.
        let _ = ptx!(k, "tex.2d.v4.f32.f32", tex.at([x, x, x]));
    });
}
