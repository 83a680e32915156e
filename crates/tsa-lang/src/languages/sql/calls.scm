; sql: calls (to be written)
