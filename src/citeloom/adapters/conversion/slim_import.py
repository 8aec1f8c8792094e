"""Import Docling's PDF pipeline as a slim install would: without torch.

Docling's PDF pipeline runs no torch model with the rules layout, yet importing its options
imports torch twice over: ``transformers.StoppingCriteria`` for the type of one VLM option
(``transformers`` imports torch), and a probe for Apple's MPS in the ASR model specs. Both are
optional in Docling: it catches the ``ImportError`` and goes on, as in its slim packages,
which require neither. Here both are installed (torch for the trained layout model,
``transformers`` as an extra of docling-core), and the import costs every ingest about 3.4 s
of CPU and 200 MB of memory. While Docling's modules are imported inside ``without_torch()``,
neither can be found, so Docling takes its own slim path.

Nothing stays patched: the finder hides the two only from the importing thread (another
thread importing meanwhile finds them as usual), it is removed on exit, and a later import
(Docling's trained layout model, the DOCX/HTML/Markdown converter) finds torch as usual. A
module imported already is left as it is.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

HIDDEN = frozenset({"torch", "transformers"})


class _Hidden(MetaPathFinder):
    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.thread = threading.get_ident()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        hidden = fullname.partition(".")[0] in self.names
        if hidden and threading.get_ident() == self.thread:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


@contextmanager
def without_torch() -> Iterator[None]:
    """Imports inside find no torch and no ``transformers`` (unless imported already)."""
    hidden = frozenset(name for name in HIDDEN if name not in sys.modules)
    finder = _Hidden(hidden)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
