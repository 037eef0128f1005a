use ptxkit::intrinsics::order::*;
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        k.st_ordered(Acquire, Gpu, x.offset(0), 1u32);
    });
}
