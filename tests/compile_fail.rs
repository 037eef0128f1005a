//! Compile-fail cases: each class of rejection the type system makes is pinned here with
//! the compiler's message (`TRYBUILD=overwrite cargo test --test compile_fail` updates the
//! `.stderr` files after a deliberate change).

#[test]
fn rejections() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
