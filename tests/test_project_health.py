"""Checks on the project itself: layering, lint, what README and docs/ promise, pinned internals."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

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


README = ROOT / "README.md"
# The user's documentation: README.md and docs/*.md (the ADRs record decisions as they were
# made, so their commands are history, not promises about today's --help).
USER_DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]


def shown_commands(path: Path) -> list[list[str]]:
    """Every citeloom invocation shown in a ```bash block of one file, split into words."""
    text = path.read_text(encoding="utf-8")
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


def documented_commands() -> list[tuple[str, list[str]]]:
    return [
        (path.relative_to(ROOT).as_posix(), words)
        for path in USER_DOCS
        for words in shown_commands(path)
    ]


def help_commands(*group: str) -> set[str]:
    """The commands `citeloom [GROUP] --help` lists."""
    help_text = subprocess.run(
        [CITELOOM, *group, "--help"], capture_output=True, text=True, check=True
    ).stdout
    listing = help_text.partition("Commands:")[2].split("\n\n", 1)[0]  # not the epilog
    return set(re.findall(r"^  ([a-z][a-z-]*)\s", listing, flags=re.M))


def test_readme_shows_commands():
    subcommands = {c[0] for c in shown_commands(README)}
    assert {"ingest", "query", "validate", "inspect", "answer", "check"} <= subcommands


def test_every_command_is_shown_in_the_documentation():
    shown = {" ".join(words[:2]) for _, words in documented_commands()}
    shown |= {words[0] for _, words in documented_commands()}
    commands = help_commands()
    for group in ("audit", "notes"):
        commands |= {f"{group} {sub}" for sub in help_commands(group)}
    missing = sorted(commands - shown)
    assert not missing, f"no code block in README.md or docs/*.md shows: {missing}"


@pytest.mark.parametrize(
    ("doc", "words"),
    documented_commands(),
    ids=lambda v: v if isinstance(v, str) else " ".join(v)[:50],
)
def test_every_command_and_flag_in_the_documentation_exists(doc, words):
    sub = words[0]
    if sub.startswith("-"):  # an option of citeloom itself (--install-completion): never run
        top = subprocess.run([CITELOOM, "--help"], capture_output=True, text=True, check=True)
        for flag in (w.split("=")[0] for w in words if w.startswith("-")):
            assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", top.stdout), (
                f"{doc} shows `citeloom {flag}`, but citeloom has no {flag}"
            )
        return
    help_text = subprocess.run(
        [CITELOOM, sub, "--help"], capture_output=True, text=True, check=False
    )
    assert help_text.returncode == 0, f"{doc} shows `citeloom {sub}`, which does not exist"
    help_text = help_text.stdout
    if len(words) > 1 and "Commands:" in help_text and words[1] in help_commands(sub):
        sub = f"{sub} {words[1]}"  # a command of a group: `notes delete`
        help_text = subprocess.run(
            [CITELOOM, *sub.split(), "--help"], capture_output=True, text=True, check=True
        ).stdout
    for flag in (w.split("=")[0] for w in words[1:] if w.startswith("-")):
        assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", help_text), (
            f"{doc} shows `citeloom {sub} {flag}`, but {sub} has no {flag}"
        )


def heading_anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped,
    spaces as hyphens (code blocks hold no headings)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#+ (.*)$", text, flags=re.M)
    }


def broken_links(path: Path) -> list[str]:
    """Relative links of a Markdown file whose file (or heading) does not exist."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in heading_anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    return broken


@pytest.mark.parametrize(
    "doc", [*USER_DOCS, *sorted((ROOT / "docs" / "adr").glob("*.md"))], ids=lambda p: p.name
)
def test_every_relative_link_points_to_an_existing_file(doc):
    assert broken_links(doc) == []


def test_the_readme_leads_to_every_guide_and_each_leads_back():
    readme = README.read_text(encoding="utf-8")
    for doc in USER_DOCS[1:]:
        name = doc.relative_to(ROOT).as_posix()
        assert f"]({name})" in readme, f"README's 'Where to read on' does not link {name}"
        head = doc.read_text(encoding="utf-8")[:600]
        assert "](../README.md)" in head, f"{name} does not link back to the README at its top"


def test_the_link_check_finds_a_missing_file_and_heading(tmp_path):
    (tmp_path / "there.md").write_text("# Exit codes\n", encoding="utf-8")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "[a](there.md) [b](there.md#exit-codes) [c](gone.md) [d](there.md#nope) "
        "[e](https://example.org/x) [f](#here)\n\n## Here\n\n```\n[g](in-code.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(doc) == [
        "gone.md: no such file",
        "there.md#nope: no heading #nope in there.md",
    ]


def test_readme_documents_every_exit_code():
    from citeloom.entrypoints import cli

    codes = re.findall(r"^ *(\d+)  \w", cli.__doc__ or "", flags=re.M)  # the CLI's own list
    assert {"0", "1", "2", "3", "4", "5", "70", "130"} <= set(codes)
    text = README.read_text(encoding="utf-8")
    for code in codes:
        assert re.search(rf"^\| {code} \|", text, flags=re.M), f"README lists no exit code {code}"


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "test-command" in ci and "tesseract-ocr-deu" in ci
    assert " chromium" in ci and "CITELOOM_REQUIRE_BROWSER=1" in ci  # /docs in a real browser
    assert "CITELOOM_REQUIRE_SHARED=1" in ci  # no test of the shared corpus may skip in CI
    assert "<!-- test-command -->" in README.read_text(encoding="utf-8")


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


def test_the_configuration_reference_is_a_valid_config(tmp_path):
    from citeloom.config import load_settings

    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = re.search(r"## `citeloom.toml`.*?```toml\n(.*?)```", text, flags=re.S).group(1)
    (tmp_path / "citeloom.toml").write_text(block, encoding="utf-8")
    settings = load_settings(tmp_path / "citeloom.toml")
    assert settings.get_project("example").fusion == "linear"
    assert settings.query.per_doc == 3


def test_the_readme_configuration_example_is_a_valid_config(tmp_path):
    # config errors say "see README 'Configuration'": the section and its example must exist
    from citeloom.config import load_settings

    text = README.read_text(encoding="utf-8")
    block = re.search(r"### Configuration\n.*?```toml\n(.*?)```", text, flags=re.S).group(1)
    (tmp_path / "citeloom.toml").write_text(block, encoding="utf-8")
    assert load_settings(tmp_path / "citeloom.toml").get_project("thesis").collection


def test_the_mcp_guide_matches_the_mcp_command():
    section = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
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
    from citeloom.entrypoints.outcomes import McpCode

    for code in McpCode:
        assert f"| `{code}` |" in section, f"docs/mcp.md explains no {code}"


MAX_MODULE_LINES = 600


def test_no_module_is_longer_than_a_reader_can_hold():
    # a module past 600 lines holds more than one thing: split it by what it holds
    src = ROOT / "src"
    too_long = {
        path.relative_to(src).as_posix(): lines
        for path in sorted(src.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def test_every_mcp_tool_is_named_in_mcp_help_and_the_mcp_guide():
    # an editor's user reads `citeloom mcp --help` and docs/mcp.md to learn what the agent can do
    from citeloom.entrypoints.mcp_server import tool_list

    served = [tool.name for tool in tool_list()]
    assert served
    help_text = " ".join(
        subprocess.run(
            [CITELOOM, "mcp", "--help"], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    listed = re.search(r"Tools: ([\w, ]+)\.", help_text)
    assert listed, "citeloom mcp --help names no tools ('Tools: a, b, c.')"
    assert sorted(listed[1].split(", ")) == sorted(served), "citeloom mcp --help's Tools:"
    guide = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    assert [name for name in served if f"| `{name}(" not in guide] == [], "docs/mcp.md's table"


# What follows "citeloom" where it names the program, not a command it tells the user to run
# ("citeloom reads a copy", "another citeloom process"). Any other word after "citeloom " in a
# message or a guide must be a command of `citeloom --help`: "run citeloom models" once sent
# users to a command that never existed. A new sentence about the program adds its word here.
PROSE_AFTER_CITELOOM = frozenset(
    """adds and as brings can cannot cites configuration does encodes finds for honours how id in
    indexes infers ingests instead knows labels let like looked needs never on only pins
    prints process projects reads reasons recorded runs searches sees server serving switches
    touches uses version with works writes wrote""".split()  # noqa: SIM905
)
_MENTION = re.compile(
    r"(?<![\w.-])citeloom(?P<top>(?:[ \t]+--?[a-z][\w-]*)*)[ \t]+(?P<name>[a-z][a-z-]*)"
    r"(?P<rest>[^\n`|;()#]*)"
)


def _told_commands() -> list[tuple[str, re.Match[str]]]:
    """(where, the mention) for each "citeloom X" in README.md, docs/*.md and the strings of
    src/ (messages, help texts, docstrings): its citeloom options, command and the rest of its
    line up to a code span's end, a pipe or a bracket."""
    import ast

    found = []
    for path in USER_DOCS:
        text = path.read_text(encoding="utf-8")
        for match in _MENTION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", match))
    for path in sorted((ROOT / "src").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for match in _MENTION.finditer(node.value):
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", match))
    return found


def _cli_commands() -> dict[str, set[str]]:
    """Each command `citeloom --help` lists ("notes delete" for a group's), with its flags:
    read from the command tree Typer builds the help from (Typer carries its own click)."""
    import typer.main

    from citeloom.entrypoints.cli import app

    def flags(command: Any) -> set[str]:
        return {"--help"} | {
            flag
            for param in command.params
            if param.param_type_name == "option" and not getattr(param, "hidden", False)
            for flag in (*param.opts, *param.secondary_opts)
        }

    top = typer.main.get_command(app)
    commands = {"": flags(top)}  # citeloom's own options: citeloom -v answer
    for name, command in top.commands.items():  # type: ignore[attr-defined]
        if command.hidden:
            continue
        commands[name] = flags(command)
        for sub, inner in getattr(command, "commands", {}).items():
            if not inner.hidden:
                commands[f"{name} {sub}"] = flags(inner)
    return commands


def test_every_command_a_message_or_guide_tells_the_user_to_run_exists():
    commands = _cli_commands()
    wrong = []
    for where, mention in _told_commands():
        name, rest = mention["name"], mention["rest"]
        if name in PROSE_AFTER_CITELOOM:
            continue
        for flag in mention["top"].split():
            if flag not in commands[""]:
                wrong.append(f"{where}: citeloom has no {flag} of its own")
        if name not in commands:
            wrong.append(f"{where}: citeloom {name} is no command (prose? PROSE_AFTER_CITELOOM)")
            continue
        sub = re.match(r"[ \t]+([a-z][a-z-]*)", rest)
        if sub and f"{name} {sub[1]}" in commands:
            name = f"{name} {sub[1]}"
        elif any(c.startswith(f"{name} ") for c in commands) and sub:
            wrong.append(f"{where}: citeloom {name} has no command {sub[1]}")
            continue
        sentence = re.split(r",|\.\s", rest)[0]  # its own options, not the next sentence's
        for flag in re.findall(r"(?<!\S)(--?[a-zA-Z][\w-]*)", sentence):
            if flag not in commands[name]:
                wrong.append(f"{where}: citeloom {name} has no {flag}")
    assert not wrong, "\n".join(wrong)


def test_the_command_check_finds_a_command_that_does_not_exist(monkeypatch, tmp_path):
    guide = tmp_path / "guide.md"
    guide.write_text(
        "Then run `citeloom models` (citeloom reads it), `citeloom notes purge`, "
        "`citeloom query --fast`, `citeloom answer -v` and citeloom -v ingest --project P.\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "USER_DOCS", [guide])
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)  # no src/: only the guide
    with pytest.raises(AssertionError) as failed:
        test_every_command_a_message_or_guide_tells_the_user_to_run_exists()
    assert "guide.md:1: citeloom models is no command" in str(failed.value)
    assert "guide.md:1: citeloom notes has no command purge" in str(failed.value)
    assert "guide.md:1: citeloom query has no --fast" in str(failed.value)
    assert "guide.md:1: citeloom answer has no -v" in str(failed.value)
    assert "ingest" not in str(failed.value)
