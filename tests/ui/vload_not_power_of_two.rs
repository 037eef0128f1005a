use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        let i = k.global_thread_index_x();
        let _ = k.vload::<3, U32, _>(x, i, ptxkit::intrinsics::vector::Index::Rebased, ptxkit::intrinsics::vector::Align::Aligned);
    });
}
