use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_100A);
    let _ = m.kernel("k", |k, (d, da, db, idesc): (Reg<B32>, Reg<B64>, Reg<B64>, Reg<B32>)| {
        let (da, db) = (da.bitcast::<Gdesc>(), db.bitcast::<Gdesc>());
        // A 32-bit register is not a tensor-memory address until it is wrapped as one
        // (`TmemAddr::from_reg`).
        ptx!(k, "tcgen05.mma.cta_group::1.kind::f16", d, da, db, idesc, true);
    });
}
