; typescript: definitions (to be written)
