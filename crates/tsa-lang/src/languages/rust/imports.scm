; `use` declarations; rust/mod.rs flattens each tree into bound names.
(use_declaration argument: (_) @import)
