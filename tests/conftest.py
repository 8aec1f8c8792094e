"""Shared fixtures. The third-party corpus is read in place from ../shared (never copied).

Tests that read it carry the ``shared`` marker: without the corpus they skip and say where it
should be, so the unit tests run on a bare clone; CI sets CITELOOM_REQUIRE_SHARED=1 (see
.ci/run), where a missing corpus fails those tests instead of hiding them behind a skip.
``tests/test_suite_health.py`` holds every test that names the corpus to that marker."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CITELOOM_SHARED", ROOT.parent / "shared")).resolve()
CORPUS = SHARED / "corpus"
PAPERS = CORPUS / "papers"
DOCLING_GT = CORPUS / "docling-gt"
CSL_FIXTURES = CORPUS / "csl-fixtures"
EXAMPLES = ROOT / "examples" / "papers"
DATA = Path(__file__).parent / "data"
CITELOOM = str(Path(sys.executable).with_name("citeloom"))
# Tests that run pandoc skip without it, except in CI, which sets CITELOOM_REQUIRE_PANDOC=1 so
# that a missing pandoc fails instead.
needs_pandoc = pytest.mark.skipif(
    shutil.which("pandoc") is None and not os.environ.get("CITELOOM_REQUIRE_PANDOC"),
    reason="pandoc is not installed here (apt-get install -y pandoc)",
)

MISSING_CORPUS = (
    f"needs the shared corpus at {CORPUS}: set CITELOOM_SHARED to the folder holding corpus/"
)


def pytest_configure(config: pytest.Config) -> None:
    # the exported fp32 model (the default) is kept per user: once per test session here,
    # in a folder of the session's own (subprocesses inherit it)
    if not os.environ.get("CITELOOM_MODEL_CACHE"):
        models = tempfile.mkdtemp(prefix="citeloom-models-")
        os.environ["CITELOOM_MODEL_CACHE"] = models
        config.add_cleanup(lambda: shutil.rmtree(models, ignore_errors=True))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without the corpus, each ``shared`` test skips where it stands, saying what it needs."""
    if CORPUS.is_dir() or os.environ.get("CITELOOM_REQUIRE_SHARED"):
        return
    for item in items:
        if item.get_closest_marker("shared") is not None:
            item.add_marker(pytest.mark.skip(reason=MISSING_CORPUS))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Where real components run, the default model (fp32) is exported before any test, as
    on a machine that has run citeloom once: else the first command, even one in a module's
    fixture, would print the export's notice among the output a test reads. The fast tests
    never pay for it."""
    if any(item.get_closest_marker("real") is not None for item in session.items):
        from citeloom.adapters.embedding.fp32_export import exported_minilm

        exported_minilm(model_cache(), model_cache())


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Where the corpus is required (CI), a ``shared`` test without it fails instead."""
    if item.get_closest_marker("shared") is not None and not CORPUS.is_dir():
        pytest.fail(f"CITELOOM_REQUIRE_SHARED is set and this test {MISSING_CORPUS}", pytrace=False)


def model_cache() -> Path:
    """This session's model cache (``pytest_configure``), where the fp32 model is exported."""
    return Path(os.environ["CITELOOM_MODEL_CACHE"])


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def embedder(cache_dir: Path):
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

    return OnnxEmbedder.load("fastembed/all-MiniLM-L6-v2", cache_dir=cache_dir)


@pytest.fixture(scope="session")
def fp32_cache(cache_dir: Path) -> Path:
    """A cache dir holding the fp32 MiniLM, exported from the original weights once a session."""
    from citeloom.adapters.embedding.fp32_export import exported_minilm

    exported_minilm(cache_dir, model_cache())
    return cache_dir


@pytest.fixture(scope="session")
def fp32_embedder(fp32_cache: Path):
    from citeloom.adapters.embedding.onnx_embedder import OnnxEmbedder

    return OnnxEmbedder.load(
        "fastembed/all-MiniLM-L6-v2-fp32", cache_dir=fp32_cache, model_cache=model_cache()
    )


@pytest.fixture(scope="session")
def chunker(embedder):
    from citeloom.adapters.wordpiece_chunker import WordPieceChunker

    return WordPieceChunker(embedder.tokenizer_dir)


@pytest.fixture(scope="session")
def converter():
    from citeloom.adapters.conversion.docling_converter import DoclingConverter

    return DoclingConverter(ocr="auto", ocr_languages=("eng", "deu"))


@pytest.fixture(scope="session")
def converted(converter):
    """Each paper converted once per session (Docling is the slow part). It takes a full
    path, so that a test reading a shared paper names PAPERS and carries the marker."""
    cache: dict[Path, object] = {}

    def get(path: Path):
        if path not in cache:
            cache[path] = converter.convert(path, "0" * 64)
        return cache[path]

    return get


def write_config(
    folder: Path,
    references: Path,
    *,
    url: str = "",
    extra: str = "",
    name: str = "citeloom.toml",
    project: str = "papers",
) -> Path:
    """A config file for a throwaway project (``project``, 'papers') in ``folder``."""
    config = folder / name
    config.write_text(
        f"""
[paths]
audit_dir = "var/audit"
index_dir = "var/qdrant"
cache_dir = "var/cache"

[qdrant]
url = "{url}"

[project."{project}"]
collection = "proj-{project}"
references_json = "{references}"
{extra}
""",
        encoding="utf-8",
    )
    return config
