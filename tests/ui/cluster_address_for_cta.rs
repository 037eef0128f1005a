use ptxkit::prelude::*;
use ptxkit::ops::m;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (r,): (Reg<U32>,)| {
        // A .shared::cluster address may be another CTA's: not accepted for .shared::cta.
        let bar: Ptr<m::SharedCluster, B64> = Ptr::from_reg32(r);
        ptx!(k, "mbarrier.init.shared::cta.b64", bar, 1u32);
    });
}
