; ruby: imports (to be written)
