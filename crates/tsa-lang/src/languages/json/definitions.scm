; JSON outline: object keys. A pair spans its value, so nested keys get qualified
; names (`scripts.test`); keys of objects inside arrays nest under the array's key.
(pair key: (string . (string_content) @name)) @definition.variable
