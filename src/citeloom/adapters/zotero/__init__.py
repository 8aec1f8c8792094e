"""Reading a Zotero data directory directly: its database, Better BibTeX's keys, its files."""
