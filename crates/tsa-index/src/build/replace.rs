//! A sync's rewrite of one re-parsed file that keeps the ids other rows point at.
//!
//! The file keeps its id, and every definition found again (same name, kind and
//! qualified name, matched in order) keeps its symbol id, so the bindings of other
//! files' call sites, imports and bases into it stay valid. What the rest of the
//! index must re-bind is then only the names whose definitions came, went or
//! changed in a way resolution looks at (owner, parent, signature, receiver name,
//! test flag, bases), and the names the file imports when its imports changed.

use std::collections::{HashSet, VecDeque};

use rusqlite::{OptionalExtension, Transaction};
use rustc_hash::FxHashMap;
use tsa_lang::{BaseKind, FileExtract};

use crate::IndexError;
use crate::resolve::Resolution;
use crate::store::{FileRow, Writer};

/// What rewriting a file changed for the rest of the index.
#[derive(Debug)]
pub(super) struct Replaced {
    pub file_id: i64,
    /// The path had no row before.
    pub new: bool,
    /// Names other files' bindings may now resolve differently.
    pub names: HashSet<String>,
    /// The file's import list differs from the stored one.
    pub imports_changed: bool,
}

/// A stored definition, as resolution sees it.
struct Old {
    id: i64,
    name: String,
    kind: String,
    qualname: String,
    owner: Option<String>,
    parent: Option<i64>,
    signature: String,
    is_test: bool,
    self_name: Option<String>,
    bases: Vec<(String, i64)>,
}

/// Rewrites the rows of `file` from `x`, keeping ids where definitions persist.
pub(super) fn replace_file(
    tx: &Transaction<'_>,
    w: &mut Writer<'_>,
    file: &FileRow<'_>,
    x: &FileExtract,
) -> Result<Replaced, IndexError> {
    let id: Option<i64> = tx
        .prepare_cached("SELECT id FROM files WHERE path = ?1")?
        .query_row([file.path], |r| r.get(0))
        .optional()?;
    let Some(file_id) = id else {
        let file_id = w.insert_file(file, x)?;
        let mut names: HashSet<String> = x.defs.iter().map(|d| d.name.clone()).collect();
        names.extend(import_names(x.imports.iter().map(|i| (&i.alias, &i.name))));
        return Ok(Replaced {
            file_id,
            new: true,
            names,
            imports_changed: true,
        });
    };
    let old = stored_defs(tx, file_id)?;
    let old_imports = super::load_file_imports(tx, file_id)?;
    let (taken, mut names) = match_defs(&old, x, file.is_test);
    let imports_changed = !old_imports
        .iter()
        .map(|i| {
            (
                i.module.as_str(),
                i.name.as_deref(),
                i.alias.as_str(),
                i.level,
            )
        })
        .eq(x.imports.iter().map(|i| {
            (
                i.module.as_str(),
                i.name.as_deref(),
                i.alias.as_str(),
                i.level,
            )
        }));
    if imports_changed {
        names.extend(import_names(
            old_imports.iter().map(|i| (&i.alias, &i.name)),
        ));
        names.extend(import_names(x.imports.iter().map(|i| (&i.alias, &i.name))));
    }
    // The rows other files point at (the file, its definitions) and its call sites
    // are rewritten in place, only where they changed; the rest anew.
    let kept: Vec<Option<(i64, bool)>> = taken
        .iter()
        .zip(&x.defs)
        .map(|(k, d)| k.map(|k| (old[k].id, old[k].owner != d.owner)))
        .collect();
    let mut is_kept = vec![false; old.len()];
    for k in taken.iter().flatten() {
        is_kept[*k] = true;
    }
    let stale: Vec<i64> = old
        .iter()
        .zip(&is_kept)
        .filter(|(_, kept)| !**kept)
        .map(|(o, _)| o.id)
        .collect();
    for sql in [
        "DELETE FROM imports WHERE file_id = ?1",
        "DELETE FROM inherits WHERE file_id = ?1",
        "DELETE FROM fields WHERE file_id = ?1",
    ] {
        tx.prepare_cached(sql)?.execute([file_id])?;
    }
    let sym_ids = w.rewrite_defs(file_id, file, x, &kept, &stale)?;
    w.rewrite_sites(file_id, &sym_ids, x)?;
    w.insert_other_refs(file_id, &sym_ids, x)?;
    Ok(Replaced {
        file_id,
        new: false,
        names,
        imports_changed,
    })
}

