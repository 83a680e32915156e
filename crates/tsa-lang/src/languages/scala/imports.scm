; scala: imports (to be written)
