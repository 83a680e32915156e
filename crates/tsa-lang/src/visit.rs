//! Passes that ride the extraction's walk over a parse tree: a caller's
//! measurements of a file (health's complexity facts) take no walk of their own.

use tree_sitter::Node;

/// A pass over one file's parse tree: `enter` at each node in document order (a
/// parent before its children, and given that parent: `Node::parent` costs a walk
/// down from the root, so a pass asking it at every node of a deep tree would be
/// quadratic), `leave` once the node's subtree is done. The walk
/// that carries it never calls `finish`: its owner does, once the walk is over (the
/// extraction, for a [`crate::FactsHook`]'s pass).
pub trait TreeVisitor {
    fn enter(&mut self, node: Node<'_>, parent: Option<Node<'_>>, src: &[u8]);
    /// [`TreeVisitor::enter`], told `node`'s kind id ([`Node::kind_id`]) as the
    /// walk read it (a pass that reads the kind saves asking tree-sitter again).
    fn enter_kind(&mut self, node: Node<'_>, kind: u16, parent: Option<Node<'_>>, src: &[u8]) {
        let _ = kind;
        self.enter(node, parent, src);
    }
    fn leave(&mut self);
    /// What the pass measured, as opaque text (stored with the file row).
    fn finish(self: Box<Self>, root: Node<'_>, src: &[u8]) -> Option<String>;
    /// The kinds (by id) of anonymous leaves (`(`, `;`, keywords) this pass must
    /// be entered at; `None`, the default: every node. A walk may pass over the
    /// other anonymous leaves, calling [`TreeVisitor::skipped_leaf`] for each
    /// instead of `enter` and `leave` (a third of a tree's nodes: C's punctuation).
    fn leaf_kinds(&self) -> Option<&'static [bool]> {
        None
    }
    /// A leaf child of the node last entered (and not left) was passed over.
    fn skipped_leaf(&mut self) {}
}

/// Runs `v` over the tree under `root` with a walk of its own (where no
/// extraction walk carries it).
pub fn visit(root: Node<'_>, src: &[u8], v: &mut dyn TreeVisitor) {
    let mut cursor = root.walk();
    // The open nodes above the cursor's: the last is the parent of where it is.
    let mut open: Vec<Node<'_>> = Vec::new();
    loop {
        let n = cursor.node();
        v.enter(n, open.last().copied(), src);
        if cursor.goto_first_child() {
            open.push(n);
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
            open.pop();
        }
    }
}
