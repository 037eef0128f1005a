use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (map,): (TensorMap<F32, 2>,)| {
        let smem = k.shared_array::<F32>("tile", 1024, 128);
        let bar = k.shared_array::<B64>("bar", 1, 8);
        let c: [Reg<S32>; 3] = std::array::from_fn(|_| k.reg());
        // A rank-2 map takes two coordinates: `at` and the copy helpers check it.
        ptx!(k, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", smem, map.at(c), bar);
        map.load(k, smem, c, bar);
    });
}
