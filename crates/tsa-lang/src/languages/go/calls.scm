; Go call sites: `f()`, `pkg.F()` / `x.m()` (receiver = the operand text), and the
; generic forms `f[T]()` / `pkg.F[T]()`, which the grammar keeps as the same nodes
; with a `type_arguments` field. Conversions (`T(x)`, `pkg.T(x)`) parse as calls too.
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
; `f[int](x)`: a single type argument parses as an index expression. Only a name or
; selector index counts (`fns["k"](x)` calls a map element, not a generic function).
(call_expression
  function: (index_expression
    operand: (identifier) @name
    index: [(identifier) (selector_expression)])) @reference.call
(call_expression
  function: (index_expression
    operand: (selector_expression operand: (_) @receiver field: (field_identifier) @name)
    index: [(identifier) (selector_expression)])) @reference.call
; `F[T](x)` with one argument parses as a generic type conversion.
(type_conversion_expression
  type: (generic_type type: (type_identifier) @name)) @reference.call
(type_conversion_expression
  type: (generic_type
    type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))) @reference.call
; Variable types the code states: parameters, `var x T`, `x := T{}` / `&T{}`.
(parameter_declaration name: (identifier) @binding.var type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @binding.type)
(var_spec name: (identifier) @binding.var type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @binding.type)
(short_var_declaration
  left: (expression_list . (identifier) @binding.var)
  right: (expression_list . [(composite_literal type: (_) @binding.type)
                             (unary_expression operand: (composite_literal type: (_) @binding.type))]))
; `s, err := Open(...)` / `e := gin.New()`: the first variable holds the call's result.
(short_var_declaration
  left: (expression_list . (identifier) @binding.var)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @binding.type)))
; Struct fields `writer responseWriter`: `c.writer.Write()` is a call on a `responseWriter`.
(field_declaration name: (field_identifier) @binding.var type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @binding.type)
; Local names: parameters and `x := ...` shadow package-level definitions.
(parameter_declaration name: (identifier) @local.var)
(short_var_declaration left: (expression_list (identifier) @local.var))
