; php: definitions (to be written)
