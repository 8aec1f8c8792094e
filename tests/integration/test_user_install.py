"""A user install as the README shows it: ``pip install .`` from a clone into a fresh virtual
environment (what ``pipx install .`` does in one of its own), then the quick start's ingest and
query with that environment's ``citeloom`` and no further step: the default model's weights
come with the install (ADR 0037).

Slow (about a minute and a half on two cores: the install, then one export of the model and
the three example papers), so it runs in the full suite only. pip's cache and the machine's pip
settings serve the install as they would a user's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT, write_config
from tests.integration.test_serve import QUESTION, REFERENCES

pytestmark = pytest.mark.real


def clone(folder: Path) -> Path:
    """What a clone holds for an install: the project file, the README it names, the code."""
    folder.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, folder / name)
    shutil.copytree(ROOT / "src", folder / "src", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_pip_install_into_a_fresh_environment_gives_a_citeloom_whose_model_works(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # nothing of the test's own environment leaks in: not its code, not its exported model
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["CITELOOM_MODEL_CACHE"] = str(tmp_path / "model-cache")
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    installed = subprocess.run(
        [*pip, "install", "-q", str(clone(tmp_path / "clone"))],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    broken = subprocess.run([*pip, "check"], capture_output=True, text=True, check=False, env=env)
    assert broken.returncode == 0, broken.stdout  # every dependency's own needs are there too

    citeloom = str(venv / "bin" / "citeloom")
    config = write_config(tmp_path, REFERENCES, project="example")
    ingest = subprocess.run(
        [citeloom, "ingest", str(EXAMPLES), "--project", "example", "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert ingest.returncode == 0, ingest.stderr
    assert "not installed" not in ingest.stderr
    assert ingest.stdout.count("ingested ") >= 3, ingest.stdout
    query = subprocess.run(
        [citeloom, "query", QUESTION, "--project", "example", "-c", str(config), "--local"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert query.returncode == 0, query.stderr
    assert "[@ardel2023marsh, p. 118]" in query.stdout
    assert (tmp_path / "model-cache").is_dir()  # exported here, from the weights installed
