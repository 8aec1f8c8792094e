"""Package data: the MiniLM tokenizer files that chunking and embedding share."""

from pathlib import Path

MINILM_DIR = Path(__file__).parent / "minilm"
