; TypeScript (and TSX) definitions. Methods are functions nested in a class or
; interface: the shared extractor turns them into methods from nesting.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

; `const f = () => ...`, `let g = function () {...}`: the function node is the
; definition (its header is the signature).
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)] @definition.function)

; CommonJS exports: `exports.f = function () {...}`, `module.exports.g = () => ...`.
; (@receiver only constrains the match here; definitions ignore it.)
(assignment_expression
  left: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (generator_function)] @definition.function
  (#match? @receiver "^(module\\.)?exports$"))

; Classes (also abstract), with `extends` and `implements` bases.
(class_declaration name: (type_identifier) @name) @definition.class
(class_declaration
  name: (type_identifier) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @extends))) @definition.class
(class_declaration
  name: (type_identifier) @name
  (class_heritage (implements_clause (_) @implements))) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @extends))) @definition.class
(abstract_class_declaration
  name: (type_identifier) @name
  (class_heritage (implements_clause (_) @implements))) @definition.class

; `const Foo = class extends Base {...}`.
(variable_declarator
  name: (identifier) @name
  value: (class) @definition.class)
(variable_declarator
  name: (identifier) @name
  value: (class (class_heritage (extends_clause value: [(identifier) (member_expression)] @extends))) @definition.class)

; Class members: methods (getters, setters, `constructor`, `#private`), abstract
; methods, and fields holding a function (`onClick = () => {...}`). Overload
; signatures are not captured: the implementation is the definition.
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(class_body
  (abstract_method_signature
    name: [(property_identifier) (private_property_identifier)] @name) @definition.function)
(class_body
  (public_field_definition
    name: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression)] @definition.function))

; Interfaces, with the interfaces they extend, and their method signatures.
(interface_declaration name: (type_identifier) @name) @definition.interface
(interface_declaration
  name: (type_identifier) @name
  (extends_type_clause type: (_) @extends)) @definition.interface
(interface_body
  (method_signature name: (property_identifier) @name) @definition.function)

(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum

; `namespace A.B {...}`, `module M {...}`; ambient `declare module 'pkg'` names a
; package, not a scope of this project, and is left out.
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
