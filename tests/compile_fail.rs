//! Compile-fail cases: each class of rejection the type system makes is pinned here with
//! the compiler's message (`TRYBUILD=overwrite cargo test --test compile_fail` updates the
//! `.stderr` files after a deliberate change).

#[test]
fn rejections() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

/// Launches whose host arguments do not match the kernel's parameters.
#[cfg(feature = "cuda")]
#[test]
fn launch_rejections() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_cuda/*.rs");
}