/// The names a list of imports binds. An include or a side-effect import binds no
/// name (its empty alias would re-bind every include of the project).
pub(super) fn import_names<'a>(
    imports: impl Iterator<Item = (&'a String, &'a Option<String>)>,
) -> impl Iterator<Item = String> {
    imports.flat_map(|(alias, name)| {
        (!alias.is_empty())
            .then(|| alias.clone())
            .into_iter()
            .chain(name.clone())
    })
}

/// Pairs the new definitions with the stored ones: the stored one each new one
/// keeps (`None`: fresh), and the names whose definitions differ for resolution.
fn match_defs(
    old: &[Old],
    x: &FileExtract,
    file_is_test: bool,
) -> (Vec<Option<usize>>, HashSet<String>) {
    let mut queue: FxHashMap<(&str, &str, &str), VecDeque<usize>> = FxHashMap::default();
    for (k, o) in old.iter().enumerate() {
        queue
            .entry((&o.name, &o.kind, &o.qualname))
            .or_default()
            .push_back(k);
    }
    let mut names = HashSet::new();
    let mut taken: Vec<Option<usize>> = Vec::with_capacity(x.defs.len());
    for d in &x.defs {
        let k = queue
            .get_mut(&(d.name.as_str(), d.kind.as_str(), d.qualname.as_str()))
            .and_then(VecDeque::pop_front);
        let same = k.is_some_and(|k| {
            let o = &old[k];
            let parent = d.parent.and_then(|p| taken[p]).map(|p| old[p].id);
            o.owner == d.owner
                && o.parent == parent
                && o.signature == d.signature
                && o.is_test == (d.is_test || file_is_test)
                && o.self_name == d.self_name
                && o.bases
                    .iter()
                    .map(|(n, k)| (n.as_str(), *k))
                    .eq(d.bases.iter().map(|b| (b.name.as_str(), base_code(b.kind))))
        });
        if !same {
            names.insert(d.name.clone());
        }
        taken.push(k);
    }
    // Definitions no longer there.
    for rest in queue.values() {
        names.extend(rest.iter().map(|&k| old[k].name.clone()));
    }
    (taken, names)
}

fn base_code(kind: BaseKind) -> i64 {
    match kind {
        BaseKind::Extends => 0,
        BaseKind::Implements => 1,
    }
}

/// The stored definitions of a file, in id order, with their bases.
fn stored_defs(tx: &Transaction<'_>, file_id: i64) -> Result<Vec<Old>, IndexError> {
    let mut out: Vec<Old> = tx
        .prepare_cached(
            "SELECT s.id, n.name, s.kind, s.qualname, o.name, s.parent_id, s.signature, s.is_test, s.self_name
             FROM symbols s JOIN names n ON n.id = s.name_id LEFT JOIN names o ON o.id = s.owner_id
             WHERE s.file_id = ?1 ORDER BY s.id",
        )?
        .query_map([file_id], |r| {
            Ok(Old {
                id: r.get(0)?,
                name: r.get(1)?,
                kind: r.get(2)?,
                qualname: r.get(3)?,
                owner: r.get(4)?,
                parent: r.get(5)?,
                signature: r.get(6)?,
                is_test: r.get(7)?,
                self_name: r.get(8)?,
                bases: Vec::new(),
            })
        })?
        .collect::<Result<_, _>>()?;
    let at: FxHashMap<i64, usize> = out.iter().enumerate().map(|(k, o)| (o.id, k)).collect();
    let mut bases = tx.prepare_cached(
        "SELECT h.symbol_id, n.name, h.kind FROM inherits h JOIN names n ON n.id = h.base_id
         WHERE h.file_id = ?1 ORDER BY h.id",
    )?;
    for row in bases.query_map([file_id], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
        ))
    })? {
        let (sym, name, kind) = row?;
        if let Some(&k) = at.get(&sym) {
            out[k].bases.push((name, kind));
        }
    }
    Ok(out)
}

