; java: definitions (to be written)
