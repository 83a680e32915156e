; Call sites: `f()`, `obj.m()`, `this.m()`, `a?.b()` (the member carries the
; optional chain), `new Foo()`, `new ns.Foo()`, and JSX components (`<Foo />`,
; `<Foo.Item>`: a component is a function the element calls).

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

; Lower-case JSX names are intrinsic elements (`<div>`), not calls.
(jsx_self_closing_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call
(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call
(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call
; Variable types the code states: `const x = new T()`.
(variable_declarator name: (identifier) @binding.var value: (new_expression constructor: (_) @binding.type))
; `const app = fastify()` / `await build()`: what the function returns.
; (`require` binds an import, not a value of a type.)
((variable_declarator name: (identifier) @binding.var
  value: (call_expression function: [(identifier) (member_expression)] @binding.type))
  (#not-eq? @binding.type "require"))
(variable_declarator name: (identifier) @binding.var
  value: (await_expression (call_expression function: [(identifier) (member_expression)] @binding.type)))
; Local names: parameters and variables shadow outer definitions (`function f(cb) { cb() }`).
(formal_parameters (identifier) @local.var)
(formal_parameters (assignment_pattern left: (identifier) @local.var))
(arrow_function parameter: (identifier) @local.var)
(variable_declarator name: (identifier) @local.var value: [(identifier) (member_expression) (subscript_expression)])
; ... and call results, but `const x = require('./x')` binds an import, not a local.
((variable_declarator name: (identifier) @local.var value: (call_expression function: (_) @name))
  (#not-eq? @name "require"))
