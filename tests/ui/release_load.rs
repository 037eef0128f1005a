use ptxkit::intrinsics::order::*;
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        let _ = k.ld_ordered(Release, Gpu, x.offset(0));
    });
}
