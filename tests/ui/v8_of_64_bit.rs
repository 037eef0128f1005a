use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_100);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U64>,)| {
        // 256 bits at most: `.v8` takes 32-bit elements, 64-bit ones load as `.v4`.
        let _ = ptx!(k, "ld.global.v8.u64", x.offset(0));
    });
}
