"""BM25 for German and mixed German/English projects: stems, stop words, one variant per query
word, the setting, the guard and the BM25-only reindex (fakes at the ports, the real BM25)."""

from __future__ import annotations

import pytest
from qdrant_edge import Bm25, Bm25Config

from citeloom.adapters import bm25
from citeloom.adapters.qdrant.collection_meta import guard, languages_of, new_meta
from citeloom.config import ProjectConfig
from citeloom.domain.errors import LanguagesMismatch
from citeloom.domain.languages import BM25_LANGUAGES, MULTILINGUAL_MODEL
from citeloom.domain.models import IndexPoint
from citeloom.ports.index import SearchFilter
from citeloom.services.query import QueryService
from citeloom.services.reindex import TermsReindex
from citeloom.services.validate import languages_check
from tests.fakes import FakeChunker, FakeEmbedder, FakeIndex, MemoryAudit

GERMAN = ("german", "english")


def terms(text: str, languages=GERMAN) -> set[int]:
    return set(bm25.encode_document(text, languages)[0])


def test_english_alone_encodes_exactly_as_before_languages_existed():
    text = "The restored marshes were accreting sediment faster than the reference marshes."
    before = Bm25(Bm25Config(**bm25.BM25_SETTINGS)).embed_document(text)
    assert bm25.encode_document(text) == (list(before.indices), list(before.values))


def test_a_german_and_english_chunk_holds_the_stems_of_both_languages():
    chunk = terms("Die Bodenerosionen auf den Böden nehmen zu; soil erosion is eroding slopes.")
    # a German plural and umlaut meet the singular; an English -ing meets its stem
    assert terms("Bodenerosion Boden", ("german",)) <= chunk
    assert terms("erode", ("english",)) <= chunk
    # what English stemming alone makes of the German words is there as well
    assert terms("Bodenerosionen", ("english",)) <= chunk


def test_stop_words_of_every_language_are_no_terms():
    assert terms("und der die das mit auf the of and with") == set()
    # English alone keeps German stop words as terms: what the setting is for
    assert terms("und der die das mit auf", ("english",))


def test_every_offered_language_builds_a_model():
    for name in BM25_LANGUAGES:
        assert bm25.encode_document("text 2024", (name, "english"))[0]


def test_a_query_word_keeps_the_one_variant_its_collection_confirms():
    word = "Bodenerosionen"
    german, english = (tuple(bm25.encode_query(word, (lang,))[0]) for lang in GERMAN)
    assert german != english
    # no chunk holds the English variant: the German one, whatever the order of languages
    only_german = {german[0]: 2.0}
    for languages in (GERMAN, ("english", "german")):
        words = bm25.query_terms(word, languages, lambda t: only_german)
        assert words == {word: {german[0]: 1.0}}
    # both held: the one more chunks hold (lower IDF); one term per word, weight 1
    both = {german[0]: 1.5, english[0]: 3.0}
    assert bm25.query_terms(word, GERMAN, lambda t: both) == {word: {german[0]: 1.0}}
    assert bm25.encode_query(word, GERMAN, lambda t: both) == ([german[0]], [1.0])
    # weights add up to the query's score: the kept variant's IDF, never both
    words, idf = bm25.weigh_query(word, GERMAN, lambda t: both)
    assert bm25.word_weights(words, idf) == {word: pytest.approx(1.5)}


def test_the_language_setting_is_checked_and_normalised():
    project = ProjectConfig(collection="c", references_json="r.json")
    assert project.languages == ["english"]
    chosen = ProjectConfig(
        collection="c", references_json="r.json", languages=["German", "english"]
    )
    assert chosen.languages == ["german", "english"]
    for bad, says in (
        ([], "at least one"),
        (["klingon"], "german"),
        (["german", "German"], "twice"),
    ):
        with pytest.raises(ValueError, match=says):
            ProjectConfig(collection="c", references_json="r.json", languages=bad)


