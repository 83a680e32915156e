//! Compiles `src/children.c` against the internal headers of the tree-sitter
//! crate this build links (its `src/`, beside the `include/` it announces), so the
//! helper reads the same layout the library was built with.

use std::path::PathBuf;

fn main() {
    let include = PathBuf::from(
        std::env::var("DEP_TREE_SITTER_INCLUDE").expect("tree-sitter announces its include folder"),
    );
    let src = include
        .parent()
        .expect("the tree-sitter crate's folder")
        .join("src");
    println!("cargo:rerun-if-changed=src/children.c");
    cc::Build::new()
        .std("c11")
        .include(&src)
        .include(&include)
        .define("_POSIX_C_SOURCE", "200112L")
        .define("_DEFAULT_SOURCE", None)
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-unused-function")
        .file("src/children.c")
        .compile("tsa-tree-children");
}
