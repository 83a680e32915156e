//! A tree-sitter node's children, listed in one pass over its syntax tree.
//!
//! tree-sitter's [`Node::child`] walks the node's child array from its start on
//! every call (listing `k` children costs `k²/2` steps), and a [`tree_sitter::TreeCursor`]
//! rebuilds its iterator at each sibling step: together about a tenth of a Python
//! index build's instructions went to listing children. [`children`] lists them
//! in one pass with a small C helper (`src/children.c`) compiled against the
//! internal headers of the same tree-sitter source the build links, so it reads
//! the layout the library was built with. The tests check it against tree-sitter's
//! own API on every node of real trees.

use tree_sitter::Node;

/// A child and the id of the field it is in (0: none), as a tree cursor standing
/// on it reports ([`tree_sitter::TreeCursor::field_id`]), with what a walk asks of
/// every node, read from the same pass: its kind ([`Node::kind_id`]), whether it
/// is named, and whether it is a leaf (no children).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Kid<'t> {
    pub node: Node<'t>,
    pub field: u16,
    pub kind: u16,
    pub named: bool,
    pub leaf: bool,
}

impl<'t> Kid<'t> {
    /// Whether this is an error node, as [`Node::is_error`] says: its kind is
    /// tree-sitter's error symbol (`ts_builtin_sym_error`, the largest symbol id).
    pub fn is_error(&self) -> bool {
        self.kind == u16::MAX
    }

    /// `node` in field `field`, its other facts asked of tree-sitter's API.
    pub fn of(node: Node<'t>, field: u16) -> Self {
        Kid {
            node,
            field,
            kind: node.kind_id(),
            named: node.is_named(),
            leaf: node.child_count() == 0,
        }
    }
}

/// Times tree-sitter's API listed children instead of the helper.
#[cfg(test)]
static FALLBACKS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" {
    fn tsa_tree_children(
        node: tree_sitter::ffi::TSNode,
        out: *mut Kid<'_>,
        cap: u32,
        fields: bool,
    ) -> u32;
}

/// Replaces `out` with the children of `n` (anonymous ones included), in order:
/// the nodes `n.child(0..n.child_count())` gives, with their fields when `fields`
/// (else 0).
pub fn children<'t>(n: Node<'t>, out: &mut Vec<Kid<'t>>, fields: bool) {
    let _ = listed_in_one_pass(n, out, fields);
}

/// [`children`], telling whether the one-pass helper listed them (`false`: its
/// count differed from tree-sitter's, whose API listed them instead; the tests
/// of every language's trees check it never does).
pub fn listed_in_one_pass<'t>(n: Node<'t>, out: &mut Vec<Kid<'t>>, fields: bool) -> bool {
    out.clear();
    let count = n.child_count() as usize;
    if count == 0 {
        return true;
    }
    out.reserve(count);
    let cap = u32::try_from(out.capacity()).unwrap_or(u32::MAX);
    // SAFETY: `n` is a live node of a live tree (its lifetime 't); the helper reads
    // that tree only, writes at most `cap` entries into `out`'s spare capacity
    // (`Kid` is `repr(C)` as the helper's `TsaKid`: a `TSNode`, then a `u16`), and
    // every node it writes is a node of the same tree (lifetime 't).
    let written = unsafe { tsa_tree_children(n.into_raw(), out.as_mut_ptr(), cap, fields) };
    let listed = (written as usize).min(out.capacity());
    // SAFETY: the helper initialised the first `listed` entries.
    unsafe { out.set_len(listed) };
    // tree-sitter's count and the helper's walk agree on every tree the tests
    // see; were they ever to differ, tree-sitter's own API decides.
    if written as usize == listed && listed == count {
        return true;
    }
    #[cfg(test)]
    FALLBACKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    by_api(n, out, fields);
    false
}

