// The children of a tree-sitter node in one pass over its syntax tree.
//
// tree-sitter's `ts_node_child(node, i)` walks the node's child array from the
// start on every call, so listing a node's children costs the square of their
// number, and a tree cursor recomputes its state at each step. This helper walks
// the child array once, descending into hidden children that hold visible ones,
// and gives each visible child (anonymous ones included) as `ts_node_child` would,
// with the field id a tree cursor standing on it reports. It reads the tree through
// the internal headers of the very tree-sitter source this build links (build.rs).

#include <stdbool.h>
#include <stdint.h>

#include "tree_sitter/api.h"
#include "./language.h"
#include "./length.h"
#include "./subtree.h"
#include "./tree.h"

typedef struct {
  TSNode node;
  TSFieldId field;
  // What ts_node_symbol, ts_node_is_named and ts_node_child_count() == 0 give.
  TSSymbol kind;
  bool named;
  bool leaf;
} TsaKid;

typedef struct {
  TsaKid *out;
  uint32_t len;
  uint32_t cap;
  bool fields;
} Sink;

// The field the production gives its structural child `index`, 0 for none.
static TSFieldId field_at(const TSLanguage *language, uint32_t production_id, uint32_t index) {
  const TSFieldMapEntry *map, *end;
  ts_language_field_map(language, production_id, &map, &end);
  for (; map < end; map++) {
    if (!map->inherited && map->child_index == index) return map->field_id;
  }
  return 0;
}

// Lists the visible children under `parent` (at `position`); `outer` is the field
// of `parent` itself when it is a hidden node descended into (a child without a
// field of its own takes it), 0 at the node asked about.
static void list(const TSTree *tree, const Subtree *parent, Length position, TSFieldId outer, Sink *sink) {
  if (ts_subtree_child_count(*parent) == 0) return;
  const TSLanguage *language = tree->language;
  uint32_t production_id = parent->ptr->production_id;
  const TSSymbol *aliases = ts_language_alias_sequence(language, production_id);
  const Subtree *children = ts_subtree_children(*parent);
  uint32_t count = parent->ptr->child_count;
  uint32_t structural = 0;
  for (uint32_t i = 0; i < count; i++) {
    const Subtree *child = &children[i];
    bool extra = ts_subtree_extra(*child);
    uint32_t index = structural;
    TSSymbol alias = 0;
    if (!extra) {
      if (aliases) alias = aliases[structural];
      structural++;
    }
    if (i > 0) position = length_add(position, ts_subtree_padding(*child));
    TSFieldId field = 0;
    if (sink->fields && !extra) {
      field = field_at(language, production_id, index);
      if (!field) field = outer;
    }
    if (ts_subtree_visible(*child) || alias) {
      if (sink->len < sink->cap) {
        // What ts_node_new builds, spelled here so it inlines.
        sink->out[sink->len].node = (TSNode){
          {position.bytes, position.extent.row, position.extent.column, alias},
          child,
          tree,
        };
        sink->out[sink->len].field = field;
        TSSymbol symbol = alias ? alias : ts_subtree_symbol(*child);
        sink->out[sink->len].kind = ts_language_public_symbol(language, symbol);
        sink->out[sink->len].named =
            alias ? ts_language_symbol_metadata(language, alias).named : ts_subtree_named(*child);
        sink->out[sink->len].leaf =
            ts_subtree_child_count(*child) == 0 || child->ptr->visible_child_count == 0;
      }
      sink->len++;
    } else if (ts_subtree_child_count(*child) > 0 && child->ptr->visible_child_count > 0) {
      list(tree, child, position, field, sink);
    }
    position = length_add(position, ts_subtree_size(*child));
  }
}

// Writes up to `cap` children of `node` into `out` (their fields when `fields`,
// else 0) and returns how many it has.
uint32_t tsa_tree_children(TSNode node, TsaKid *out, uint32_t cap, bool fields) {
  Sink sink = {out, 0, cap, fields};
  Length position = {
    .bytes = ts_node_start_byte(node),
    .extent = ts_node_start_point(node),
  };
  list(node.tree, (const Subtree *)node.id, position, 0, &sink);
  return sink.len;
}
