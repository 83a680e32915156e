; kotlin: definitions (to be written)
