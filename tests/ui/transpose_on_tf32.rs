use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90A);
    let _ = m.kernel("k", |k, (a, b): (Reg<B64>, Reg<B64>)| {
        let (a, b) = (a.bitcast::<Gdesc>(), b.bitcast::<Gdesc>());
        let acc: Acc<F32, 4> = k.zeroed_acc();
        // tf32 has no transpose immediates: only scale-d and the two scales.
        ptx!(k, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32" => acc, a, b, true, 1, 1, 0, 0);
    });
}
