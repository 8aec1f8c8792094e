"""Package data: the MiniLM tokenizer files that chunking and embedding share, the word list
a lost ligature is mended from, and WordNet's antonyms that check reads as opposites."""

from pathlib import Path

MINILM_DIR = Path(__file__).parent / "minilm"
LIGATURE_WORDS = Path(__file__).parent / "ligature_words.txt"
ANTONYMS = Path(__file__).parent / "antonyms.txt"
