; Call sites: `f()`, `path::f()`, `Type::f()`, `recv.f()`, and turbofish forms.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier path: (_) @path name: (identifier) @name)) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @path name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call
