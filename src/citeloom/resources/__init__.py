"""Package data: the MiniLM tokenizer files that chunking and embedding share, and the word
list a lost ligature is mended from."""

from pathlib import Path

MINILM_DIR = Path(__file__).parent / "minilm"
LIGATURE_WORDS = Path(__file__).parent / "ligature_words.txt"
