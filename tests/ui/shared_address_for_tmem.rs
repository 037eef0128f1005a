use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_100A);
    let _ = m.kernel("k", |k, (_p,): (Reg<U32>,)| {
        // The slot `tcgen05.alloc` writes the tensor-memory address into is shared memory;
        // the address itself must be read out of it (`TmemAddr::from_reg`) first.
        let slot = k.shared_array::<B32>("taddr", 1, 4);
        let _ = ptx!(k, "tcgen05.ld.sync.aligned.32x32b.x1.b32", slot);
    });
}
