; SQL outline: the objects a script creates. Tables, views and types are `type`s
; (a table's columns nest in it as variables: `users.email`), functions are
; functions, schemas are modules, sequences are variables, and indexes and
; triggers are sections. Names drop the schema (`public.users` is `users`).
(create_table
  [(keyword_table) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.type
(column_definition name: (identifier) @name) @definition.variable
(create_view
  [(keyword_view) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.type
(create_materialized_view
  [(keyword_view) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.type
(create_type (object_reference name: (identifier) @name)) @definition.type
(create_function
  (keyword_function) . (object_reference name: (identifier) @name)) @definition.function
(create_index column: (identifier) @name) @definition.section
(create_trigger
  [(keyword_trigger) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.section
(create_schema [(keyword_schema) (keyword_exists)] . (identifier) @name) @definition.module
(create_sequence
  [(keyword_sequence) (keyword_exists)] . (object_reference name: (identifier) @name)) @definition.variable
