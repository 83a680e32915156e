//! The `tsa` binary: everything lives in the `tsa-cli` library.

// mimalloc for Rust and for tree-sitter's C library (crates/tsa-alloc).
#[global_allocator]
static ALLOCATOR: tsa_alloc::MiMalloc = tsa_alloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // SAFETY: the first thing the process does: no tree-sitter object exists yet.
    #[allow(unsafe_code)]
    unsafe {
        tsa_alloc::install()
    };
    tsa_cli::run()
}
