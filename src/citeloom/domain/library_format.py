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


# bytes a text file never holds but a picture, an archive or a database always does: the C0
# controls other than tab, line feed, form feed and carriage return (a text saved as UTF-16
# holds NULs too, but opens with a byte order mark, told apart by ``utf16_mark``)
_TEXT_BYTES = bytes(b for b in range(256) if b >= 0x20 or b in b"\t\n\f\r")
# a control character now and then is a title pasted from a PDF; more than one byte in a
# hundred is no library
_CONTROL_SHARE = 100


def utf16_mark(data: bytes) -> bool:
    """Whether a file opens with UTF-16's (or UTF-32's) byte order mark: Notepad's
    "Unicode", which is to be saved again as UTF-8, not binary data."""
    return data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:4] == b"\x00\x00\xfe\xff"


def binary_offset(data: bytes) -> int | None:
    """Where a library file shows itself to be binary data rather than text (a PNG, a ZIP,
    random bytes saved as ``library.bib``): its first NUL byte, or its first control byte
    when such bytes are more than one in a hundred. None for text. pybtex reads anything
    outside an ``@entry{...}`` as a comment, so without this such a file would load as an
    empty library."""
    if (nul := data.find(b"\0")) >= 0:
        return nul
    controls = data.translate(None, _TEXT_BYTES)
    if controls and len(controls) * _CONTROL_SHARE > len(data):
        return min(data.find(bytes((b,))) for b in set(controls))
    return None
