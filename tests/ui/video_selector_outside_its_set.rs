use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (a, b, c): (Reg<U32>, Reg<U32>, Reg<U32>)| {
        // A 4-lane source takes `.bxyzw`, not a half-word.
        let _ = ptx!(k, "vadd4.u32.u32.u32", a.h1(), b, c);
        // A scalar merge writes a byte or a half-word, not a 4-lane mask.
        let d = k.reg::<U32>();
        ptx!(k, "vadd.u32.u32.u32" as dsel => d.b10(), a, b, c);
    });
}
