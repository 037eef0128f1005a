use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90A);
    let _ = m.kernel("k", |k, ()| {
        // setmaxnreg takes a multiple of 8 from 24 to 256.
        ptx!(k, "setmaxnreg.dec.sync.aligned.u32", Const::<41>);
    });
}
