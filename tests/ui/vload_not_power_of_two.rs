use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        let i = k.global_thread_index_x();
        let _ = k.vload::<3, _>(x.at(i), ptxkit::intrinsics::vector::Align::Aligned);
    });
}
