"""The languages a project's full-text (BM25) search stems and drops stop words for.

A project names them (``languages = ["german", "english"]``); its collection remembers them, as
it remembers its embedding model, because a query's terms only meet a chunk's terms when both
were stemmed alike. The dense model is chosen separately and may read only English: then a
German query is found by its words alone (``reads_languages``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

DEFAULT_LANGUAGES: tuple[str, ...] = ("english",)

# Every language Qdrant's BM25 has both a Snowball stemmer and a stop word list for
# (qdrant-edge-py 0.9.0). German and English are the ones tested on documents.
BM25_LANGUAGES: tuple[str, ...] = (
    "arabic",
    "danish",
    "dutch",
    "english",
    "finnish",
    "french",
    "german",
    "greek",
    "hungarian",
    "italian",
    "norwegian",
    "portuguese",
    "romanian",
    "russian",
    "spanish",
    "swedish",
    "turkish",
)

# What validate suggests for dense search beyond English: a multilingual FastEmbed model of
# citeloom's catalogue (~50 languages, 768 dimensions, 1 GB) whose window of 512 word pieces
# takes the default chunks whole. Its small sibling, paraphrase-multilingual-MiniLM-L12-v2
# (384 dimensions), truncates at 128, which would need [chunking] max_tokens = 126.
MULTILINGUAL_MODEL = "fastembed/sentence-transformers/paraphrase-multilingual-mpnet-base-v2"

# Model ids that name a model trained on many languages (or on German and English): the
# multilingual sentence-transformers, multilingual e5, BGE-M3, LaBSE and Jina's German one.
_MULTILINGUAL = re.compile(r"multilingual|bge-m3|labse|jina-embeddings-v2-base-de", re.IGNORECASE)


def same_languages(stored: Iterable[str], configured: Iterable[str]) -> bool:
    """Whether two lists index alike: the order of the names does not change a term."""
    return set(stored) == set(configured)


def shown(languages: Sequence[str]) -> str:
    """As the config spells them: "german, english"."""
    return ", ".join(languages)


def spoken(languages: Sequence[str]) -> str:
    """As prose names them: "German and English"."""
    names = [name.capitalize() for name in languages]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def reads_languages(model_id: str, languages: Sequence[str]) -> bool:
    """Whether the dense model can be expected to match queries in all of ``languages``: any
    model for English alone; for more, one whose name says it is multilingual. A model
    citeloom cannot tell (an id of the user's own) counts as English-only, and validate only
    warns."""
    return set(languages) <= {"english"} or bool(_MULTILINGUAL.search(model_id))


# Words that mark a sentence as German and are no English words ("die", "was", "also" are).
_GERMAN_WORDS = frozenset(
    """der das und ist sind wie welche welcher welches welchen wurde wurden werden wird nicht
    mit auf für den dem des ein eine einer eines einen im zum zur von bei nach über auch hat
    haben sich durch oder zu aus dass warum wann wo wieviel wieviele viele können kann""".split()  # noqa: SIM905
)


def looks_german(text: str) -> bool:
    """Whether ``text`` reads as German: two of its words are German function words, or one
    in a text of a few words. Every German noun is capitalised, so rules that take a
    capitalised word for a name (``domain.names``) must not apply to it."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    hits = sum(w in _GERMAN_WORDS for w in words)
    return hits >= 2 or (hits == 1 and len(words) <= 6)
