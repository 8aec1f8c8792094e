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


# ------------------------------------------------------------------ names as a PDF spells them
# A reader sees one name in "Threading Building Blocks", "Threading-BuildingBlocks" and
# "ThreadingBuildingBlocks"; a text layer holds whichever the typesetter chose. A name's parts
# are its words, split further at hyphens and other punctuation and at a capital inside a word
# ("BuildingBlocks": "Building" "Blocks", when both sides have three letters or more, so that
# "PaSa" or "McDonald" stay whole); a spelling glues some neighbouring parts and keeps the rest
# apart.
_HUMP = re.compile(r"(?<=[a-z]{3})(?=[A-Z][a-z]{2})")
MAX_SPELLINGS = 16  # 2 ** 4: every spelling of a name of up to five parts


def name_parts(name: str) -> list[str]:
    """The folded parts of a name: "Threading-BuildingBlocks" -> threading building blocks."""
    return fold_for_match(_HUMP.sub(" ", normalise_text(name))).split()


def spellings(name: str) -> list[tuple[str, ...]]:
    """The ways a text layer may write a name, each as the folded words it is made of: every
    gluing of neighbouring parts, the parts apart first. A name of more than five parts gets
    three: all apart, glued within each of its words, all glued."""
    parts = name_parts(name)
    if not parts:
        return []
    gaps = len(parts) - 1
    if 2**gaps > MAX_SPELLINGS:
        glued = ("".join(name_parts(w)) for w in normalise_text(name).split())
        chosen = [tuple(parts), tuple(w for w in glued if w), ("".join(parts),)]
        return list(dict.fromkeys(chosen))
    out = []
    for glue in range(2**gaps):  # bit i set: part i is glued to part i + 1
        words = [parts[0]]
        for i, part in enumerate(parts[1:]):
            if glue >> i & 1:
                words[-1] += part
            else:
                words.append(part)
        out.append(tuple(words))
    return out


def holds_spelling(text: str, name: str) -> bool:
    """Whether ``text`` holds one spelling of ``name``, its words side by side: "Threading
    Building Blocks" is in a page reading "Threading-BuildingBlocks", and a name broken across
    lines is read whole (``normalise_text``)."""
    folded = f" {fold_for_match(text)} "
    return any(f" {' '.join(words)} " in folded for words in spellings(name))


def trim(text: str, limit: int) -> str:
    """Shorten for display at a word boundary."""
    text = _WS.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + " …"
