//! The allocator of tsa's processes (the binary, the index bench): mimalloc.
//!
//! An index build allocates and frees millions of small blocks on every core: parse
//! trees (tree-sitter's C library), extracted names and rows (Rust). With glibc's
//! malloc that was about a tenth of a cold build's CPU time (kernel sample). The
//! binary installs [`MiMalloc`] as Rust's global allocator and calls [`install`]
//! first thing, so tree-sitter allocates from the same mimalloc heap.
//! Libraries never choose an allocator: only a `main` does.

use std::ffi::c_void;
use std::sync::Once;

pub use mimalloc::MiMalloc;

extern "C" fn zeroed(count: usize, size: usize) -> *mut c_void {
    match count.checked_mul(size) {
        // SAFETY: mi_zalloc takes any size; it returns null only when out of memory.
        #[allow(unsafe_code)]
        Some(total) => unsafe { libmimalloc_sys::mi_zalloc(total) },
        None => std::ptr::null_mut(),
    }
}

/// Makes tree-sitter's C library allocate with mimalloc. Once per process; the
/// binary's `main` calls it before anything else runs, as the hand-over requires:
/// no tree-sitter object may exist yet (one freed by the other allocator would be
/// undefined behaviour). Later calls do nothing.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let mimalloc = tree_sitter::Allocator {
            malloc: libmimalloc_sys::mi_malloc,
            calloc: zeroed,
            realloc: libmimalloc_sys::mi_realloc,
            free: libmimalloc_sys::mi_free,
        };
        // SAFETY: one allocator family (mimalloc), which never returns null but out
        // of memory and aligns as malloc does; called once (`ONCE`), from `main`
        // before any parser, tree or query exists.
        #[allow(unsafe_code)]
        unsafe {
            tree_sitter::set_allocator(Some(mimalloc))
        };
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn files_are_extracted_with_tree_sitter_on_mimalloc() {
        // This test makes no tree-sitter object before the hand-over: it is sound.
        super::install();
        let x = tsa_lang::extract(tsa_lang::Language::Python, b"def f():\n    g(1)\n")
            .expect("an extraction");
        assert_eq!(x.defs.len(), 1);
        assert_eq!(x.calls.len(), 1);
        // A second hand-over does nothing (the trees of the first stay valid).
        super::install();
        let y = tsa_lang::extract(tsa_lang::Language::Python, b"class A:\n    pass\n")
            .expect("an extraction");
        assert_eq!(y.defs.len(), 1);
    }
}
