; Shell definitions: functions (`f() { }`, `function f { }`) and top-level variables
; (`X=1`, `export X=1`, `readonly X=1`, `declare -r X=1`).
(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name) @definition.variable))
