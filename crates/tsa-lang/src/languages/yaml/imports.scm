; yaml: imports (to be written)
