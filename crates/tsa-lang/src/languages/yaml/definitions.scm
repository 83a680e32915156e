; yaml: definitions (to be written)
