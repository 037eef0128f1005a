use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (tex,): (Texture,)| {
        let x = ptx!(k, "mov.s32", 4i32);
        // suld reads a surface; a texture handle does not fit.
        let _ = ptx!(k, "suld.b.2d.b32.trap", tex.at([x, x]));
    });
}
