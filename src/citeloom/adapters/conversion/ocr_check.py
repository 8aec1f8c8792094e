"""Is Tesseract here, with the languages the config asks for? (for ``citeloom validate``)"""

from __future__ import annotations

import shutil
import subprocess


def tesseract_languages() -> set[str] | None:
    """Installed Tesseract languages, or None when the tesseract binary is missing."""
    binary = shutil.which("tesseract")
    if binary is None:
        return None
    try:
        out = subprocess.run(
            [binary, "--list-langs"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = (out.stdout + out.stderr).splitlines()
    return {line.strip() for line in lines if line.strip() and " " not in line.strip()}


def ocr_status(languages: list[str], mode: str) -> tuple[bool, str, str | None]:
    """(ok, detail, fix)."""
    if mode == "never":
        return True, 'OCR is off ([conversion] ocr = "never")', None
    installed = tesseract_languages()
    packages = " ".join(f"tesseract-ocr-{lang}" for lang in languages)
    if installed is None:
        return (
            False,
            "tesseract not found: pages without a text layer stay empty",
            (f"apt-get install tesseract-ocr {packages}"),
        )
    missing = [lang for lang in languages if lang not in installed]
    if missing:
        return False, f"Tesseract lacks languages {missing}", f"apt-get install {packages}"
    return True, f"Tesseract with {'+'.join(languages)} ({mode})", None
