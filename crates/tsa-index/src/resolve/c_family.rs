//! C and C++: calls bound the way the compiler and the linker find them.
//!
//! - `#include` is searched like a compiler does: a quoted include first beside
//!   the including file, then the include folders, which a `compile_commands.json`
//!   names (`-I`, `-isystem`, `-iquote`, `-idirafter`) or, without one, every
//!   folder named `include` (and its `uapi`) in the tree, then the project root.
//!   When several folders hold the header (`arch/*/include/asm/page.h`), the ones
//!   nearest the including file win (`tools/` code gets `tools/include`); more than
//!   [`MAX_HEADERS`] equally near ones bind to none rather than to a guess; among
//!   a database's folders equally near, the first in its order wins, as in the
//!   compiler.
//! - A bare call sees every header its file reaches through includes, transitively
//!   (`static inline` functions and function-like macros of those headers).
//! - Else the linker: a function with external linkage (not `static`) defined in a
//!   source file. Definitions compiled against the same include folders as the
//!   caller win (the kernel's `kfree` over a copy under `tools/`); several left are
//!   build variants (`mm/slab.c`, `mm/slub.c`), each a target of the call.
//! - A `static` function of a source file is seen by that file only.

use std::cell::RefCell;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tsa_lang::{DefKind, Family};

use super::{Alt, Binding, MCall, MFile, MImport, Model, Resolution, bound};

/// Most headers one include may bind to when several folders hold it equally near.
const MAX_HEADERS: usize = 4;

/// Header extensions: a function defined in one is not a link target of its own.
const HEADER_EXTENSIONS: &[&str] = &["h", "hh", "hpp", "hxx", "h++", "inc", "inl", "tcc"];

/// The include graph of the project's C and C++ files.
#[derive(Default)]
pub(super) struct Includes {
    /// The include folders searched, in order.
    pub(super) dirs: Vec<String>,
    /// The folders are a compilation database's (its order decides ties).
    pub(super) stated: bool,
    /// Per file: the files its includes bind to.
    edges: Vec<Vec<u32>>,
    /// Per file: the include folders (indexes) its angle includes were found in.
    folders: Vec<Vec<u16>>,
    /// Any C-family file at all (else nothing here is ever asked).
    any: bool,
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Joins `rel` onto `dir` lexically; `None` when `..` climbs above the root.
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// How many leading path segments `a` and `b` share.
fn shared_segments(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

pub(super) fn is_header(path: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, ext)| HEADER_EXTENSIONS.contains(&ext))
}

/// Whether a definition is `static` at file scope (C, C++): seen by its file only.
pub fn is_file_local(lang: tsa_lang::Language, kind: DefKind, signature: &str) -> bool {
    if lang.family() != Family::C || kind != DefKind::Function {
        return false;
    }
    let head = signature.split('(').next().unwrap_or("");
    head.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == "static")
}

/// The include folders: the compilation database's, else every folder named
/// `include` in the tree (and an `include/uapi` beside it), nearest the root first.
fn folders(files: &[MFile], stated: &[String]) -> Vec<String> {
    if !stated.is_empty() {
        return stated.to_vec();
    }
    let mut found: HashSet<&str> = HashSet::default();
    for f in files.iter().filter(|f| f.lang.family() == Family::C) {
        let mut end = 0;
        for seg in f.path.split('/') {
            let next = if end == 0 {
                seg.len()
            } else {
                end + 1 + seg.len()
            };
            if next >= f.path.len() {
                break;
            }
            let dir = &f.path[..next];
            if seg == "include" || (seg == "uapi" && dir_of(dir).ends_with("include")) {
                found.insert(dir);
            }
            end = next;
        }
    }
    let mut out: Vec<String> = found.into_iter().map(str::to_owned).collect();
    out.sort_by(|a, b| {
        a.matches('/')
            .count()
            .cmp(&b.matches('/').count())
            .then(a.cmp(b))
    });
    out
}

