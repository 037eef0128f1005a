use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_90A);
    let _ = m.kernel("k", |k, ()| {
        // A multiple of 8, but above 256.
        ptx!(k, "setmaxnreg.inc.sync.aligned.u32", Const::<264>);
    });
}
