; Call sites: a bare name, or an attribute call with its receiver text.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
; Variable types the code states: `x = Cls(...)`, `x = mod.Cls(...)`, `x: T = ...`,
; and annotated parameters `def f(x: T)`. The resolver keeps a binding only when the
; named thing is a type.
(assignment left: (identifier) @binding.var right: (call function: [(identifier) (attribute)] @binding.type))
(assignment left: (identifier) @binding.var type: (type (_) @binding.type))
(typed_parameter (identifier) @binding.var type: (type (_) @binding.type))
(typed_default_parameter name: (identifier) @binding.var type: (type (_) @binding.type))
; `with Client() as client:`: a context manager's `__enter__` is usually the object.
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @binding.type)
  alias: (as_pattern_target (identifier) @binding.var)))
; `self.console = console` (a typed parameter), `x = y`: the type `y` has.
(assignment left: (attribute object: (identifier) attribute: (identifier)) @binding.var
  right: (identifier) @binding.type)
(assignment left: (identifier) @binding.var right: (identifier) @binding.type)
; Fields: `self.x = Cls(...)`, `self.x: T = ...`, and class-level `x: T` (dataclasses).
(assignment left: (attribute object: (identifier) attribute: (identifier)) @binding.var
  right: (call function: [(identifier) (attribute)] @binding.type))
(assignment left: (attribute object: (identifier) attribute: (identifier)) @binding.var
  type: (type (_) @binding.type))
; Local names: assignment targets, loop variables and parameters shadow outer
; definitions of the same name (`getcontext = self.decimal.getcontext; getcontext()`).
(assignment left: (identifier) @local.var)
(assignment left: (pattern_list (identifier) @local.var))
(for_statement left: (identifier) @local.var)
(parameters (identifier) @local.var)
(lambda_parameters (identifier) @local.var)
(default_parameter name: (identifier) @local.var)
(typed_parameter (identifier) @local.var)
(typed_default_parameter name: (identifier) @local.var)
(as_pattern_target (identifier) @local.var)
