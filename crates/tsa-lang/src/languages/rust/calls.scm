; Call sites: `f()`, `path::f()`, `Type::f()`, `recv.f()`, and turbofish forms.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier path: (_) @path name: (identifier) @name)) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @path name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call
; Calls inside macro arguments (`assert_eq!(helper(), 2)`), which the grammar keeps
; as token trees: a name, or a path or receiver and a name, then a `(...)` tree.
((token_tree (identifier) @path . "::" . (identifier) @name . (token_tree) @reference.call)
  (#match? @reference.call "^\\("))
((token_tree (_) @receiver . "." . (identifier) @name . (token_tree) @reference.call)
  (#match? @reference.call "^\\("))
((token_tree (identifier) @name . (token_tree) @reference.call)
  (#match? @reference.call "^\\("))
; Variable types the code states: `let x: T`, parameters `x: T`, `let x = T { .. }`,
; and `let x = f(..)` / `T::new(..)` / `f(..)?` (the function's declared return type).
(let_declaration pattern: (identifier) @binding.var type: (_) @binding.type)
(parameter pattern: (identifier) @binding.var type: (_) @binding.type)
(let_declaration pattern: (identifier) @binding.var value: (struct_expression name: (_) @binding.type))
(let_declaration pattern: (identifier) @binding.var
  value: (call_expression function: [(identifier) (scoped_identifier)] @binding.type))
(let_declaration pattern: (identifier) @binding.var
  value: (try_expression (call_expression function: [(identifier) (scoped_identifier)] @binding.type)))
; `let x = T::open(..).unwrap()` / `.expect(..)`: the unwrapped result.
((let_declaration pattern: (identifier) @binding.var
  value: (call_expression
    function: (field_expression
      value: (call_expression function: [(identifier) (scoped_identifier)] @binding.type)
      field: (field_identifier) @receiver)))
  (#match? @receiver "^(unwrap|expect|unwrap_or_default|unwrap_unchecked)$"))
((let_declaration pattern: (identifier) @binding.var
  value: (call_expression
    function: (field_expression
      value: (try_expression (call_expression function: [(identifier) (scoped_identifier)] @binding.type))
      field: (field_identifier) @receiver)))
  (#match? @receiver "^(unwrap|expect|unwrap_or_default)$"))
; `let x = &y;`, `let x = y.clone();`, `let x = y;`: the type `y` has.
(let_declaration pattern: (identifier) @binding.var value: (reference_expression value: (identifier) @binding.type))
(let_declaration pattern: (identifier) @binding.var value: (identifier) @binding.type)
((let_declaration pattern: (identifier) @binding.var
  value: (call_expression
    function: (field_expression value: (identifier) @binding.type field: (field_identifier) @receiver)))
  (#match? @receiver "^(clone|to_owned)$"))
; Struct fields `store: Store`: `self.store.get()` is a call on a `Store`.
(field_declaration name: (field_identifier) @binding.var type: (_) @binding.type)
; Local names: `let f = ...; f()` and closure / fn parameters shadow items.
(let_declaration pattern: (identifier) @local.var)
(parameter pattern: (identifier) @local.var)
(closure_parameters (identifier) @local.var)
