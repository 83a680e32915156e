; Swift call sites: `f()` (also `Type(...)` initializers and trailing closures),
; `x.f()`, `self.f()`, `Type.f()`, `x?.f()` (the receiver is the target expression).
(call_expression . (simple_identifier) @name) @reference.call
(call_expression
  . (navigation_expression
    target: (_) @receiver
    suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call
