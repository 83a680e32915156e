; Markdown outline: headings. An ATX heading opens a `section` node that holds
; everything up to the next heading of the same or a higher level, so subsections
; nest. Setext headings (underlined) have no section of their own.
(section (atx_heading heading_content: (inline) @name)) @definition.section
(setext_heading heading_content: (paragraph (inline) @name)) @definition.section
