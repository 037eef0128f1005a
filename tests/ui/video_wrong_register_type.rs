use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (a, b): (Reg<F32>, Reg<U64>)| {
        // Video instructions take 32-bit integer registers.
        let _ = ptx!(k, "vadd.u32.u32.u32", a, 1u32);
        let _ = b.b0();
    });
}
