; CSS is a structure-tier language: no imports (`@import` is not indexed).
