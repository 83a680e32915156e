//! C and C++: calls bound the way the compiler and the linker find them.
//!
//! - `#include` is searched like a compiler does: a quoted include first beside
//!   the including file, then the include folders, which a `compile_commands.json`
//!   names (`-I`, `-isystem`, `-iquote`, `-idirafter`) or, without one, every
//!   folder named `include` (and its `uapi`) in the tree, then the project root.
//!   When several folders hold the header, the ones serving the including file's
//!   subtree win (a folder serves the tree above its `include`: `drivers/` never
//!   gets `tools/include`), then the nearest (`tools/` code gets `tools/include`
//!   over `include/`); more than
//!   [`MAX_HEADERS`] equally near ones bind to none rather than to a guess; among
//!   a database's folders equally near, the first in its order wins, as in the
//!   compiler.
//! - A bare call sees every header its file reaches through includes, transitively
//!   (`static inline` functions and function-like macros of those headers).
//! - Else the linker: a function with external linkage (not `static`) defined in a
//!   source file. Definitions compiled against the same include folders as the
//!   caller win (the kernel's `kfree` over a copy under `tools/`); several left are
//!   build variants (`mm/slab.c`, `mm/slub.c`), each a target of the call.
//! - A `static` function or a macro of a source file is seen by that file only.

use std::cell::RefCell;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use tsa_lang::{DefKind, Family};

use super::generic::{dir_of, join};
use super::{Alt, Binding, MCall, MFile, Model, Resolution, bound};

/// Most headers one include may bind to when several folders hold it equally near.
const MAX_HEADERS: usize = 4;

/// Most external definitions one call binds to as build variants; a name defined
/// in more source files than this (one per architecture) stays `unknown`, counted
/// as an open call site rather than written once per definition.
const MAX_LINKED: usize = 8;

/// Header extensions: a function defined in one is not a link target of its own.
const HEADER_EXTENSIONS: &[&str] = &["h", "hh", "hpp", "hxx", "h++", "inc", "inl", "tcc"];

/// The include folders and the headers under them.
#[derive(Default)]
pub(super) struct Folders {
    /// The folders searched, in order.
    dirs: Vec<String>,
    /// Per folder: the subtree it serves, the folder holding its `include`
    /// (`tools/include` serves `tools/`, `include/uapi` the whole tree).
    scopes: Vec<String>,
    /// They are a compilation database's (its order decides ties).
    stated: bool,
    /// A header's path below a folder (`linux/slab.h`) -> (file, folder index), every
    /// folder that holds it.
    by_rel: HashMap<String, Vec<(u32, u16)>>,
}

/// The include graph of the project's C and C++ files.
#[derive(Default)]
pub(super) struct Includes {
    pub(super) folders: Folders,
    /// Per file, bound on first use (a sync asks about a few files only).
    links: Vec<std::sync::OnceLock<Links>>,
    /// Any C-family file at all (else nothing here is ever asked).
    any: bool,
}

/// What one file's includes bind to.
#[derive(Default)]
struct Links {
    /// The files its includes bind to.
    edges: Vec<u32>,
    /// The include folders (indexes) its angle includes were found in.
    used: Vec<u16>,
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

/// Whether a definition is seen by its own file only (C, C++): a `static`
/// function, or a macro (`#define` has no linkage: other files see it only by
/// including its file).
pub fn is_file_local(lang: tsa_lang::Language, kind: DefKind, signature: &str) -> bool {
    if lang.family() != Family::C || kind != DefKind::Function {
        return false;
    }
    if signature.trim_start().starts_with('#') {
        return true;
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
    out.truncate(u16::MAX as usize);
    out
}

/// The subtree an include folder serves: the folder above its last `include`
/// segment (`arch/x86/include/uapi` -> `arch/x86`); the whole tree for one without.
fn scope_of(dir: &str) -> &str {
    let mut end = None;
    let mut at = 0;
    for seg in dir.split('/') {
        if seg == "include" {
            end = Some(at);
        }
        at += seg.len() + 1;
    }
    match end {
        Some(e) => dir[..e].trim_end_matches('/'),
        None => "",
    }
}

impl Folders {
    fn new(files: &[MFile], stated: &[String]) -> Folders {
        let dirs = folders(files, stated);
        let index: HashMap<&str, u16> = dirs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.as_str(), i as u16))
            .collect();
        let mut by_rel: HashMap<String, Vec<(u32, u16)>> = HashMap::default();
        for (k, f) in files.iter().enumerate() {
            if f.lang.family() != Family::C {
                continue;
            }
            // Every ancestor folder of the file that is an include folder.
            for (at, _) in f.path.match_indices('/') {
                if let Some(&i) = index.get(&f.path[..at]) {
                    by_rel
                        .entry(f.path[at + 1..].to_owned())
                        .or_default()
                        .push((k as u32, i));
                }
            }
        }
        let scopes = dirs.iter().map(|d| scope_of(d).to_owned()).collect();
        Folders {
            dirs,
            scopes,
            stated: !stated.is_empty(),
            by_rel,
        }
    }
}

