; C# call sites: `F()`, `F<T>()`, `x.F()`, `this.F()`, `Type.F()`, `x?.F()` (the
; receiver is the expression before the dot), and `new Foo(...)` (a call of Foo).
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [(identifier) @name (generic_name (identifier) @name)])) @reference.call
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression
      name: [(identifier) @name (generic_name (identifier) @name)]))) @reference.call
(object_creation_expression type: (identifier) @name) @reference.call
(object_creation_expression type: (generic_name (identifier) @name)) @reference.call
(object_creation_expression
  type: (qualified_name name: [(identifier) @name (generic_name (identifier) @name)])) @reference.call
; Variable types the code states: locals and fields (`Repo repo`), parameters, and
; `var x = new Foo()`.
(variable_declaration type: (_) @binding.type (variable_declarator name: (identifier) @binding.var))
(parameter type: (_) @binding.type name: (identifier) @binding.var)
(variable_declaration
  (variable_declarator name: (identifier) @binding.var
    (object_creation_expression type: (_) @binding.type)))
