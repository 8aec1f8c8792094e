"""Which format a library file is written in: CSL-JSON or BibTeX/BibLaTeX.

Told by the content first (JSON opens with ``[`` or ``{``, which no BibTeX file does), so a
CSL-JSON export saved as ``library.bib`` or a ``.bib`` saved as ``.txt`` is still read as
what it is; a broken JSON file named ``.json`` keeps its JSON error message.
"""

from __future__ import annotations

import re
from pathlib import PurePath

BIB_SUFFIXES = frozenset({".bib", ".bibtex", ".biblatex"})
_ENTRY = re.compile(r"^\s*@[A-Za-z]+\s*[{(]", re.MULTILINE)


def is_bibtex(path: PurePath, text: str) -> bool:
    """Whether a library file is BibTeX rather than CSL-JSON: JSON starts with ``[`` or
    ``{``; otherwise a ``.bib`` name, or an ``@type{`` line in a file not named ``.json``."""
    head = text.lstrip("\ufeff \t\r\n")
    if head[:1] in ("[", "{"):
        return False
    if path.suffix.lower() in BIB_SUFFIXES:
        return True
    return path.suffix.lower() != ".json" and _ENTRY.search(text) is not None
