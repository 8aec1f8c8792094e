"""check's sentence vectors kept between processes: a pre-commit hook runs check in a fresh
process each time, and embedding the cited pages again was most of its time."""

from __future__ import annotations

from citeloom.adapters.embedding.sentence_store import FileSentenceStore
from citeloom.services.evidence import SentenceVectors


def test_a_second_process_reads_the_vectors_the_first_embedded(tmp_path):
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return [[float(len(t)), 0.5, -0.25] for t in texts]

    first = SentenceVectors(store=FileSentenceStore(tmp_path, "fake/model"))
    made = first.vectors(["One sentence.", "Another, longer sentence."], embed)
    first.save()
    second = SentenceVectors(store=FileSentenceStore(tmp_path, "fake/model"))
    again = second.vectors(["Another, longer sentence.", "A third one."], embed)
    assert calls == [["One sentence.", "Another, longer sentence."], ["A third one."]]
    assert list(again[0]) == list(made[1])  # as computed, not rounded
    # another model's vectors are not this one's
    other = SentenceVectors(store=FileSentenceStore(tmp_path, "fake/other"))
    other.vectors(["One sentence."], embed)
    assert calls[-1] == ["One sentence."]


def test_a_damaged_store_is_ignored_and_written_again(tmp_path):
    store = FileSentenceStore(tmp_path, "fake/model")
    store.path.parent.mkdir(parents=True, exist_ok=True)
    store.path.write_bytes(b"not a store")
    assert store.load() == {}
    vectors = SentenceVectors(store=store)
    vectors.vectors(["A sentence."], lambda texts: [[1.0, 2.0] for _ in texts])
    vectors.save()
    assert len(FileSentenceStore(tmp_path, "fake/model").load()) == 1
