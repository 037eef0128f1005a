use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_100);
    let _ = m.kernel("k", |k, (lo,): (Reg<B64>,)| {
        // The try_cancel response is one 128-bit register (`ld.shared.b128`), not a b64.
        let _ = ptx!(k, "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", lo);
    });
}