def test_the_collection_meta_records_its_languages_and_the_guard_compares_them():
    meta = new_meta("c", "m", 4, GERMAN, project="p")
    assert languages_of(meta) == GERMAN
    old = {"embed_model": "m", "bm25": {"language": "english", "k": 1.2}}  # before languages
    assert languages_of(old) == ("english",)
    guard("c", meta, "m", ("english", "german"))
    guard("c", meta, "m")  # no languages: the model alone
    with pytest.raises(LanguagesMismatch) as error:
        guard("c", old, "m", GERMAN)
    message = str(error.value)
    assert "english" in message and "german, english" in message
    assert "citeloom reindex" in message and 'languages = ["english"]' in message


def test_queries_refuse_a_collection_of_other_languages():
    index = FakeIndex()
    index.ensure_collection("c", "fake/bow-16", 16, project="p")
    index.upsert_points("c", [point("1", "Bodenerosion am Hang")])
    service = QueryService(
        project="p", collection="c", embedder=FakeEmbedder(), index=index, languages=GERMAN
    )
    with pytest.raises(LanguagesMismatch):
        service.search("Bodenerosion")


def point(pid: str, text: str, section: tuple[str, ...] = ()) -> IndexPoint:
    payload = {
        "project": "p",
        "doc_id": f"d{pid}",
        "fulltext": text,
        "doc": {"section_path": list(section)},
        "source": {"path": f"{pid}.pdf"},
    }
    return IndexPoint(f"00000000-0000-0000-0000-00000000000{pid}", [0.5] * 16, text, payload)


class ContextChunker(FakeChunker):
    def embed_text(self, text, section_path):
        return f"{' > '.join(section_path)}\n{text}" if section_path else text


def test_reindex_without_a_model_rebuilds_the_terms_and_keeps_every_vector():
    index = FakeIndex()
    index.ensure_collection("c", "fake/bow-16", 16, project="p")
    stored = [point("1", "Die Böden erodieren.", ("Ergebnisse",)), point("2", "Soil erodes.")]
    index.upsert_points("c", stored)
    audit = MemoryAudit()
    report = TermsReindex(
        project="p",
        collection="c",
        index=index,
        chunker=ContextChunker(),
        audit=audit,
        languages=GERMAN,
    ).run()
    assert report.switched and not report.embedded
    assert (report.chunks, report.documents) == (2, 2)
    assert (report.old_languages, report.languages) == (("english",), GERMAN)
    info = index.collection_info("c")
    assert info is not None and info.languages == GERMAN and info.embed_model == "fake/bow-16"
    rebuilt, _ = index.scroll_points("c")
    assert [p.vector for p in rebuilt] == [p.vector for p in stored]
    # the terms are encoded again from the text with its heading context, in both languages
    assert rebuilt[0].text == "Ergebnisse\nDie Böden erodieren."
    assert rebuilt[0].sparse is None
    assert index.text_search("c", "Boden", SearchFilter(project="p"), 5)[0].id == stored[0].id
    assert audit.events[0]["event"] == "reindex_started" and audit.events[0]["embedded"] is False


def test_validate_names_a_multilingual_model_for_german_with_an_english_one():
    assert languages_check("p", "fastembed/all-MiniLM-L6-v2", ("english",)) is None
    check = languages_check("p", "fastembed/all-MiniLM-L6-v2", GERMAN)
    assert check is not None and check.ok and check.warning
    assert "German and English" in check.detail and "BM25" in check.detail
    assert check.fix is not None and MULTILINGUAL_MODEL in check.fix
    assert "citeloom reindex --project p" in check.fix
    fine = languages_check("p", MULTILINGUAL_MODEL, GERMAN)
    assert fine is not None and not fine.warning


def test_capitalised_german_nouns_are_not_names():
    from citeloom.domain.languages import looks_german
    from citeloom.domain.names import names

    question = "Wie wurden Abfluss und Sediment nach den Niederschlagsereignissen erfasst?"
    assert looks_german(question) and names(question) == []
    assert not looks_german("Does Kano analysis use Maple in the BLEU setup?")
    assert names("Does Kano analysis use Maple in the BLEU setup?") == ["BLEU", "Kano", "Maple"]
    assert names("Wie hoch sind die CO2-Emissionen?") == ["CO2-Emissionen"]  # still a name