impl Includes {
    pub(super) fn new(
        files: &[MFile],
        imports: &[Vec<MImport>],
        by_path: &HashMap<String, usize>,
        stated: &[String],
    ) -> Includes {
        if !files.iter().any(|f| f.lang.family() == Family::C) {
            return Includes::default();
        }
        let folders = folders(files, stated);
        let mut out = Includes {
            dirs: Vec::new(),
            stated: !stated.is_empty(),
            edges: vec![Vec::new(); files.len()],
            folders: vec![Vec::new(); files.len()],
            any: true,
        };
        for (k, f) in files.iter().enumerate() {
            if f.lang.family() != Family::C {
                continue;
            }
            for imp in &imports[k] {
                let (targets, folder) =
                    include(files, by_path, &folders, !stated.is_empty(), k, &imp.module);
                out.edges[k].extend(targets.iter().map(|&t| t as u32));
                if let Some(i) = folder
                    && !out.folders[k].contains(&i)
                {
                    out.folders[k].push(i);
                }
            }
            out.edges[k].sort_unstable();
            out.edges[k].dedup();
        }
        out.dirs = folders;
        out
    }

    /// The files `file` reaches through includes, transitively, itself left out.
    fn reach(&self, file: usize) -> Vec<u64> {
        let mut seen = vec![0u64; self.edges.len().div_ceil(64)];
        let mut todo: Vec<u32> = self.edges[file].clone();
        while let Some(f) = todo.pop() {
            let (w, b) = (f as usize / 64, f as usize % 64);
            if seen[w] & (1 << b) != 0 {
                continue;
            }
            seen[w] |= 1 << b;
            todo.extend(self.edges[f as usize].iter().copied());
        }
        seen
    }
}

/// The files an include of `spec` (`<linux/slab.h>`, or `util.h` written in
/// quotes) in file `from` binds to, and the include folder it was found in.
pub(super) fn include(
    files: &[MFile],
    by_path: &HashMap<String, usize>,
    folders: &[String],
    stated: bool,
    from: usize,
    spec: &str,
) -> (Vec<usize>, Option<u16>) {
    let spec = spec.trim();
    let system = spec.starts_with('<');
    let clean = spec
        .trim_matches(|c| c == '<' || c == '>' || c == '"')
        .trim();
    let lang = files[from].lang;
    let found = |p: &str| {
        by_path
            .get(p)
            .copied()
            .filter(|&f| lang.can_call(files[f].lang))
    };
    let here = &files[from].path;
    if !system
        && let Some(p) = join(dir_of(here), clean)
        && let Some(f) = found(&p)
    {
        return (vec![f], None);
    }
    let mut cands: Vec<(usize, usize, u16)> = Vec::new();
    for (i, folder) in folders.iter().enumerate() {
        if let Some(p) = join(folder, clean)
            && let Some(f) = found(&p)
        {
            cands.push((f, shared_segments(folder, here), i as u16));
        }
    }
    if cands.is_empty() {
        return (found(clean).into_iter().collect(), None);
    }
    let best = cands.iter().map(|c| c.1).max().unwrap_or(0);
    cands.retain(|c| c.1 == best);
    // A compilation database's folders are searched in order: the first wins.
    if stated {
        cands.truncate(1);
    }
    if cands.len() > MAX_HEADERS {
        return (Vec::new(), None);
    }
    let folder = (cands.len() == 1).then(|| cands[0].2);
    (cands.into_iter().map(|c| c.0).collect(), folder)
}

thread_local! {
    /// The last file whose reach a thread computed: (model, file, reach).
    static REACH: RefCell<Option<(u64, usize, Vec<u64>)>> = const { RefCell::new(None) };
}

/// Whether `target` is among the files `file` reaches through includes.
fn reaches(m: &Model, file: usize, targets: &[usize]) -> Vec<bool> {
    REACH.with(|cell| {
        let mut cell = cell.borrow_mut();
        let fresh = !matches!(&*cell, Some((uid, f, _)) if *uid == m.uid && *f == file);
        if fresh {
            *cell = Some((m.uid, file, m.includes.reach(file)));
        }
        let seen = &cell.as_ref().map(|c| &c.2);
        targets
            .iter()
            .map(|&t| seen.is_some_and(|s| s[t / 64] & (1 << (t % 64)) != 0))
            .collect()
    })
}

