//! The allocator of tsa's processes (the binary, the index bench): mimalloc.
//!
//! An index build allocates and frees millions of small blocks on every core: parse
//! trees (tree-sitter's C library), extracted names and rows (Rust), pages and
//! statements (SQLite's C library). With glibc's malloc that was about a tenth of a
//! cold build's CPU time (kernel sample). The binary installs [`MiMalloc`] as
//! Rust's global allocator and calls [`install`] first thing, so tree-sitter and
//! SQLite allocate from the same mimalloc heap. Libraries never choose an
//! allocator: only a `main` does.

use std::ffi::{c_int, c_void};
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

/// Blocks handed to SQLite (tests check that the hand-over took).
#[cfg(test)]
static HANDED_SQLITE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// SQLite's `xMalloc`: `n` bytes, null when they cannot be had (SQLite checks, and
/// answers out of memory). SQLite asks for positive sizes only.
extern "C" fn sqlite_malloc(n: c_int) -> *mut c_void {
    #[cfg(test)]
    HANDED_SQLITE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: mi_malloc takes any size.
    unsafe { libmimalloc_sys::mi_malloc(n.max(0) as usize) }
}

/// SQLite's `xRealloc`: null when it fails, the old block then left as it was.
///
/// # Safety
/// `p` is a live block of [`sqlite_malloc`] / [`sqlite_realloc`].
unsafe extern "C" fn sqlite_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    // SAFETY: a block of this allocator (the caller's contract).
    unsafe { libmimalloc_sys::mi_realloc(p, n.max(0) as usize) }
}

/// SQLite's `xSize`: the bytes usable in `p` (at least what was asked).
///
/// # Safety
/// `p` is a live block of [`sqlite_malloc`] / [`sqlite_realloc`].
unsafe extern "C" fn sqlite_size(p: *mut c_void) -> c_int {
    // SAFETY: a block of this allocator (the caller's contract).
    let n = unsafe { libmimalloc_sys::mi_usable_size(p) };
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

/// SQLite's `xRoundup`: what [`sqlite_malloc`] gives for a request of `n`.
extern "C" fn sqlite_roundup(n: c_int) -> c_int {
    // SAFETY: a pure function of the size.
    let n = unsafe { libmimalloc_sys::mi_good_size(n.max(0) as usize) };
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

extern "C" fn sqlite_init(_: *mut c_void) -> c_int {
    libsqlite3_sys::SQLITE_OK
}

extern "C" fn sqlite_shutdown(_: *mut c_void) {}

/// Hands SQLite mimalloc and turns its memory statistics off (each allocation
/// would otherwise take a process-wide mutex, which the build's writer and its
/// FTS thread then wait on). SQLite refuses both once it is initialized (a
/// connection opened): it then keeps its own allocator, which is sound too.
///
/// # Safety
/// No other thread may call into SQLite meanwhile (`sqlite3_config` is not
/// thread-safe).
unsafe fn configure_sqlite() {
    let methods = libsqlite3_sys::sqlite3_mem_methods {
        xMalloc: Some(sqlite_malloc),
        // mimalloc's own free, as tree-sitter's hand-over passes it.
        xFree: Some(libmimalloc_sys::mi_free),
        xRealloc: Some(sqlite_realloc),
        xSize: Some(sqlite_size),
        xRoundup: Some(sqlite_roundup),
        xInit: Some(sqlite_init),
        xShutdown: Some(sqlite_shutdown),
        pAppData: std::ptr::null_mut(),
    };
    // SAFETY: SQLite copies the methods; no other SQLite call runs (the caller's
    // contract); a refusal (SQLITE_MISUSE, already initialized) changes nothing.
    unsafe {
        libsqlite3_sys::sqlite3_config(libsqlite3_sys::SQLITE_CONFIG_MALLOC, &raw const methods);
        libsqlite3_sys::sqlite3_config(libsqlite3_sys::SQLITE_CONFIG_MEMSTATUS, 0 as c_int);
    }
}

/// Makes tree-sitter's and SQLite's C libraries allocate with mimalloc, once per
/// process (later calls do nothing).
///
/// # Safety
/// No tree-sitter object (parser, tree, query cursor, thread-local parser of
/// tsa-lang) may exist yet, in any thread: one allocated by libc and freed by
/// mimalloc is undefined behaviour; and no other thread may be calling into
/// SQLite. A `main` calls this before anything else.
pub unsafe fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: before anything else (this function's contract).
        unsafe { configure_sqlite() };
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
        // SQLite allocates from mimalloc too: a connection's statements and pages.
        let sqlite_before = super::HANDED_SQLITE.load(Ordering::Relaxed);
        let db = rusqlite::Connection::open_in_memory().expect("an in-memory database");
        db.execute_batch("CREATE TABLE t(x TEXT); INSERT INTO t VALUES (hex(randomblob(5000)));")
            .expect("statements run");
        let n: i64 = db
            .query_row("SELECT length(x) FROM t", [], |r| r.get(0))
            .expect("a row");
        assert_eq!(n, 10_000);
        assert!(
            super::HANDED_SQLITE.load(Ordering::Relaxed) > sqlite_before,
            "SQLite allocated elsewhere"
        );
        // A second hand-over does nothing (the trees of the first stay valid).
        // SAFETY: a no-op after the first call.
        unsafe { super::install() };
        let y = tsa_lang::extract(tsa_lang::Language::Python, b"class A:\n    pass\n")
            .expect("an extraction");
        assert_eq!(y.defs.len(), 1);
    }
}
