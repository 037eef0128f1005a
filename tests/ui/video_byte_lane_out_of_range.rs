use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (a, b, c): (Reg<U32>, Reg<U32>, Reg<U32>)| {
        // The pair {b, a} has bytes 0..7.
        let _ = ptx!(k, "vmax4.u32.u32.u32", a.bytes::<8, 0, 1, 2>(), b, c);
    });
}
