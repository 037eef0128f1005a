//! ptxkit::descriptors on the host: the descriptor's fields, every error path, and the tile
//! layouts checked against an independent model of what the tensor cores read (wgmma and
//! tcgen05).

mod fields;
mod layouts;
mod tcgen05;

// ---------------------------------------------------------------------------------------
// The module stands alone
// ---------------------------------------------------------------------------------------

/// Lines of non-test, non-comment code in `text` that reach into the rest of the crate.
fn outside_uses(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//"))
        .filter(|l| l.contains("crate::") || l.contains("ptxkit::") || l.contains("super::super"))
        .map(String::from)
        .collect()
}

#[test]
fn descriptors_use_nothing_else_of_the_crate() {
    assert_eq!(outside_uses("use crate::core::DType;\n/// crate::x in a comment\n"), ["use crate::core::DType;"]);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/descriptors");
    let mut files = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(outside_uses(&text), Vec::<String>::new(), "{}", p.display());
        files += 1;
    }
    assert!(files >= 4, "{files} files under {}", dir.display());
}
