; json: imports (to be written)
