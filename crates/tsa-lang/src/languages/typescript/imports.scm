; typescript: imports (to be written)
