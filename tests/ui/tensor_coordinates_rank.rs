use ptxkit::prelude::*;
use ptxkit::regs::TensorAt;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (map,): (Reg<U64>,)| {
        let smem = k.shared_array::<B32>("tile", 1024, 128);
        let bar = k.shared_array::<B64>("bar", 1, 8);
        let c: [Reg<S32>; 3] = std::array::from_fn(|_| k.reg());
        // A 2-d copy takes two coordinates.
        ptx!(k, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", smem, TensorAt::new(map, c), bar);
    });
}
