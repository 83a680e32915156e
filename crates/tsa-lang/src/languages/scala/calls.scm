; Scala is indexed at the symbol tier (definitions and imports): no call patterns.
