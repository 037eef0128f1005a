// A store whose chain names a wider element than the pointer's: the error says the
// pointer's element is not the instruction's and suggests `.cast`.
use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (v,): (Reg<B32>,)| {
        let halves = k.shared_array::<B16>("halves", 64, 4);
        ptx!(k, "st.shared.b32", halves.offset(0), v);
    });
}
