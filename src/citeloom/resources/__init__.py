"""Package data: the MiniLM tokenizer files that chunking and embedding share, and the copy of
FastEmbed's text-model catalogue (see ``adapters/embedding/local_models.py``)."""

from pathlib import Path

MINILM_DIR = Path(__file__).parent / "minilm"
FASTEMBED_CATALOGUE = Path(__file__).parent / "fastembed_text_models.json"
