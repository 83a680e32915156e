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

/// Blocks handed to tree-sitter (tests check that the hand-over took).
#[cfg(test)]
static HANDED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `p`, or the end of the process when an allocation of `size` bytes failed:
/// tree-sitter's C code never checks for null (its own default allocator aborts
/// too), so null must never reach it.
fn or_abort(p: *mut c_void, size: usize) -> *mut c_void {
    if p.is_null() && size != 0 {
        std::process::abort();
    }
    #[cfg(test)]
    HANDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    p
}

extern "C" fn malloc(size: usize) -> *mut c_void {
    // SAFETY: mi_malloc takes any size.
    or_abort(unsafe { libmimalloc_sys::mi_malloc(size) }, size)
}

extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
    let total = count.saturating_mul(size);
    // SAFETY: mi_zalloc takes any size (an overflowing product asks for usize::MAX,
    // which fails, and so aborts).
    or_abort(unsafe { libmimalloc_sys::mi_zalloc(total) }, total)
}

/// # Safety
/// `p` is null or a live block of this allocator.
unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: `p` is null or a block of mi_malloc / mi_zalloc / mi_realloc (the
    // caller's contract).
    or_abort(unsafe { libmimalloc_sys::mi_realloc(p, size) }, size)
}

/// Makes tree-sitter's C library allocate with mimalloc, once per process (later
/// calls do nothing).
///
/// # Safety
/// No tree-sitter object (parser, tree, query cursor, thread-local parser of
/// tsa-lang) may exist yet, in any thread: one allocated by libc and freed by
/// mimalloc is undefined behaviour. A `main` calls this before anything else.
pub unsafe fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let mimalloc = tree_sitter::Allocator {
            malloc,
            calloc,
            realloc,
            free: libmimalloc_sys::mi_free,
        };
        // SAFETY: one allocator family (mimalloc), null never returned for a
        // non-zero size (the shims abort), malloc's alignment; once (`ONCE`), and
        // before any tree-sitter object exists (this function's contract).
        unsafe { tree_sitter::set_allocator(Some(mimalloc)) };
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    #[test]
    fn files_are_extracted_with_tree_sitter_on_mimalloc() {
        // SAFETY: this test binary makes no tree-sitter object before (nextest runs
        // each test in a process of its own; this crate has no other test).
        unsafe { super::install() };
        let before = super::HANDED.load(Ordering::Relaxed);
        let x = tsa_lang::extract(tsa_lang::Language::Python, b"def f():\n    g(1)\n")
            .expect("an extraction");
        assert_eq!((x.defs.len(), x.calls.len()), (1, 1));
        assert!(
            super::HANDED.load(Ordering::Relaxed) > before,
            "tree-sitter allocated elsewhere"
        );
        // A second hand-over does nothing (the trees of the first stay valid).
        // SAFETY: a no-op after the first call.
        unsafe { super::install() };
        let y = tsa_lang::extract(tsa_lang::Language::Python, b"class A:\n    pass\n")
            .expect("an extraction");
        assert_eq!(y.defs.len(), 1);
    }
}
