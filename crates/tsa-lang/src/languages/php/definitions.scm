; PHP definitions. Functions declared in a class, interface, trait or enum become
; methods (the shared extractor decides from nesting).
;
; A namespace is recorded on its name only, so `namespace A;` and `namespace A { }`
; both leave the qualified names of their classes unprefixed (`User::save`).
(namespace_definition name: (namespace_name) @name @definition.module)

(class_declaration name: (name) @name) @definition.class
(class_declaration
  name: (name) @name
  (base_clause [(name) (qualified_name)] @extends)) @definition.class
(class_declaration
  name: (name) @name
  (class_interface_clause [(name) (qualified_name)] @implements)) @definition.class
; `use SomeTrait;` in a class body: the trait is an implemented base.
(class_declaration
  name: (name) @name
  body: (declaration_list (use_declaration [(name) (qualified_name)] @implements))) @definition.class

(interface_declaration name: (name) @name) @definition.interface
(interface_declaration
  name: (name) @name
  (base_clause [(name) (qualified_name)] @extends)) @definition.interface

(trait_declaration name: (name) @name) @definition.trait

(enum_declaration name: (name) @name) @definition.enum
(enum_declaration
  name: (name) @name
  (class_interface_clause [(name) (qualified_name)] @implements)) @definition.enum

(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.function
