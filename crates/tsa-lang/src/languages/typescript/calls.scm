; typescript: calls (to be written)
