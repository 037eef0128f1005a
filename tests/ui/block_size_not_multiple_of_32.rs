use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        let i = k.global_thread_index_x();
        let _ = k.block_reduce::<100, _>(i, |k, a, b| ptx!(k, "add.u32", a, b));
        let _ = x;
    });
}
