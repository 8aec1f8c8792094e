"""An index_dir citeloom cannot use: validate, query and ingest all say so, alike (exit 3)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CITELOOM, EXAMPLES

pytestmark = pytest.mark.real


def citeloom(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CITELOOM, *args, "-p", "papers", "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
    )


def read_only_folder(folder: Path) -> Iterator[None]:
    """A folder nobody may write to: its mode for a user, a read-only mount for root (who
    writes through any mode)."""
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield
        folder.chmod(0o755)
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only file system here: {mounted.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.fixture(params=["under a regular file", "read-only"])
def config(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    refs = tmp_path / "refs.json"
    refs.write_text("[]")
    config = tmp_path / "citeloom.toml"
    config.write_text(
        f"""
[paths]
audit_dir = "var/audit"
index_dir = "blocked/qdrant"
cache_dir = "var/cache"

[project."papers"]
collection = "proj-papers"
references_json = "{refs}"
""",
        encoding="utf-8",
    )
    if request.param == "under a regular file":
        (tmp_path / "blocked").write_text("a file where a folder should be")
        yield config
    else:
        yield from (config for _ in read_only_folder(tmp_path / "blocked"))


def test_validate_query_and_ingest_report_the_same_error(config):
    ingest = citeloom(config, "ingest", str(EXAMPLES))
    assert ingest.returncode == 3, ingest.stderr
    message = ingest.stderr.strip().removeprefix("error: ")
    assert message.startswith(str(config.parent / "blocked" / "qdrant")), message
    assert "index_dir" in message  # names the setting to fix

    validate = citeloom(config, "validate")
    assert validate.returncode == 3, validate.stdout
    assert f"FAIL index: {message}" in validate.stdout
    assert "all checks passed" not in validate.stdout

    query = citeloom(config, "query", "salt marsh")
    assert query.returncode == 3, query.stdout + query.stderr
    assert query.stderr.strip() == f"error: {message}"
    assert "nothing indexed yet" not in query.stdout
