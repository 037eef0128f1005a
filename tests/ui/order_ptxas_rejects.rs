use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        let _ = ptx!(k, "ld.global.relaxed.gpu.u32", x.offset(0));
    });
}
