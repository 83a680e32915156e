; Imports; `ecma.rs` turns each node into the names it binds.
; ES modules: `import x, {a as b}, * as ns from './m'`.
(import_statement) @import

; Re-exports, recorded as imports so they can be followed:
; `export {a as b} from './m'`, `export * from './m'`, `export * as ns from './m'`.
(export_statement source: (_)) @import

; CommonJS: `const x = require('./m')`, `const {a, b: c} = require('./m')`,
; `const f = require('./m').f`. (@name only checks the callee; mod.rs ignores it.)
(variable_declarator
  value: (call_expression
    function: (identifier) @name
    arguments: (arguments . (string)))
  (#eq? @name "require")) @import
(variable_declarator
  value: (member_expression
    object: (call_expression
      function: (identifier) @name
      arguments: (arguments . (string))))
  (#eq? @name "require")) @import
