//! Passes that ride the extraction's walk over a parse tree: a caller's
//! measurements of a file (health's complexity facts) take no walk of their own.

use tree_sitter::Node;

/// A pass over one file's parse tree: `enter` at each node in document order (a
/// parent before its children), `leave` once the node's subtree is done. The walk
/// that carries it never calls `finish`: its owner does, once the walk is over (the
/// extraction, for a [`crate::FactsHook`]'s pass).
pub trait TreeVisitor {
    fn enter(&mut self, node: Node<'_>, src: &[u8]);
    fn leave(&mut self);
    /// What the pass measured, as opaque text (stored with the file row).
    fn finish(self: Box<Self>, root: Node<'_>, src: &[u8]) -> Option<String>;
}

/// Runs `v` over the tree under `root` with a walk of its own (where no
/// extraction walk carries it).
pub fn visit(root: Node<'_>, src: &[u8], v: &mut dyn TreeVisitor) {
    let mut cursor = root.walk();
    loop {
        v.enter(cursor.node(), src);
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            v.leave();
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}
