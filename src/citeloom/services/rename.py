"""The rename use case: a project renamed on purpose takes its collection with it.

A collection records the project that made it, and a project of another name is refused it
(``CollectionOwnerMismatch``): that is what keeps two configs naming the same index and
collection apart. Renaming a project in the config is then a deliberate second step, naming
both names: the collection records the new name, and every chunk stored under the old one is
stored under the new one (each search filters by the chunk's project). Nothing is re-embedded.
"""

from __future__ import annotations

from dataclasses import dataclass

from citeloom.domain.errors import CollectionOwnerMismatch, ConfigError
from citeloom.ports import Index


@dataclass(frozen=True)
class RenameReport:
    old: str
    new: str
    collection: str
    points: int  # chunks moved from the old name to the new one


def rename_project(index: Index, old: str, new: str, collection: str) -> RenameReport:
    """Hand ``collection`` (the configured project ``new``'s) over from ``old``, the name it
    was made under. Run again after an interruption, it moves what is left."""
    if old == new:
        raise ConfigError(
            f"rename-project was given '{old}' twice: name the project's old name first, then "
            "the new one its table in the config now has."
        )
    info = index.collection_info(collection)
    if info is None:
        raise ConfigError(
            f"project '{new}' has no collection '{collection}' in this index yet: there is "
            f"nothing to hand over from '{old}'. Check [paths] index_dir (or [qdrant] url) and "
            f"the project's collection in the config; a new project starts with citeloom "
            f"ingest --project {new}."
        )
    try:
        index.check_owner(collection, old)
    except CollectionOwnerMismatch as error:
        if error.owner != new:  # already new's: a run again after an interruption
            raise ConfigError(
                f"collection '{collection}' belongs to project '{error.owner}', not '{old}'; "
                f"nothing was changed. If '{error.owner}' is the project renamed to '{new}', "
                f"run: citeloom rename-project {error.owner} {new}"
            ) from error
    moved = index.hand_over(collection, old, new)
    return RenameReport(old, new, collection, moved)