impl Includes {
    pub(super) fn new(files: &[MFile], stated: &[String]) -> Includes {
        if !files.iter().any(|f| f.lang.family() == Family::C) {
            return Includes::default();
        }
        Includes {
            folders: Folders::new(files, stated),
            links: (0..files.len())
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            any: true,
        }
    }

    /// Binds the includes of every file, in parallel.
    pub(super) fn bind_all(&self, m: &Model) {
        use rayon::prelude::*;
        if self.any {
            (0..self.links.len()).into_par_iter().for_each(|k| {
                self.links(m, k);
            });
        }
    }

    /// What the includes of file `k` bind to (bound on the first ask).
    fn links(&self, m: &Model, k: usize) -> &Links {
        self.links[k].get_or_init(|| {
            let mut out = Links::default();
            if m.files[k].lang.family() != Family::C {
                return out;
            }
            for imp in &m.imports[k] {
                let (targets, folder) =
                    include(&m.files, &m.generic.by_path, &self.folders, k, &imp.module);
                out.edges.extend(targets.iter().map(|&t| t as u32));
                if let Some(i) = folder
                    && !out.used.contains(&i)
                {
                    out.used.push(i);
                }
            }
            out.edges.sort_unstable();
            out.edges.dedup();
            out
        })
    }

    /// The files `file` reaches through includes, transitively, itself left out.
    fn reach(&self, m: &Model, file: usize) -> Vec<u64> {
        let mut seen = vec![0u64; self.links.len().div_ceil(64)];
        let mut todo: Vec<u32> = self.links(m, file).edges.clone();
        while let Some(f) = todo.pop() {
            let (w, b) = (f as usize / 64, f as usize % 64);
            if seen[w] & (1 << b) != 0 {
                continue;
            }
            seen[w] |= 1 << b;
            todo.extend(self.links(m, f as usize).edges.iter().copied());
        }
        seen
    }
}

/// The files an include of `spec` (`<linux/slab.h>`, or `util.h` written in
/// quotes) in file `from` binds to, and the include folder it was found in.
pub(super) fn include(
    files: &[MFile],
    by_path: &HashMap<String, usize>,
    folders: &Folders,
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
    let clean = clean.trim_start_matches("./");
    let mut cands: Vec<(usize, usize, u16)> = folders
        .by_rel
        .get(clean)
        .into_iter()
        .flatten()
        .filter(|(f, _)| lang.can_call(files[*f as usize].lang))
        .map(|&(f, i)| {
            let near = shared_segments(&folders.dirs[i as usize], here);
            (f as usize, near, i)
        })
        .collect();
    if cands.is_empty() {
        return (found(clean).into_iter().collect(), None);
    }
    // Folders that serve the including file's subtree first (the kernel's
    // `include/` over `tools/include` for `drivers/`); none: every folder.
    let serves = |i: u16| {
        let sc = &folders.scopes[i as usize];
        sc.is_empty()
            || here
                .strip_prefix(sc.as_str())
                .is_some_and(|r| r.starts_with('/'))
    };
    if cands.iter().any(|c| serves(c.2)) {
        cands.retain(|c| serves(c.2));
    }
    let best = cands.iter().map(|c| c.1).max().unwrap_or(0);
    cands.retain(|c| c.1 == best);
    // A compilation database's folders are searched in order: the first wins.
    if folders.stated {
        cands.sort_by_key(|c| c.2);
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
            *cell = Some((m.uid, file, m.includes.reach(m, file)));
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
    let mine = &m.includes.links(m, call.file).used;
    let alike: Vec<usize> = linked
        .iter()
        .copied()
        .filter(|&s| {
            m.includes
                .links(m, m.syms[s].file)
                .used
                .iter()
                .any(|f| mine.contains(f))
        })
        .collect();
    let mut linked = if alike.is_empty() { linked } else { alike };
    if linked.len() > MAX_LINKED {
        linked.clear();
    }
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
        assert_eq!(super::scope_of("tools/include"), "tools");
        assert_eq!(super::scope_of("include/uapi"), "");
        assert_eq!(super::scope_of("arch/x86/include/uapi"), "arch/x86");
        assert_eq!(super::scope_of("hdr"), "");
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
        assert!(is_file_local(
            c,
            DefKind::Function,
            "#define pr_err(fmt, ...)"
        ));
    }
}
