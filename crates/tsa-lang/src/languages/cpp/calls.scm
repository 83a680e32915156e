; C++ call sites: `f()`, `f<T>()`, `obj.m()`, `ptr->m()`, `this->m()` (value
; receivers), and `ns::f()`, `Type::f()`, `std::f<T>()` (path receivers: the scope
; right before the name; for `a::B::f()` that is `B`).
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [(field_identifier) @name (template_method name: (field_identifier) @name)])) @reference.call
(call_expression
  function: (qualified_identifier
    scope: (namespace_identifier) @path
    name: [(identifier) @name (template_function name: (identifier) @name)])) @reference.call
(call_expression
  function: (qualified_identifier
    scope: (template_type name: (type_identifier) @path)
    name: [(identifier) @name (template_function name: (identifier) @name)])) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (namespace_identifier) @path
      name: [(identifier) @name (template_function name: (identifier) @name)]))) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        scope: (namespace_identifier) @path
        name: [(identifier) @name (template_function name: (identifier) @name)])))) @reference.call
; `new Foo(...)` calls the type's constructor.
(new_expression type: (type_identifier) @name) @reference.call
(new_expression type: (qualified_identifier name: (type_identifier) @name)) @reference.call
(new_expression type: (template_type name: (type_identifier) @name)) @reference.call
