use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90A);
    let _ = m.kernel("k", |k, (a, b): (Reg<B64>, Reg<B64>)| {
        let (a, b) = (a.bitcast::<Gdesc>(), b.bitcast::<Gdesc>());
        let acc: [Reg<F32>; 4] = std::array::from_fn(|_| k.reg());
        ptx!(k, "wgmma.mma_async.sync.aligned.m64n7k16.f32.bf16.bf16" => Acc::from(acc), a, b, true, 1, 1, 0, 0);
    });
}
