"""Readers for the judged test collections in ../shared/corpus (read in place).

Cranfield, CISI, MEDLINE and CACM use the SMART layout ('.I n' starts a record, '.X' a field);
NPL has its own (a number line, the text, a '   /' line). Each reader returns the documents
as ``Record`` (id, title, text) and, where the collection has them, its queries and judgements
(query id -> {doc id: gain}). The traps the corpus README lists are handled here once: CACM's
'.X' block is citation data, CISI has queries without judgements, NPL has no punctuation.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CITELOOM_SHARED", ROOT.parent / "shared")).resolve()
CORPUS = SHARED / "corpus"
HAYSTACK = CORPUS / "haystack"


@dataclass(frozen=True)
class Record:
    collection: str
    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Judged:
    """A collection with queries and graded relevance judgements."""

    name: str
    records: list[Record]
    queries: dict[str, str]  # query id -> text
    gains: dict[str, dict[str, float]]  # query id -> {doc id: gain > 0}


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def smart_records(path: Path) -> list[dict[str, str]]:
    """Records of a SMART-format file: '.I n' starts one, '.X' starts field X."""
    records: list[dict[str, str]] = []
    field = None
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(".I"):
            records.append({"id": line[2:].strip()})
            field = None
        elif re.fullmatch(r"\.[A-Z]", line.strip()):
            field = line.strip()[1] if records else None  # CISI.ALL opens with a stray '.X'
            if field:
                records[-1][field] = ""
        elif field:
            records[-1][field] += line + "\n"
    return records


def _smart_documents(name: str, path: Path) -> list[Record]:
    out = []
    for r in smart_records(path):
        title, text = _clean(r.get("T", "")), _clean(r.get("W", ""))
        if title or text:
            out.append(Record(name, r["id"], title, text))
    return out


def _blocks(path: Path) -> list[tuple[str, str]]:
    """NPL's layout: a number line, text lines, a line holding only '/'."""
    out, number, lines = [], None, []
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.strip() == "/":
            if number is not None:
                out.append((number, _clean(" ".join(lines))))
            number, lines = None, []
        elif number is None and line.strip().isdigit():
            number = line.strip()
        else:
            lines.append(line)
    return out


def cranfield() -> Judged:
    folder = CORPUS / "cranfield"
    # Cranfield's .W repeats the title in its first sentence; its .T alone adds nothing
    records = [
        Record("cranfield", r["id"], "", _clean(r.get("W", "")))
        for r in smart_records(folder / "cran.all.1400")
        if _clean(r.get("W", ""))
    ]
    # cranqrel refers to queries by position in cran.qry (1..225), not by their .I number;
    # grades: 1 complete answer ... 4 minimum interest, -1 of no interest
    queries = {
        str(i): _clean(r.get("W", ""))
        for i, r in enumerate(smart_records(folder / "cran.qry"), start=1)
    }
    gains: dict[str, dict[str, float]] = {}
    for line in (folder / "cranqrel").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3 and 1 <= int(parts[2]) <= 4:
            gains.setdefault(parts[0], {})[parts[1]] = 5.0 - int(parts[2])
    return Judged("cranfield", records, queries, gains)


def npl() -> Judged:
    folder = HAYSTACK / "npl"
    records = [Record("npl", n, "", text) for n, text in _blocks(folder / "doc-text") if text]
    queries = dict(_blocks(folder / "query-text"))
    gains = {n: {doc: 1.0 for doc in text.split()} for n, text in _blocks(folder / "rlv-ass")}
    return Judged("npl", records, queries, gains)


def cisi() -> Judged:
    folder = HAYSTACK / "cisi"
    records = _smart_documents("cisi", folder / "CISI.ALL")
    queries = {r["id"]: _clean(r.get("W", "")) for r in smart_records(folder / "CISI.QRY")}
    gains: dict[str, dict[str, float]] = {}
    for line in (folder / "CISI.REL").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            gains.setdefault(parts[0], {})[parts[1]] = 1.0
    # 112 queries, 76 judged: the others are not scored
    return Judged("cisi", records, {q: t for q, t in queries.items() if q in gains}, gains)


def medline() -> list[Record]:
    return _smart_documents("medline", HAYSTACK / "medline" / "MED.ALL")


def cacm() -> list[Record]:
    return _smart_documents("cacm", HAYSTACK / "cacm" / "cacm.all")


JUDGED = {"cranfield": cranfield, "npl": npl, "cisi": cisi}


def haystack() -> list[Record]:
    """Every abstract of the shared corpus: about 18,500 records of real scientific text."""
    return [
        *npl().records,
        *cisi().records,
        *medline(),
        *cacm(),
        *cranfield().records,
    ]