/// A bare call in a C or C++ file that its own scopes and file did not bind:
/// a definition of a header the file reaches, else a function with external
/// linkage. `None`: neither exists (builtins and the rest come next).
pub(super) fn resolve_bare(m: &Model, call: &MCall<'_>, test: bool) -> Option<Binding> {
    if !m.includes.any {
        return None;
    }
    let lang = m.files[call.file].lang;
    let cands: Vec<usize> = m
        .named_all(call.callee)
        .iter()
        .copied()
        .filter(|&s| {
            let sym = &m.syms[s];
            matches!(
                sym.kind,
                DefKind::Function | DefKind::Class | DefKind::Struct
            ) && sym.owner.is_none()
                && sym.file != call.file
                && lang.can_call(m.files[sym.file].lang)
        })
        .collect();
    if cands.is_empty() {
        return None;
    }
    let files: Vec<usize> = cands.iter().map(|&s| m.syms[s].file).collect();
    let seen = reaches(m, call.file, &files);
    let reached: Vec<usize> = cands
        .iter()
        .zip(&seen)
        .filter(|(_, r)| **r)
        .map(|(&s, _)| s)
        .collect();
    // The linker: external definitions in source files, compiled against the
    // caller's include folders when some are.
    let linked: Vec<usize> = cands
        .into_iter()
        .filter(|&s| !m.syms[s].file_local && !is_header(&m.files[m.syms[s].file].path))
        .collect();
    let mine = &m.includes.folders[call.file];
    let alike: Vec<usize> = linked
        .iter()
        .copied()
        .filter(|&s| {
            m.includes.folders[m.syms[s].file]
                .iter()
                .any(|f| mine.contains(f))
        })
        .collect();
    let linked = if alike.is_empty() { linked } else { alike };
    // A header's macro or inline beside an external function of the same name are
    // alternatives of the configuration (`#ifdef`): each is a target, the header's
    // first.
    bind(m, reached, linked, test)
}

/// Production definitions only for a production caller, when there are some.
fn production(m: &Model, mut cands: Vec<usize>, test: bool) -> Vec<usize> {
    if !test && cands.iter().any(|&c| !m.syms[c].is_test) {
        cands.retain(|&c| !m.syms[c].is_test);
    }
    cands
}

/// The reached definitions (confidence 0.9), then the linked ones (0.8 alone,
/// else 0.7): the first is the target, the rest alternatives.
fn bind(m: &Model, reached: Vec<usize>, linked: Vec<usize>, test: bool) -> Option<Binding> {
    let reached = production(m, reached, test);
    let mut linked = production(m, linked, test);
    linked.retain(|s| !reached.contains(s));
    let lone = reached.is_empty() && linked.len() == 1;
    let mut all = reached.into_iter().map(|s| (s, 0.9)).chain(
        linked
            .into_iter()
            .map(|s| (s, if lone { 0.8 } else { 0.7 })),
    );
    let (first, confidence) = all.next()?;
    let mut b = bound(first, confidence);
    b.alts = all
        .map(|(target, confidence)| Alt {
            target,
            resolution: Resolution::Project,
            confidence,
        })
        .collect();
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::{is_file_local, is_header, join, shared_segments};
    use tsa_lang::{DefKind, Language};

    #[test]
    fn paths_and_linkage() {
        assert_eq!(
            join("arch/x86/include", "asm/page.h").as_deref(),
            Some("arch/x86/include/asm/page.h")
        );
        assert_eq!(shared_segments("tools/include", "tools/perf/a.c"), 1);
        assert_eq!(shared_segments("include", "mm/slab.c"), 0);
        assert!(is_header("include/linux/slab.h") && !is_header("mm/slab.c"));
        let c = Language::C;
        assert!(is_file_local(
            c,
            DefKind::Function,
            "static inline int f(int x)"
        ));
        assert!(is_file_local(
            c,
            DefKind::Function,
            "static __always_inline void *kmalloc(size_t n)"
        ));
        assert!(!is_file_local(
            c,
            DefKind::Function,
            "void kfree(const void *p)"
        ));
        assert!(!is_file_local(
            c,
            DefKind::Function,
            "int f(int (*cb)(int), int static_x)"
        ));
        assert!(!is_file_local(c, DefKind::Struct, "static struct x"));
    }
}
