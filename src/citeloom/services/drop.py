"""The drop use case: remove a project's collection, with the staging collections that killed
reindex or import runs left beside it, so that the project starts empty again.

It is the one way to empty a project: an import refuses a collection that holds points, and a
killed run's staging collection otherwise only goes when the next run of its kind clears it.
Only what is the project's goes: a collection another configured project also uses is
refused (dropping it would take that project's documents too), so is one another project made
(another config naming the same index and collection: ``CollectionOwnerMismatch``), and
another project's collection is never taken for a leftover, whatever its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from citeloom.domain.errors import ConfigError
from citeloom.ports import Index
from citeloom.services.staging import leftovers


@dataclass(frozen=True)
class DropReport:
    project: str
    collection: str
    current: str | None  # the physical collection the project uses, if it exists
    leftovers: list[str] = field(default_factory=list)  # staging collections of killed runs
    points: int = 0  # in the current collection
    documents: int = 0

    @property
    def removed(self) -> list[str]:
        return [*self.leftovers, *([self.current] if self.current else [])]


def drop_plan(index: Index, project: str, collection: str, others: Mapping[str, str]) -> DropReport:
    """What ``drop_project`` removes, without removing it (for the confirmation).
    ``others``: every other configured project's collection, by project."""
    sharing = sorted(name for name, other in others.items() if other == collection)
    if sharing:
        raise ConfigError(
            f"collection '{collection}' of project '{project}' is also the collection of "
            f"project '{sharing[0]}': dropping it would remove that project's documents too. "
            "Nothing was removed. Give each project a collection of its own first."
        )
    index.check_owner(collection, project)
    current = index.physical(collection)
    present = index.list_collections()
    info = index.collection_info(collection) if current in present else None
    return DropReport(
        project,
        collection,
        current if current in present else None,
        leftovers(index, collection, others.values()),
        info.points if info else 0,
        len(index.documents(collection, project)) if info else 0,
    )


def drop_project(
    index: Index, project: str, collection: str, others: Mapping[str, str]
) -> DropReport:
    """Remove the project's collection and its leftovers, then its name's alias.

    Leftovers go first: one that a running import or reindex holds makes the embedded engine
    refuse (busy) before anything the project uses is touched. A kill part-way leaves a
    smaller drop for the next run."""
    report = drop_plan(index, project, collection, others)
    for name in report.removed:
        index.drop_collection(name)
    index.remove_alias(collection)
    return report
