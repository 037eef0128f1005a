use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (p, i): (GlobalPtr<F32>, Reg<U32>)| {
        let _ = ptx!(k, "ld.global.u32", p.at(i));
    });
}
