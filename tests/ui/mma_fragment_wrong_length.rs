use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, ()| {
        // m16n8k16 .bf16 takes four A registers per thread (eight elements), not two.
        let a: [Reg<B32>; 2] = std::array::from_fn(|_| k.reg());
        let b: [Reg<B32>; 2] = std::array::from_fn(|_| k.reg());
        let c: [Reg<F32>; 4] = std::array::from_fn(|_| k.reg());
        let _d = ptx!(k, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", a, b, c);
    });
}
