use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90A);
    let _ = m.kernel("k", |k, (a, b): (Reg<B64>, Reg<B64>)| {
        let (a, b) = (a.bitcast::<Gdesc>(), b.bitcast::<Gdesc>());
        let _ = ptx!(k, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", a, b, true, 1, 1, 0, 0);
    });
}
