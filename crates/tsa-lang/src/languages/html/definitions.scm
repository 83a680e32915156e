; HTML outline: every element with an `id` (named by the id) and the headings
; h1-h3 (named by their text). Elements with ids nest, so `main#app > section#cart`
; is `app.cart`. (@receiver only carries the predicates; definitions ignore it.)
((element
  (start_tag
    (attribute
      (attribute_name) @receiver
      [(attribute_value) @name (quoted_attribute_value (attribute_value) @name)])))
  @definition.section
  (#match? @receiver "^[iI][dD]$"))
((element
  (self_closing_tag
    (attribute
      (attribute_name) @receiver
      [(attribute_value) @name (quoted_attribute_value (attribute_value) @name)])))
  @definition.section
  (#match? @receiver "^[iI][dD]$"))
((element
  (start_tag (tag_name) @receiver)
  (text) @name)
  @definition.section
  (#match? @receiver "^[hH][1-3]$"))