/// What [`children`] gives, listed by tree-sitter's API (a cursor's steps): the
/// fallback, and the reference of [`agrees_under`].
pub fn by_api<'t>(n: Node<'t>, out: &mut Vec<Kid<'t>>, fields: bool) {
    out.clear();
    let mut cursor = n.walk();
    if cursor.goto_first_child() {
        loop {
            let field = if fields {
                cursor.field_id().map_or(0, |f| f.get())
            } else {
                0
            };
            out.push(Kid::of(cursor.node(), field));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// For tests: at every node under `root`, the one-pass helper listed the
/// children (no fallback) and they are tree-sitter's: the same nodes as
/// `child(i)` and a cursor give, with the same kinds, spans, positions, fields,
/// named flags, leaves and error flags (and no fields when none are asked). Returns how many
/// children were checked, or the first difference.
pub fn agrees_under(root: Node<'_>) -> Result<usize, String> {
    let (mut kids, mut want, mut bare) = (Vec::new(), Vec::new(), Vec::new());
    let mut stack = vec![root];
    let mut checked = 0;
    while let Some(n) = stack.pop() {
        if !listed_in_one_pass(n, &mut kids, true) {
            return Err(format!("the helper gave way at {n:?}"));
        }
        by_api(n, &mut want, true);
        children(n, &mut bare, false);
        if kids.len() != want.len() || bare.len() != want.len() {
            return Err(format!("children of {n:?}: {kids:?} against {want:?}"));
        }
        for (i, ((k, w), b)) in kids.iter().zip(&want).zip(&bare).enumerate() {
            let shape = |x: Node<'_>| {
                (
                    x.kind_id(),
                    x.byte_range(),
                    x.start_position(),
                    x.end_position(),
                )
            };
            if Some(k.node) != n.child(i as u32)
                || k.node != w.node
                || shape(k.node) != shape(w.node)
                || k.field != w.field
                || (k.kind, k.named, k.leaf) != (w.kind, w.named, w.leaf)
                || k.is_error() != k.node.is_error()
                || b.node != w.node
                || b.field != 0
            {
                return Err(format!("child {i} of {n:?}: {k:?} against {w:?}"));
            }
        }
        checked += kids.len();
        stack.extend(kids.iter().map(|k| k.node));
    }
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use tree_sitter::{Language, Parser};

    use super::agrees_under;

    /// The helper lists what tree-sitter's API gives at every node of the tree of
    /// `src`; returns how many children were checked.
    fn agrees(language: Language, src: &str) -> usize {
        let mut parser = Parser::new();
        parser.set_language(&language).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let checked = agrees_under(tree.root_node()).unwrap();
        assert_eq!(
            super::FALLBACKS.load(std::sync::atomic::Ordering::Relaxed),
            0,
            "the helper gave way"
        );
        checked
    }

    #[test]
    fn python_children_are_tree_sitters() {
        let src = r#"
import os, sys as system
from . import x
@decorator(1)
class A(B, metaclass=M):
    """Doc."""
    def f(self, a: int = 1, *args, **kw) -> str:
        # comment
        if a and not b or c: return f"{a!r:>10}" + 'x' \
            'y'
        elif (y := 2): pass
        else:
            while True: break
        try: g(*a, **k)[1:2, ::3]
        except (E, F) as e: raise X from e
        finally: del x
        with open(p) as f, q: yield from z
        lambda q, *r: q
        return [i for i in range(3) if i] or {k: v for k, v in d.items()}
match cmd:
    case [1, *rest] | {"k": v} if v: print(v)
    case Point(x=0): ...
async def h():
    await z; global g; nonlocal n
x: list[int] = [1, 2, 3,]; a, *b = c; print(*a, sep='')
def broken(:
"#;
        assert!(agrees(tree_sitter_python::LANGUAGE.into(), src) > 300);
    }

    #[test]
    fn c_children_are_tree_sitters() {
        let src = r#"
#include <linux/slab.h>
#define MAX(a, b) ((a) > (b) ? (a) : (b))
static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)
{
    struct foo { int a : 3; union { long b; } u; } f = { .a = 1, [2] = 3 };
    int (*fp)(int) = &g, arr[4][2];
    for (int i = 0; i < n; i++) { if (x) continue; else goto out; }
    switch (k) { case 1: break; default: ; }
    do { y = (char)z ? -a : sizeof(int); } while (0);
#ifdef CONFIG_X
    return __kmalloc(size, flags);
#else
    return NULL;
#endif
out:
    asm volatile("nop" ::: "memory");
    return p->q.r[1]++;
}
EXPORT_SYMBOL(kmalloc);
SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count) { return ksys_read(fd, buf, count); }
int broken( { 
"#;
        assert!(agrees(tree_sitter_c::LANGUAGE.into(), src) > 300);
    }
}
