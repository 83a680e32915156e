; `use A\B\C;`, `use A\B\{C, D as E};`, `use function A\f;`, and file inclusion.
(namespace_use_declaration) @import
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import
