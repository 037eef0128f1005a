use ptxkit::prelude::*;

// An `alloca` block is a `.local` address: a global store cannot take it.
fn main() {
    let mut m = Module::new(Target::SM_90);
    let _ = m.kernel("k", |k, (n,): (Reg<U32>,)| {
        let buf: LocalPtr<U32> = k.alloca(n, 4);
        ptx!(k, "st.global.u32", buf, 1u32);
    });
}
