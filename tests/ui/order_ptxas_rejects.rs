use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (x, a): (GlobalPtr<U32>, Reg<U32>)| {
        // ptxas takes `.wide` before the type only, and `.v4` right before it.
        let _ = ptx!(k, "mul.u32.wide", a, a);
        let _ = ptx!(k, "ld.v4.global.u32", x.offset(0));
    });
}
