"""``citeloom check`` where writers already run their hooks: pre-commit's own ``try-repo``
runs this repository's ``citeloom-check`` hook (.pre-commit-hooks.yaml) in a small thesis
repository over the bundled example papers, and the ``.pre-commit-config.yaml`` that
docs/answers-and-checks.md shows does the same at ``pre-commit run``: a correct citation
passes, a wrong one fails the commit with its verdict printed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CITELOOM, EXAMPLES, ROOT, write_config
from tests.integration.test_serve import REFERENCES
from tests.integration.test_serve_page import CLAIM, WRONG

pytestmark = pytest.mark.real
DOCS = ROOT / "docs" / "answers-and-checks.md"


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.org", *args],
        cwd=folder, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture(scope="module")
def thesis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A writer's repository: its citeloom.toml (one project, the example papers ingested),
    a chapter citing correctly and one citing a wrong figure, committed."""
    pytest.importorskip(
        "pre_commit", reason='pre-commit is in the dev extra: pip install -e ".[dev]"'
    )
    if shutil.which("git") is None:
        pytest.skip("needs git")
    folder = tmp_path_factory.mktemp("thesis")
    config = write_config(folder, REFERENCES, project="example")
    done = subprocess.run(
        [CITELOOM, "ingest", str(EXAMPLES), "-p", "example", "-c", str(config)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (folder / "chapters").mkdir()
    (folder / "chapters" / "results.md").write_text(f"# Results\n\n{CLAIM}\n", encoding="utf-8")
    (folder / "chapters" / "draft.md").write_text(f"# Draft\n\n{WRONG}\n", encoding="utf-8")
    (folder / ".gitignore").write_text("var/\n", encoding="utf-8")
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "chapters")
    return folder


def pre_commit(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{Path(CITELOOM).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(folder.parent / f"{folder.name}-pre-commit-cache"),
        "PRE_COMMIT_COLOR": "never",
    }
    env.pop("CITELOOM_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=folder, capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip


def test_try_repo_passes_a_correct_citation_and_fails_a_wrong_one_with_its_verdict(thesis):
    passed = pre_commit(thesis, "try-repo", str(ROOT), "citeloom-check", "--files",
                        "chapters/results.md")  # fmt: skip
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"citeloom check .*Passed", passed.stdout), passed.stdout

    failed = pre_commit(thesis, "try-repo", str(ROOT), "citeloom-check", "--files",
                        "chapters/draft.md")  # fmt: skip
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert re.search(r"citeloom check .*Failed", failed.stdout), failed.stdout
    assert re.search(r"chapters/draft\.md:\d+:\d+\s+mismatch\s+@ardel2023marsh", failed.stdout)
    assert "p. 118: 6.8 millimetres" in failed.stdout


def test_the_documented_config_runs_the_hook_at_each_commit(thesis, tmp_path):
    """The YAML of docs/answers-and-checks.md as a writer pastes it, pointed at a copy of this
    repository's hooks and at the thesis's project."""
    hooks = tmp_path / "citeloom"
    hooks.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hooks)
    git(hooks, "init", "-q")
    git(hooks, "add", ".")
    git(hooks, "commit", "-q", "-m", "hooks")
    [shown] = re.findall(r"```yaml\n(repos:.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    config = re.sub(r"repo: \S+", f"repo: {hooks}", shown)
    config = re.sub(r"rev: \S+", f"rev: {git(hooks, 'rev-parse', 'HEAD')}", config)
    config = config.replace("--project, thesis", "--project, example")
    (thesis / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")

    ok = pre_commit(thesis, "run", "--files", "chapters/results.md")
    assert ok.returncode == 0 and "Passed" in ok.stdout, ok.stdout + ok.stderr
    wrong = pre_commit(thesis, "run", "--files", "chapters/draft.md", "chapters/results.md")
    assert wrong.returncode == 1 and "mismatch" in wrong.stdout, wrong.stdout + wrong.stderr
    assert "chapters/results.md:3:" in wrong.stdout  # both drafts checked in the one run
