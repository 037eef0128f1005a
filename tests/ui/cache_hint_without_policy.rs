use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        // `.L2::cache_hint` names a cache-policy operand, which this call leaves out.
        let _ = ptx!(k, "ld.global.L2::cache_hint.u32", x.offset(0));
    });
}
