"""Shell completion as a user turns it on: ``citeloom --show-completion`` prints the script
for bash, zsh and fish, and the script, sourced in a real bash, completes commands and options
by asking citeloom itself.

Unmarked, like the ``--help`` checks of test_fast_paths.py: completing a word only parses the
command line (no model, no index, no Docling), a tenth of a second a call.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CITELOOM

BIN = str(Path(CITELOOM).parent)
# Typer finds the user's shell from the process tree; this switch of Typer's own lets a test
# name the shell instead (``--show-completion zsh``), as the tree here is pytest's
NAMED_SHELL = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


def _script(shell: str) -> str:
    done = subprocess.run(
        [CITELOOM, "--show-completion", shell],
        capture_output=True,
        text=True,
        check=False,
        env=_env(**NAMED_SHELL),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_help_offers_completion():
    shown = subprocess.run([CITELOOM, "--help"], capture_output=True, text=True, check=True)
    assert "--install-completion" in shown.stdout and "--show-completion" in shown.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_bash_script_completes_commands_and_options_in_bash():
    """What a bash user gets after ``citeloom --install-completion``: Tab after ``in`` offers
    init, ingest and inspect; after ``query --pro`` the option."""
    script = _script("bash")
    assert "complete -o default -F _citeloom_completion citeloom" in script
    typed = (
        "source <(citeloom --show-completion bash)\n"
        "COMP_WORDS=(citeloom in); COMP_CWORD=1; _citeloom_completion citeloom\n"
        'echo "commands: ${COMPREPLY[*]}"\n'
        "COMP_WORDS=(citeloom query --pro); COMP_CWORD=2; _citeloom_completion citeloom\n"
        'echo "options: ${COMPREPLY[*]}"\n'
    )
    done = subprocess.run(
        ["bash", "-c", typed], capture_output=True, text=True, check=False, env=_env(**NAMED_SHELL)
    )
    assert done.returncode == 0, done.stderr
    commands, options = done.stdout.splitlines()
    assert set(commands.removeprefix("commands: ").split()) == {"init", "ingest", "inspect"}
    assert options == "options: --project"


@pytest.mark.parametrize(
    ("shell", "hook"),
    [
        ("zsh", "#compdef citeloom"),
        ("fish", "complete --command citeloom"),
    ],
)
def test_zsh_and_fish_scripts_ask_citeloom_for_the_words(shell, hook):
    """The script each shell sources, and the words citeloom answers it with when the shell
    asks (the shells need not be installed: the asking is an environment variable)."""
    script = _script(shell)
    assert hook in script and f"_CITELOOM_COMPLETE=complete_{shell}" in script
    asked = {"_CITELOOM_COMPLETE": f"complete_{shell}", "_TYPER_COMPLETE_ARGS": "citeloom in"}
    if shell == "fish":
        asked["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    done = subprocess.run(
        [CITELOOM], capture_output=True, text=True, check=False, env=_env(**asked)
    )
    assert done.returncode == 0, done.stderr
    for command in ("init", "ingest", "inspect"):
        assert command in done.stdout, done.stdout
