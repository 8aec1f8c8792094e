"""The models a process keeps: each project's embedding model loaded once, however many doors
and calls use it, and the sentence vectors and stored page texts answers and checks reuse
(embedding candidate sentences was most of an answer's time)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from citeloom.ports import DocumentText, Embedder
from citeloom.services.evidence import SentenceVectors, WarmEvidence


class WarmModels:
    def __init__(
        self,
        texts: Callable[[], DocumentText],
        vectors: Callable[[str], SentenceVectors] = lambda model: SentenceVectors(),
    ) -> None:
        """``texts``: reads the stored page texts (once, when an answer first needs them);
        ``vectors``: a model's sentence vectors, kept on disk where the process can (a
        check's cited pages are embedded once for every later run, this one's included)."""
        self.texts = texts
        self.vectors = vectors
        self.load_s: dict[str, float] = {}  # how long each model took to load
        self._models: dict[str, Embedder] = {}
        self._evidence: dict[str, WarmEvidence] = {}  # by model
        self._texts: DocumentText | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> list[str]:
        return sorted(self._models)

    def embedder(self, model: str, load: Callable[[], Embedder]) -> Embedder:
        """The model, loaded (``load``) on first use and kept for the process's life."""
        with self._lock:
            if model not in self._models:
                started = time.perf_counter()
                self._models[model] = load()
                self.load_s[model] = time.perf_counter() - started
            return self._models[model]

    def evidence(self, model: str) -> WarmEvidence:
        """The model's sentence vectors over the stored page texts (shared by every model)."""
        with self._lock:
            if self._texts is None:
                self._texts = self.texts()
            if model not in self._evidence:
                self._evidence[model] = WarmEvidence(self.vectors(model), self._texts)
            return self._evidence[model]
