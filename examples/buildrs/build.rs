// Writes the kernels into OUT_DIR at build time; src/main.rs includes the text.
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    m.kernel("scale", |k, (x, a, n): (GlobalPtr<F32>, Reg<F32>, Reg<U32>)| {
        let i = k.global_thread_index_x();
        let inb = ptx!(k, "setp.lt.u32", i, n);
        k.if_(inb, |k| {
            let v = k.ld(x.at(i));
            let r = ptx!(k, "mul.rn.f32", v, a);
            k.st(x.at(i), r);
        });
    })
    .expect("scale builds");
    let text = m.to_ptx().expect("module prints");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("kernels.ptx");
    std::fs::write(&out, text).expect("write kernels.ptx");
    println!("cargo:rerun-if-changed=build.rs");
}
