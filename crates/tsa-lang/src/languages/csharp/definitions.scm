; C# definitions. Methods, constructors and local functions are functions; the
; extractor makes those directly inside a type its methods. Properties are skipped.

; Namespaces. A file-scoped `namespace A.B;` covers the rest of the file, so the
; module is the whole compilation unit and the file's types nest inside it.
(namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.module
(compilation_unit
  (file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @name)) @definition.module

; Types. Bases named by the I-prefix convention (`IDisposable`, `System.IComparable<T>`)
; are interfaces: `implements`; other class bases: `extends`. A struct can only
; implement interfaces; an interface extends interfaces.
(class_declaration name: (identifier) @name) @definition.class
((class_declaration
  name: (identifier) @name
  (base_list [(identifier) (qualified_name) (generic_name)] @extends)) @definition.class
  (#not-match? @extends "(^|\\.)I[A-Z][A-Za-z0-9_]*(<.*)?$"))
((class_declaration
  name: (identifier) @name
  (base_list [(identifier) (qualified_name) (generic_name)] @implements)) @definition.class
  (#match? @implements "(^|\\.)I[A-Z][A-Za-z0-9_]*(<.*)?$"))

(record_declaration name: (identifier) @name) @definition.class
(record_declaration
  name: (identifier) @name
  (base_list (primary_constructor_base_type type: (_) @extends))) @definition.class
((record_declaration
  name: (identifier) @name
  (base_list [(identifier) (qualified_name) (generic_name)] @extends)) @definition.class
  (#not-match? @extends "(^|\\.)I[A-Z][A-Za-z0-9_]*(<.*)?$"))
((record_declaration
  name: (identifier) @name
  (base_list [(identifier) (qualified_name) (generic_name)] @implements)) @definition.class
  (#match? @implements "(^|\\.)I[A-Z][A-Za-z0-9_]*(<.*)?$"))

(struct_declaration name: (identifier) @name) @definition.struct
(struct_declaration
  name: (identifier) @name
  (base_list [(identifier) (qualified_name) (generic_name)] @implements)) @definition.struct

(interface_declaration name: (identifier) @name) @definition.interface
(interface_declaration
  name: (identifier) @name
  (base_list [(identifier) (qualified_name) (generic_name)] @extends)) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type

; Callables.
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(local_function_statement name: (identifier) @name) @definition.function
