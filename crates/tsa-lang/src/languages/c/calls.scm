; C call sites: `f()`, and `s.f()` / `s->f()` through a struct field (a function
; pointer, so the receiver is a value whose type the resolver does not know).
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (field_identifier) @name)) @reference.call
