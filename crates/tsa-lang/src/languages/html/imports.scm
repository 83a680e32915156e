; html: imports (to be written)
