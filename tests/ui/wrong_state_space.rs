use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (i,): (Reg<U32>,)| {
        let s = k.shared_array::<U32>("s", 32, 4);
        let _ = ptx!(k, "ld.global.u32", s.at(i));
    });
}
