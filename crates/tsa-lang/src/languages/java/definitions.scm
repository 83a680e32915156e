; Java definitions. Methods and constructors are captured as functions: nested in a
; type, the shared extractor makes them methods owned by it (a constructor is named
; after its class, so `Circle.Circle`).
(class_declaration name: (identifier) @name) @definition.class
(class_declaration
  name: (identifier) @name
  superclass: (superclass [(type_identifier) (scoped_type_identifier) (generic_type)] @extends)) @definition.class
(class_declaration
  name: (identifier) @name
  interfaces: (super_interfaces
    (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @implements))) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface
(interface_declaration
  name: (identifier) @name
  (extends_interfaces
    (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @extends))) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum
(enum_declaration
  name: (identifier) @name
  interfaces: (super_interfaces
    (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @implements))) @definition.enum

; Records are classes.
(record_declaration name: (identifier) @name) @definition.class
(record_declaration
  name: (identifier) @name
  interfaces: (super_interfaces
    (type_list [(type_identifier) (scoped_type_identifier) (generic_type)] @implements))) @definition.class

(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(compact_constructor_declaration name: (identifier) @name) @definition.function
