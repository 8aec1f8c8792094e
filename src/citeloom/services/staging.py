"""Building a project's collection beside the one it uses, and switching only when it is whole.

Reindex and import both fill a collection that readers must never see half-made: a run that
fails, is interrupted or is killed must leave the project exactly as it was. So the new points
go into a staging collection (``proj@2``, ``proj@3``, ...) and the project's name is pointed at
it in one step at the end. A staging collection left by a killed run is removed by the next
run that needs the name, or by ``citeloom drop``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from citeloom.domain.languages import DEFAULT_LANGUAGES
from citeloom.ports import Index, IndexAdmin


def next_name(collection: str, current: str) -> str:
    """proj -> proj@2 -> proj@3: a fresh physical collection for the rebuild."""
    match = re.fullmatch(rf"{re.escape(collection)}@(\d+)", current)
    return f"{collection}@{int(match.group(1)) + 1 if match else 2}"


def staging_name(index: IndexAdmin, collection: str) -> str:
    """Where the next build of ``collection`` goes: the same name every time until a build
    switches, so a killed build's leftover is the one the next build clears first."""
    return next_name(collection, index.physical(collection))


def belongs_to(collection: str, physical: str) -> bool:
    """Whether ``physical`` is the project collection itself or one of its staging builds."""
    staged = re.fullmatch(rf"{re.escape(collection)}@\d+", physical)
    return physical == collection or staged is not None


def leftovers(index: IndexAdmin, collection: str, others: Iterable[str] = ()) -> list[str]:
    """The staging collections of ``collection`` that no project uses: what killed builds left.
    ``others``: the other projects' collection names, whose collections are never leftovers,
    whatever they are called."""
    current = index.physical(collection)
    theirs = {*others, *(index.physical(name) for name in others)}
    return [
        name
        for name in index.list_collections()
        if name != current and belongs_to(collection, name) and name not in theirs
    ]


def build_and_switch(
    index: Index,
    collection: str,
    target: str,
    embed_model: str,
    dimensions: int,
    fill: Callable[[], bool],
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    *,
    project: str,
) -> bool:
    """Fill ``target`` with ``fill`` (True: it is complete) and point ``collection`` at it.
    ``target`` is made for ``project``, ``embed_model`` and BM25 in ``languages``; the
    collection must be ``project``'s (``CollectionOwnerMismatch`` before anything is made).

    Whatever ``fill`` raises, and an incomplete result, drops ``target`` again, so the project
    keeps serving from its old collection; returns whether the switch happened."""
    index.check_owner(collection, project)
    index.drop_collection(target)  # a leftover of a killed build
    index.ensure_collection(target, embed_model, dimensions, languages, project=project)
    try:
        if not fill():
            index.drop_collection(target)
            return False
        index.optimize(target)  # before readers are pointed at it
        old = index.switch_collection(collection, target)
    except BaseException:
        index.drop_collection(target)
        raise
    if old is not None:
        index.drop_collection(old)
    return True
