; javascript: imports (to be written)
