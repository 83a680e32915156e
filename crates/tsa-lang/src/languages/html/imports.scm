; HTML is a structure-tier language: no imports.
