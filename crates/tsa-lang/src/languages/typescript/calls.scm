; Call sites: `f()`, `f<T>()`, `obj.m()`, `this.m()`, `a?.b()` (the member carries
; the optional chain), `new Foo()`, `new ns.Foo<T>()`. JSX components are in
; jsx_calls.scm (TSX only: the .ts grammar has no JSX nodes).

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

(new_expression constructor: (identifier) @name) @reference.call
(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call
; Variable types the code states: annotated parameters and variables, `new T()`.
(required_parameter pattern: (identifier) @binding.var type: (type_annotation (_) @binding.type))
(optional_parameter pattern: (identifier) @binding.var type: (type_annotation (_) @binding.type))
(variable_declarator name: (identifier) @binding.var type: (type_annotation (_) @binding.type))
(variable_declarator name: (identifier) @binding.var value: (new_expression constructor: (_) @binding.type))
; `const x = make()` / `await make()`: the function's declared return type.
((variable_declarator name: (identifier) @binding.var
  value: (call_expression function: [(identifier) (member_expression)] @binding.type))
  (#not-eq? @binding.type "require"))
(variable_declarator name: (identifier) @binding.var
  value: (await_expression (call_expression function: [(identifier) (member_expression)] @binding.type)))
; Interface properties `_zod: Internals`: `schema._zod.run()` on a value of the interface.
(property_signature name: (property_identifier) @binding.var type: (type_annotation (_) @binding.type))
; Class fields `private repo: Repo` / `repo = new Repo()`: `this.repo.save()`.
(public_field_definition name: (property_identifier) @binding.var type: (type_annotation (_) @binding.type))
(public_field_definition name: (property_identifier) @binding.var value: (new_expression constructor: (_) @binding.type))
; Local names: parameters and variables shadow outer definitions (`function f(cb) { cb() }`).
(required_parameter pattern: (identifier) @local.var)
(optional_parameter pattern: (identifier) @local.var)
(arrow_function parameter: (identifier) @local.var)
(variable_declarator name: (identifier) @local.var value: [(identifier) (member_expression) (subscript_expression)])
; ... and call results, but `const x = require('./x')` binds an import, not a local.
((variable_declarator name: (identifier) @local.var value: (call_expression function: (_) @name))
  (#not-eq? @name "require"))
