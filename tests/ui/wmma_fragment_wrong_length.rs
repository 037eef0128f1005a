use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (c,): (GlobalPtr<F32>,)| {
        // m8n32k16 .bf16 A is two registers per thread (8 rows), B eight (32 columns).
        let a: [Reg<B32>; 8] = std::array::from_fn(|_| k.reg());
        let b: [Reg<B32>; 8] = std::array::from_fn(|_| k.reg());
        let acc = ptx!(k, "wmma.load.c.sync.aligned.row.m8n32k16.global.f32", c);
        let _d = ptx!(k, "wmma.mma.sync.aligned.row.col.m8n32k16.f32.bf16.bf16.f32", a, b, acc);
    });
}
