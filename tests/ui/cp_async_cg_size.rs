use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (src,): (GlobalPtr<U32>,)| {
        let tile = k.shared_array::<U32>("tile", 4, 16);
        // `.cg` copies 16 bytes only.
        ptx!(k, "cp.async.cg.shared.global", tile, src, Const::<8>);
    });
}
