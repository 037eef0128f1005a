use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (p,): (Reg<Pred>,)| {
        let _ = p;
    });
}
