; Call sites: a bare name, or an attribute call with its receiver text.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
; Variable types the code states: `x = Cls(...)`, `x = mod.Cls(...)`, `x: T = ...`,
; and annotated parameters `def f(x: T)`. The resolver keeps a binding only when the
; named thing is a type.
(assignment left: (identifier) @binding.var right: (call function: [(identifier) (attribute)] @binding.type))
(assignment left: (identifier) @binding.var type: (type [(identifier) (attribute)] @binding.type))
(typed_parameter (identifier) @binding.var type: (type [(identifier) (attribute)] @binding.type))
(typed_default_parameter name: (identifier) @binding.var type: (type [(identifier) (attribute)] @binding.type))
; Fields: `self.x = Cls(...)`, `self.x: T = ...`, and class-level `x: T` (dataclasses).
(assignment left: (attribute object: (identifier) attribute: (identifier)) @binding.var
  right: (call function: [(identifier) (attribute)] @binding.type))
(assignment left: (attribute object: (identifier) attribute: (identifier)) @binding.var
  type: (type [(identifier) (attribute)] @binding.type))
