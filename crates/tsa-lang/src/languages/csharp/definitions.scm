; csharp: definitions (to be written)
