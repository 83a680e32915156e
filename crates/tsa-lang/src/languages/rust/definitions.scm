; Rust definitions. Functions inside impl/trait bodies become methods of that type.
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(trait_item
  name: (type_identifier) @name
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @extends)) @definition.trait
(impl_item type: (_) @name) @definition.impl
(impl_item trait: (_) @implements type: (_) @name) @definition.impl
; `impl Deref for Newtype { type Target = Inner; }`: method calls on a `Newtype` fall
; through to `Inner`, recorded as a base of the impl.
((impl_item
  trait: (_) @receiver
  type: (_) @name
  body: (declaration_list
    (type_item name: (type_identifier) @path type: (_) @extends))) @definition.impl
  (#match? @receiver "(^|::)Deref(Mut)?$")
  (#eq? @path "Target"))
(mod_item name: (identifier) @name) @definition.module
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.variable
(static_item name: (identifier) @name) @definition.variable
(macro_definition name: (identifier) @name) @definition.function
