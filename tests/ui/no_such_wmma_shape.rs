use ptxkit::prelude::*;

fn main() {
    let mut m = Module::new(Target::SM_80);
    let _ = m.kernel("k", |k, (a,): (GlobalPtr<F16>,)| {
        // wmma has no m16n8k16 (that is an mma.sync shape).
        let _f = ptx!(k, "wmma.load.a.sync.aligned.row.m16n8k16.global.f16", a);
    });
}
