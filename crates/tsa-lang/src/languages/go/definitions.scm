; Go definitions.
; Functions; methods with a receiver are top-level declarations in Go, so they are
; captured as methods directly (the shared extractor only infers owners from nesting:
; such a method has no owner and its qualified name is the bare method name).
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method

; Named types: structs, interfaces, and every other type definition or alias.
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec
  name: (type_identifier) @name
  type: [
    (type_identifier) (qualified_type) (generic_type) (pointer_type) (function_type)
    (map_type) (slice_type) (array_type) (channel_type) (negated_type) (parenthesized_type)
  ]) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

; Embedded fields and embedded interfaces are the bases of a type.
(type_spec
  name: (type_identifier) @name
  type: (struct_type
    (field_declaration_list
      (field_declaration
        !name
        type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)] @extends)))) @definition.struct
(type_spec
  name: (type_identifier) @name
  type: (interface_type
    (type_elem . [(type_identifier) (qualified_type) (generic_type)] @extends .))) @definition.interface

; Interface methods nest inside their interface, so they become its methods.
(method_elem name: (field_identifier) @name) @definition.function

; Package-level constants and variables (not locals: anchored to the file).
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
