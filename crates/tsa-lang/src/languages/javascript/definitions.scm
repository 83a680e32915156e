; javascript: definitions (to be written)
