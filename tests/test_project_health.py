"""Checks on the project itself: layering, lint, the README's promises, pinned internals."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import CITELOOM, ROOT

BIN = Path(sys.executable).parent


def test_import_layers_hold():
    result = subprocess.run(
        [str(BIN / "lint-imports")], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean():
    result = subprocess.run(
        [str(BIN / "ruff"), "check", "src", "tests", "examples", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


def test_types_hold_adapters_and_fakes_to_their_ports():
    # [tool.mypy] in pyproject.toml: src, the fakes, and tests/port_conformance.py, which uses
    # every adapter and fake as its Protocol port
    result = subprocess.run(
        [str(BIN / "mypy")], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def readme_commands() -> list[list[str]]:
    """Every citeloom invocation shown in a README code block, split into words."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():  # a continued line is one
            for part in line.split(" #")[0].split("&&"):
                words = shlex.split(part.replace("...", "x"))
                if words and words[0].endswith("citeloom"):
                    commands.append(words[1:])
                elif "--" in words and any(w.endswith("citeloom") for w in words):
                    # the MCP Inspector runs citeloom: what follows its `--` is citeloom's
                    tail = words[words.index("--") + 1 :]
                    commands.append([w for w in tail if not w.startswith("--method")][:3])
    return commands


def test_readme_shows_commands():
    subcommands = {c[0] for c in readme_commands()}
    assert {"ingest", "query", "validate", "inspect"} <= subcommands


@pytest.mark.parametrize("words", readme_commands(), ids=lambda w: " ".join(w)[:50])
def test_every_command_and_flag_in_the_readme_exists(words):
    sub = words[0]
    help_text = subprocess.run(
        [CITELOOM, sub, "--help"], capture_output=True, text=True, check=True
    ).stdout
    if len(words) > 1 and re.search(rf"^\s+{re.escape(words[1])}\s", help_text, flags=re.M):
        sub = f"{sub} {words[1]}"  # a command of a group: `notes delete`
        help_text = subprocess.run(
            [CITELOOM, *sub.split(), "--help"], capture_output=True, text=True, check=True
        ).stdout
    for flag in (w.split("=")[0] for w in words[1:] if w.startswith("-")):
        assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", help_text), f"{sub} has no {flag}"


def test_readme_documents_every_exit_code():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for code in (0, 1, 2, 3, 4):
        assert re.search(rf"^\| {code} \|", text, flags=re.M)


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "test-command" in ci and "tesseract-ocr-deu" in ci
    assert " chromium" in ci and "CITELOOM_REQUIRE_BROWSER=1" in ci  # /docs in a real browser
    assert "CITELOOM_REQUIRE_SHARED=1" in ci  # no test of the shared corpus may skip in CI
    assert "<!-- test-command -->" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_pinned_versions_hold():
    # citeloom relies on internals of these exact releases (layout plugin, table plugins,
    # char-cell materialisation); a silent upgrade must fail here first.
    assert metadata.version("docling-slim") == "2.143.0"
    assert metadata.version("qdrant-edge-py") == "0.9.0"
    assert metadata.version("torch").startswith("2.13.0")
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.version("torchvision")


def test_tokenizer_ships_with_the_trained_window():
    from citeloom.resources import MINILM_DIR

    config = json.loads((MINILM_DIR / "tokenizer_config.json").read_text())
    assert config["model_max_length"] == 256
    assert (MINILM_DIR / "tokenizer.json").stat().st_size > 400_000


def test_the_readme_configuration_block_is_a_valid_config(tmp_path):
    from citeloom.config import load_settings

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Configuration.*?```toml\n(.*?)```", text, flags=re.S).group(1)
    (tmp_path / "citeloom.toml").write_text(block, encoding="utf-8")
    settings = load_settings(tmp_path / "citeloom.toml")
    assert settings.get_project("example").fusion == "linear"
    assert settings.query.per_doc == 3


def test_readme_mcp_client_snippets_match_the_mcp_command():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"## AI editors \(MCP\)\n(.*?)\n## ", text, flags=re.S).group(1)
    help_text = subprocess.run(
        [CITELOOM, "mcp", "--help"], capture_output=True, text=True, check=True
    ).stdout
    snippets = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", section, flags=re.S)]
    assert snippets
    for snippet in snippets:
        entry = snippet["mcpServers"]["citeloom"]
        assert entry["command"].endswith("/citeloom") and entry["args"][0] == "mcp"
        for flag in (a for a in entry["args"] if a.startswith("-")):
            assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", help_text), f"mcp has no {flag}"
    from citeloom.entrypoints.mcp_tools import TOOLS
    from citeloom.entrypoints.outcomes import McpCode

    for tool in TOOLS:
        assert f"| `{tool.name}(" in section, f"README lists no {tool.name}"
    for code in McpCode:
        assert f"| `{code}` |" in section, f"README explains no {code}"
