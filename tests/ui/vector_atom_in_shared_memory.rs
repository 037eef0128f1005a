use ptxkit::prelude::*;

// Vector atomics exist in global memory only (ptxas: "State space incorrect for feature
// 'atom instruction with vector types'").
fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (x,): (Reg<F32>,)| {
        let s = k.shared_array::<F32>("s", 32, 16);
        let _ = ptx!(k, "atom.shared.add.v4.f32", s, [x, x, x, x]);
    });
}
