; sql: imports (to be written)