/// Compiler (SCIP) bindings into the definitions of files `file_ids` (about to be
/// rewritten or removed) are stale: those sites go back to the heuristics. Returns
/// their callee names, for the re-binding.
pub(super) fn unbind_compiler_edges(
    tx: &Transaction<'_>,
    file_ids: &[i64],
) -> Result<HashSet<String>, IndexError> {
    if file_ids.is_empty() {
        return Ok(HashSet::new());
    }
    let ids = super::id_list(file_ids.iter().copied());
    let into = format!(
        "c.resolution = {} AND c.id IN (SELECT id FROM calls_by_target
         WHERE target_id IN (SELECT id FROM symbols WHERE file_id IN ({ids})))",
        Resolution::Compiler.code()
    );
    let names = tx
        .prepare(&format!(
            "SELECT DISTINCT n.name FROM calls c JOIN names n ON n.id = c.callee_id WHERE {into}"
        ))?
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<_, _>>()?;
    tx.execute(
        &format!(
            "UPDATE calls AS c SET resolution = 5, target_id = NULL, confidence = 0 WHERE {into}"
        ),
        [],
    )?;
    Ok(names)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rusqlite::{Connection, OptionalExtension};

    use crate::{BuildOptions, build, store};

    fn id(c: &Connection, sql: &str) -> Option<i64> {
        c.query_row(sql, [], |r| r.get(0))
            .optional()
            .unwrap()
            .flatten()
    }

    fn symbol(c: &Connection, name: &str) -> Option<i64> {
        id(
            c,
            &format!(
                "SELECT s.id FROM symbols s JOIN names n ON n.id = s.name_id WHERE n.name = '{name}'"
            ),
        )
    }

    /// (target, resolution) of the first site in b.py calling `name`, `receiver` or not.
    fn site(c: &Connection, name: &str, receiver: bool) -> (Option<i64>, i64) {
        c.query_row(
            &format!(
                "SELECT c.target_id, c.resolution FROM calls c JOIN names n ON n.id = c.callee_id
                 JOIN files f ON f.id = c.file_id
                 WHERE f.path = 'b.py' AND n.name = '{name}' AND c.alt = 0
                   AND (c.receiver IS NOT NULL) = {receiver}"
            ),
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    }

    fn write(root: &Path, path: &str, text: &str) {
        std::fs::write(root.join(path), text).unwrap();
    }

    fn sync(root: &Path) -> Connection {
        let r = build(root, &BuildOptions::default()).unwrap();
        assert_eq!((r.new_files, r.indexed), (0, 1), "{r:?}");
        Connection::open(store::index_path(root)).unwrap()
    }

    /// z.py after the edit: f's body changed, g gone, h new.
    const F_CHANGED_G_GONE_H_NEW: &str = "def f():\n    return 3\n\n\ndef h():\n    return 4\n";

    /// b.py calls f and g of z.py; `more` is the file after z.py (none: z.py's
    /// rows have the largest ids).
    fn project(more: bool) -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "b.py",
            "import z\nfrom z import f, g\n\n\ndef use():\n    f()\n    g()\n    z.f()\n",
        );
        write(
            root,
            "z.py",
            "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
        );
        if more {
            write(root, "zz.py", "def other():\n    pass\n");
        }
        build(root, &BuildOptions::default()).unwrap();
        let c = Connection::open(store::index_path(root)).unwrap();
        assert_eq!(site(&c, "f", false).0, symbol(&c, "f"));
        assert_eq!(site(&c, "g", false).0, symbol(&c, "g"));
        (dir, c)
    }

    #[test]
    fn a_re_parsed_file_keeps_its_ids_and_the_bindings_into_it() {
        let (dir, c) = project(true);
        let root = dir.path();
        let z = id(&c, "SELECT id FROM files WHERE path = 'z.py'");
        let f = symbol(&c, "f");
        drop(c);
        // f's body changes, g goes, h comes.
        write(root, "z.py", F_CHANGED_G_GONE_H_NEW);
        let c = sync(root);
        assert_eq!(id(&c, "SELECT id FROM files WHERE path = 'z.py'"), z);
        assert_eq!(symbol(&c, "f"), f, "a definition found again keeps its id");
        assert_eq!(site(&c, "f", false).0, f);
        assert_eq!(site(&c, "f", true).0, f, "z.f()");
        assert_eq!(site(&c, "g", false), (None, 5), "g is gone");
        assert_eq!(
            id(&c, "SELECT target_file_id FROM imports WHERE alias = 'z'"),
            z,
            "`import z` still points at the file"
        );
    }

    #[test]
    fn an_id_freed_and_taken_again_never_carries_old_callers() {
        let (dir, c) = project(false);
        let root = dir.path();
        let g = symbol(&c, "g");
        drop(c);
        // g goes and h comes: the last rows of the table, so SQLite gives h the
        // id g had.
        write(root, "z.py", F_CHANGED_G_GONE_H_NEW);
        let c = sync(root);
        assert_eq!(symbol(&c, "h"), g, "the freed id is taken again");
        assert_eq!(
            site(&c, "g", false),
            (None, 5),
            "g() is unknown now, not bound to h through the reused id"
        );
        drop(c);
        // f becomes a class: a changed kind is a changed name, its callers re-bind
        // (to the class, whatever id it got).
        write(
            root,
            "z.py",
            "class f:\n    pass\n\n\ndef h():\n    return 4\n",
        );
        let c = sync(root);
        let class = id(&c, "SELECT id FROM symbols WHERE kind = 'class'");
        assert!(class.is_some());
        assert_eq!(site(&c, "f", false).0, class);
        assert_eq!(site(&c, "f", true).0, class);
    }

    /// Every row `sql` selects, as `row` reads it.
    fn all<T>(
        c: &Connection,
        sql: &str,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Vec<T> {
        let mut stmt = c.prepare(sql).unwrap();
        stmt.query_map([], row)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// (id, line, callee, target) of b.py's first-target sites, by id.
    fn sites(c: &Connection) -> Vec<(i64, i64, String, Option<i64>)> {
        all(
            c,
            "SELECT c.id, c.line, n.name, c.target_id FROM calls c
             JOIN names n ON n.id = c.callee_id JOIN files f ON f.id = c.file_id
             WHERE f.path = 'b.py' AND c.alt = 0 ORDER BY c.id",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
    }

    #[test]
    fn a_re_parsed_files_sites_found_again_keep_their_rows_and_bindings() {
        let (dir, c) = project(true);
        let root = dir.path();
        let before = sites(&c);
        assert_eq!(before.len(), 3, "{before:?}");
        drop(c);
        // A line on top moves f() down one; g() goes (z.f() takes its line), f(1) comes.
        write(
            root,
            "b.py",
            "# moved\nimport z\nfrom z import f, g\n\n\ndef use():\n    f()\n    z.f()\n    f(1)\n",
        );
        let c = sync(root);
        let after = sites(&c);
        let (f, z_f) = (&before[0], &before[2]);
        assert_eq!(
            after[..2],
            [
                (f.0, f.1 + 1, f.2.clone(), f.3),
                (z_f.0, z_f.1, z_f.2.clone(), z_f.3)
            ],
            "f() and z.f() keep their rows and targets (f() one line down, z.f() \
             where g() went)"
        );
        assert_eq!(after.len(), 3);
        assert!(after[2].0 > z_f.0, "f(1) is a new row");
        assert_eq!((after[2].1, after[2].3), (9, symbol(&c, "f")));
        assert!(
            after.iter().all(|s| s.2 != "g"),
            "g()'s row went with it: {after:?}"
        );
    }

    #[test]
    fn further_targets_found_again_keep_their_rows() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let k = "package k\n\ntype Runner interface {\n\tRun()\n}\n\ntype A struct{}\n\nfunc (A) Run() {}\n\ntype B struct{}\n\nfunc (B) Run() {}\n";
        write(root, "k.go", k);
        write(
            root,
            "u.go",
            "package k\n\nfunc use(r Runner) {\n\tr.Run()\n}\n",
        );
        build(root, &BuildOptions::default()).unwrap();
        let alts = |c: &Connection| -> Vec<(i64, Option<i64>)> {
            all(
                c,
                "SELECT id, target_id FROM calls WHERE alt = 1 ORDER BY id",
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        };
        let c = Connection::open(store::index_path(root)).unwrap();
        let before = alts(&c);
        assert_eq!(before.len(), 2, "r.Run() may be A's or B's: {before:?}");
        drop(c);
        // Both files change; the site and what it may reach stay the same.
        write(
            root,
            "u.go",
            "package k\n\nfunc use(r Runner) {\n\tr.Run()\n}\n\nfunc other() {}\n",
        );
        write(
            root,
            "k.go",
            &k.replace("func (B) Run() {}", "func (B) Run() { _ = 1 }"),
        );
        let r = build(root, &BuildOptions::default()).unwrap();
        assert_eq!(r.indexed, 2, "{r:?}");
        let c = Connection::open(store::index_path(root)).unwrap();
        assert_eq!(alts(&c), before);
    }

    #[test]
    fn a_re_parsed_files_imports_bind_whether_or_not_a_call_uses_them() {
        let (dir, c) = project(true);
        let root = dir.path();
        let bound = "SELECT target_id FROM imports WHERE name = 'g'";
        let g = symbol(&c, "g");
        assert_eq!(id(&c, bound), g);
        drop(c);
        // b.py still imports g but calls it nowhere now (an argument, say).
        write(
            root,
            "b.py",
            "import z\nfrom z import f, g\n\n\ndef use():\n    f()\n    return [g]\n",
        );
        let c = sync(root);
        assert_eq!(id(&c, bound), g);
    }
}
