use ptxkit::intrinsics::order::*;
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (x,): (GlobalPtr<U32>,)| {
        let _ = x;
        let c: ConstPtr<U32> = ConstPtr::from_reg(k.reg());
        let _ = k.ld_ordered(Relaxed, Gpu, c.offset(0));
    });
}
