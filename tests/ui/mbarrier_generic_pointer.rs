use ptxkit::intrinsics::mbarrier::Mbarrier;
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (p,): (Reg<U64>,)| {
        // A generic address may point anywhere: an mbarrier must be in the CTA's shared memory.
        let bar = Mbarrier::at(GenericPtr::<B64>::from_reg(p));
        bar.init(k, 1u32);
    });
}
