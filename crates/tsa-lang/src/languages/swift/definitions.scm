; Swift definitions. `class_declaration` covers classes, actors, structs, enums and
; extensions, told apart by its declaration kind. An extension is an impl named by
; the extended type, so its functions become that type's methods. Inheritance and
; conformance lists are bases (`extends`: the syntax cannot tell a superclass from a
; protocol).
(class_declaration declaration_kind: ["class" "actor"] name: (type_identifier) @name) @definition.class
(class_declaration
  declaration_kind: ["class" "actor"]
  name: (type_identifier) @name
  (inheritance_specifier inherits_from: (_) @extends)) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name
  (inheritance_specifier inherits_from: (_) @extends)) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name
  (inheritance_specifier inherits_from: (_) @extends)) @definition.enum
(class_declaration declaration_kind: "extension" name: (_) @name) @definition.impl
(class_declaration
  declaration_kind: "extension"
  name: (_) @name
  (inheritance_specifier inherits_from: (_) @extends)) @definition.impl
(protocol_declaration name: (type_identifier) @name) @definition.interface
(protocol_declaration
  name: (type_identifier) @name
  (inheritance_specifier inherits_from: (_) @extends)) @definition.interface
(typealias_declaration name: (type_identifier) @name) @definition.type

; Functions, protocol requirements and initializers.
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration name: "init" @name) @definition.function
