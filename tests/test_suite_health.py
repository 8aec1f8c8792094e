"""Checks on the test suite itself: it runs on a clone without ../shared, and says why it skips.

The shared third-party corpus lives outside the repository; tests that need it carry the
``shared`` marker (tests/conftest.py skips them with the reason, or fails them under
CITELOOM_REQUIRE_SHARED=1 as in CI). These tests hold every test module to that marker."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.corpus_readers import Suite


def suite_modules() -> list[str]:
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "tests").rglob("test_*.py")
    )


def test_every_test_that_reads_the_shared_corpus_is_marked_and_no_other():
    suite = Suite(ROOT)
    found = [problem for dotted in suite_modules() for problem in suite.mismatches(dotted)]
    assert found == [], "\n".join(found)


HELPERS = """
from tests.conftest import PAPERS as P, write_config
BOOK = P / "grobid_two_pages.pdf"
def pdf_bytes():
    return BOOK.read_bytes()
"""

SUSPECT = """
import pytest
from tests.fixtures_example import pdf_bytes
from tests.conftest import CSL_FIXTURES, EXAMPLES, write_config

@pytest.fixture
def library(tmp_path):
    return pdf_bytes()

def test_through_a_fixture_and_a_helper_module(library):
    assert library

@pytest.mark.parametrize("path", sorted(CSL_FIXTURES.glob("*.json")))
def test_a_parametrized_corpus_file(path):
    assert path

def test_a_literal_path():
    open("../CORPUS_FOLDER/papers/x.pdf")

@pytest.mark.shared
def test_marked_but_reads_only_the_examples(tmp_path):
    write_config(tmp_path, EXAMPLES / "a.pdf")

@pytest.mark.shared
def test_marked_and_reads(library):
    assert library

class TestGrouped:
    def test_in_a_class(self, library):
        assert library
""".replace("CORPUS_FOLDER", "/".join(["shared", "corpus"]))  # not a literal in this file


def test_the_check_finds_unmarked_readers_through_fixtures_helpers_and_parameters():
    suite = Suite(ROOT, {"tests.fixtures_example": HELPERS, "tests.unit.test_example": SUSPECT})
    found = suite.mismatches("tests.unit.test_example")
    assert found == [
        "tests.unit.test_example::test_through_a_fixture_and_a_helper_module reads the "
        "shared corpus without the shared marker",
        "tests.unit.test_example::test_a_parametrized_corpus_file reads the shared corpus "
        "without the shared marker",
        "tests.unit.test_example::test_a_literal_path reads the shared corpus without the "
        "shared marker",
        "tests.unit.test_example::test_marked_but_reads_only_the_examples is marked shared "
        "but never reads the corpus",
        "tests.unit.test_example::TestGrouped::test_in_a_class reads the shared corpus "
        "without the shared marker",
    ]


PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


def run_corpus_tests(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The shared-marked CSL tests, run as a developer would, with the corpus pointed away."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CITELOOM_")}
    environment |= {"CITELOOM_SHARED": str(tmp_path / "nowhere"), **env}
    return subprocess.run(
        [*PYTEST, "-m", "shared", "tests/unit/test_csl_references.py"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def test_without_the_corpus_its_tests_skip_and_say_where_it_should_be(tmp_path):
    result = run_corpus_tests(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " skipped" in result.stdout and " passed" not in result.stdout
    where = (tmp_path / "nowhere").resolve() / "corpus"
    # each skipped test is named, with the folder it looked in and the setting that moves it
    reason = f"needs the shared corpus at {where}: set CITELOOM_SHARED"
    lines = re.findall(
        r"^SKIPPED \[\d+\] tests/unit/test_csl_references\.py:\d+: (.*)$", result.stdout, flags=re.M
    )
    assert len(lines) >= 2 and all(line.startswith(reason) for line in lines), result.stdout


def test_where_the_corpus_is_required_its_absence_fails(tmp_path):
    result = run_corpus_tests(tmp_path, CITELOOM_REQUIRE_SHARED="1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert " skipped" not in result.stdout
    assert "CITELOOM_REQUIRE_SHARED is set and this test needs the shared corpus" in result.stdout


def test_the_quality_tests_are_marked_and_the_readme_test_command_runs_them():
    """Every module of tests/quality/ carries the ``quality`` marker (with ``real`` and
    ``shared``: it ingests the corpus), and the README's test command, which .ci/run runs,
    selects no marker and no path that would leave them out."""
    modules = sorted((ROOT / "tests" / "quality").glob("test_*.py"))
    assert len(modules) >= 6
    marks = "pytestmark = [pytest.mark.real, pytest.mark.shared, pytest.mark.quality]"
    assert [m.name for m in modules if marks not in m.read_text(encoding="utf-8")] == []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("<!-- test-command -->", 1)[1].split("```bash\n", 1)[1]
    pytest_run = command.split("```", 1)[0].split("-m pytest", 1)[1]
    assert " -m " not in pytest_run and "--ignore" not in pytest_run and "tests/" not in pytest_run
