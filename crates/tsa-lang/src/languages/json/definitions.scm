; json: definitions (to be written)
