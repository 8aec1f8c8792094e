"""Text normalisation shared by indexing, matching and phrase checks.

Scholarly PDFs carry ligatures (ﬁ, ﬀ), compatibility characters and line-end hyphens; two
strings that a reader sees as equal must compare equal here.
"""

from __future__ import annotations

import re
import unicodedata

_WS = re.compile(r"\s+")
# a word hyphenated at a line end, German ones included ("Bö-\nden", "ver-\nändert"): joined
_LOWER = "a-z\u00df-\u00f6\u00f8-\u00ff"
_LINE_END_HYPHEN = re.compile(f"(?<=[{_LOWER}])-\\s*\\n\\s*(?=[{_LOWER}])")
# a compound hyphenated at a line end ("CO2-\nEmissionen", "Nord-\nSüd"): kept whole
_LINE_END_COMPOUND = re.compile(r"(?<=\w)-[^\S\n]*\n\s*(?=\w)")
_SOFT_HYPHEN = "\u00ad"
_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")


def normalise_text(text: str) -> str:
    """NFKC, soft hyphens and line-end hyphens removed (a compound's kept, its parts joined),
    whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).replace(_SOFT_HYPHEN, "")
    text = _LINE_END_COMPOUND.sub("-", _LINE_END_HYPHEN.sub("", text))
    return _WS.sub(" ", text).strip()


def fold_for_match(text: str) -> str:
    """A loose key for comparing titles and phrases: case, accents, dashes and punctuation go."""
    text = unicodedata.normalize("NFKD", normalise_text(text)).translate(_DASHES)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[^\w\s]", " ", text.casefold())
    return _WS.sub(" ", text).strip()


def trim(text: str, limit: int) -> str:
    """Shorten for display at a word boundary."""
    text = _WS.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + " …"
