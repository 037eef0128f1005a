use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_100);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<F32>,)| {
        // L2 eviction priorities apply to 256-bit accesses only (`.v8.f32`, `.v4.f64`).
        let _ = ptx!(k, "ld.global.L2::evict_last.v4.f32", x.offset(0));
    });
}
