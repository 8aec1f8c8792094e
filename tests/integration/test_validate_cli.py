"""`citeloom validate` with the real components, and the chunk-size guard on ingest."""

from __future__ import annotations

import json
import subprocess

import pytest
from typer.testing import CliRunner

from citeloom.entrypoints.cli import app
from tests.conftest import CITELOOM, DATA, EXAMPLES, ROOT, write_config

pytestmark = pytest.mark.real
REFERENCES = ROOT / "references" / "example.json"


def validate(config, *extra: str) -> tuple[int, dict]:
    result = subprocess.run(
        [CITELOOM, "validate", "-p", "papers", "-c", str(config), "--json", *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, json.loads(result.stdout)


def test_validate_passes_on_a_sound_config_and_names_the_layout_stage(tmp_path):
    code, report = validate(write_config(tmp_path, REFERENCES))
    checks = {c["check"]: c for c in report["checks"]}
    assert code == 0 and report["ok"], report
    assert checks["references"]["detail"] == "3 CSL-JSON entries"
    assert (
        "fastembed/all-MiniLM-L6-v2-fp32 loads offline (384 dimensions)"
        in (checks["embedding model"]["detail"])
    )
    assert checks["layout"]["detail"].startswith("weight-free layout rules")


def test_validate_fails_an_oversized_chunk_and_ingest_refuses_it(tmp_path):
    config = write_config(tmp_path, REFERENCES)
    config.write_text(
        config.read_text().replace("[qdrant]", "[chunking]\nmax_tokens = 400\n\n[qdrant]")
    )
    code, report = validate(config)
    failed = {c["check"]: c for c in report["checks"] if not c["ok"]}
    assert code == 2 and set(failed) == {"chunk size"}
    assert failed["chunk size"]["fix"] == "set [chunking] max_tokens = 254 or less"

    result = subprocess.run(
        [CITELOOM, "ingest", str(EXAMPLES), "-p", "papers", "-c", str(config)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "[chunking] max_tokens = 400 is more than fastembed/all-MiniLM-L6-v2-fp32 sees" in (
        result.stderr
    )
    assert not (tmp_path / "var" / "qdrant" / "proj-papers").exists()  # nothing written


def test_validate_reports_an_unreachable_server_with_exit_3(tmp_path):
    code, report = validate(write_config(tmp_path, REFERENCES, url="http://127.0.0.1:9"))
    (index,) = [c for c in report["checks"] if c["check"] == "index"]
    assert code == 3 and not index["ok"] and "127.0.0.1:9" in index["detail"]


def test_ingest_without_a_path_names_the_default_folder_it_looked_for(tmp_path):
    """Issue 21: it said `assets/raw: no such file or folder. Check the path you passed`,
    though no path was passed."""
    config = write_config(tmp_path, ROOT / "references" / "example.json")
    result = CliRunner().invoke(app, ["ingest", "-p", "papers", "-c", str(config)])
    assert result.exit_code == 2
    assert "no path given, and the default folder [paths] raw_dir" in result.output
    assert "Pass the folder of your papers" in result.output and "Traceback" not in result.output


def test_counts_read_as_english(tmp_path):
    config = write_config(tmp_path, ROOT / "references" / "example.json")
    paper = tmp_path / "one"
    paper.mkdir()
    (paper / "a.md").write_text("# Marshes\n\nMarshes bury carbon in their soils.\n")
    result = CliRunner().invoke(app, ["ingest", str(paper), "-p", "papers", "-c", str(config)])
    assert result.exit_code == 0, result.output
    assert "1 document: 1 ingested" in result.output and "1 documents" not in result.output


def test_validate_reads_a_bib_library_and_fails_on_its_shared_key(tmp_path):
    code, report = validate(write_config(tmp_path, DATA / "hand_kept.bib"))
    checks = {c["check"]: c for c in report["checks"]}
    assert code == 2 and not report["ok"]
    assert checks["references"]["detail"] == "8 BibTeX entries"  # 10, less the 2 sharing a key
    assert "citekey dup2020 is claimed by 2 entries" in checks["citation keys"]["detail"]


def test_validate_refuses_a_broken_bib_in_one_line_with_exit_2(tmp_path):
    library = tmp_path / "library.bib"
    library.write_text("@article{a, title = {Fine}}\n@article{b,\n  title = {Oops\n", "utf-8")
    result = subprocess.run(
        [CITELOOM, "validate", "-p", "papers", "-c", str(write_config(tmp_path, library))],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    [line] = [line for line in result.stdout.splitlines() if "not valid BibTeX" in line]
    assert f"{library}: not valid BibTeX (line " in line and "Better BibTeX" in line
    assert "Traceback" not in result.stdout + result.stderr
