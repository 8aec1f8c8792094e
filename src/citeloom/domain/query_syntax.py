"""What a query asks for: free text to rank on, and "quoted phrases" that must occur."""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_TOP_K = 6  # passages a query returns when not told
MAX_TOP_K = 50  # the most any door returns: the CLI, HTTP and MCP alike
# The least and greatest value of each number a query takes (None: no bound), held here so
# the request models and the CLI's options (made when the CLI starts, before any model is
# imported) read the same rule
QUERY_BOUNDS: dict[str, tuple[int | None, int | None]] = {
    "top_k": (1, MAX_TOP_K),
    "per_doc": (0, None),
    "budget": (1, None),
}

_QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»]+)[\"“”„«»]")


@dataclass(frozen=True)
class ParsedQuery:
    text: str  # the whole query without quote marks: what both signals rank on
    phrases: tuple[str, ...]  # each must occur verbatim (after normalisation) in a result


def parse_query(query: str) -> ParsedQuery:
    phrases = tuple(p.strip() for p in _QUOTED.findall(query) if len(p.split()) >= 1 and p.strip())
    text = re.sub(r"\s+", " ", _QUOTED.sub(lambda m: f" {m.group(1)} ", query)).strip()
    return ParsedQuery(text=text, phrases=phrases)
