; c: definitions (to be written)
