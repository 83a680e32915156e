; Lua definitions. Global and local functions (`function f()`, `local function f()`);
; functions on a table (`function M.f()`, `function M:f()`): the spec's `owner_of`
; makes them methods of `M`, so their qualified name is `M.f`; top-level tables
; (`local M = {}`, `M = {}`) are modules.
(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression field: (identifier) @name)) @definition.function
(function_declaration name: (method_index_expression method: (identifier) @name)) @definition.function
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list . name: (identifier) @name)
      (expression_list . value: (table_constructor)))) @definition.module)
(chunk
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (table_constructor))) @definition.module)
