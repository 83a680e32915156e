; Java call sites.
; `m()`: no object.
(method_invocation
  !object
  name: (identifier) @name) @reference.call
; `x.m()`, `this.m()`, `super.m()`, `Type.m()`: the object text is the receiver...
((method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call
  (#not-match? @receiver "^System[.](out|err|in)$"))
; ... except the standard streams, whose receiver is the class `System` (stdlib).
((method_invocation
  object: (field_access
    object: (identifier) @receiver
    field: (identifier))
  name: (identifier) @name) @reference.call
  (#eq? @receiver "System"))
; `new Foo()`, `new Foo<>()`, `new Outer.Inner()`: a call of the class (its last name).
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression type: (scoped_type_identifier (type_identifier) @name .)) @reference.call
(object_creation_expression
  type: (generic_type (scoped_type_identifier (type_identifier) @name .))) @reference.call
; Method references pass a method to be called: `Foo::bar`, `this::run`, `x::m`
; are call sites of `bar`, `run`, `m` (an agent asking who calls `bar` must see them).
(method_reference (_) @receiver . (identifier) @name .) @reference.call
; Variable types the code states: locals, parameters and fields (`Repo repo`), and
; `var x = new Foo()`.
(local_variable_declaration type: (_) @binding.type declarator: (variable_declarator name: (identifier) @binding.var))
(formal_parameter type: (_) @binding.type name: (identifier) @binding.var)
(field_declaration type: (_) @binding.type declarator: (variable_declarator name: (identifier) @binding.var))
(local_variable_declaration
  declarator: (variable_declarator name: (identifier) @binding.var
    value: (object_creation_expression type: (_) @binding.type)))
; `for (Shape s : shapes)`, `catch (IOException e)`, `(Shape s) -> ...`.
(enhanced_for_statement type: (_) @binding.type name: (identifier) @binding.var)
(catch_formal_parameter (catch_type (_) @binding.type .) name: (identifier) @binding.var)
