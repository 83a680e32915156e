; Markdown is a structure-tier language: no call sites.
