"""The ALCE citation formulas on hand-computed examples (multi-citation sentences, a union of chunks, miscited,
uncited and out-of-range references), through the formulas and through the offline metric."""
from __future__ import annotations

import pytest

from genevals import types
from genevals.metrics.citations import formulas
from genevals.metrics.citations.formulas import CitationCheck, SentenceCheck
from genevals.metrics.citations.local import CitationsLocal
from genevals.metrics.citations.sentences import CitedSentence
from genevals.types import Context, Sample


def sentence(i: int, cited: list[int], factual: bool = True) -> CitedSentence:
    return CitedSentence(i, f"sentence {i}", (0, 1), refs=[str(c + 1) for c in cited], cited=cited, factual=factual)


def test_hand_computed_recall_precision_coverage_miscited():
    sentences = [sentence(0, [0, 1]), sentence(1, [1, 2]), sentence(2, [2]), sentence(3, []), sentence(4, [0]),
                 sentence(5, [0], factual=False)]
    checks = {
        # supported; [1] supports alone, [2] does not and is not needed (the rest, [1], supports): 1 relevant of 2
        0: SentenceCheck(True, True, [CitationCheck(0, alone=True, rest=False), CitationCheck(1, False, rest=True)]),
        # only the union of [2] and [3] supports it: both needed, both relevant
        1: SentenceCheck(True, True, [CitationCheck(1, False, rest=False), CitationCheck(2, False, rest=False)]),
        # its citation does not support it, another chunk does: miscited, 0 of 1 relevant
        2: SentenceCheck(False, True, [CitationCheck(2, False)]),
        # not supported anywhere: unsupported, 0 of 1 relevant
        4: SentenceCheck(False, False, [CitationCheck(0, False)]),
    }
    out = formulas.scored(sentences, checks, {})
    # F = 5 factual sentences (sentence 5 is not factual); supported: 0, 1
    assert out["citation_recall"].value == pytest.approx(2 / 5)
    # citations 2 + 2 + 1 + 1 = 6, relevant 1 + 2 = 3
    assert out["citation_precision"].value == pytest.approx(3 / 6)
    # cited factual sentences: 0, 1, 2, 4
    assert out["citation_coverage"].value == pytest.approx(4 / 5)
    assert out["miscited"].value == pytest.approx(1 / 4)
    verdicts = [s["verdict"] for s in out["citation_recall"].details["sentences"]]
    assert verdicts == ["supported", "supported", "miscited", "uncited", "unsupported", "not_checked"]
    assert [c["relevant"] for c in out["citation_recall"].details["sentences"][0]["citations"]] == [True, False]


CONTEXTS = (Context("The crossing between Port Ansel and Carrick Quay takes about 55 minutes.", 1, "ferry#1"),
            Context("An adult return ticket costs 18 crowns and a child return costs 9 crowns.", 2, "ferry#3"),
            Context("The library closes at 8 pm on Thursdays.", 3, "lib#1"))


@pytest.fixture(scope="module")
def local():
    return CitationsLocal()


def score(metric, answer: str, **kw):
    return metric.score([Sample("x", answer, contexts=CONTEXTS, **kw)])[0]


def test_local_multi_citation_and_union(local):
    # one sentence, two facts from two chunks: the union supports it, each chunk alone does not; both are needed
    out = score(local, "The crossing takes about 55 minutes and an adult return costs 18 crowns [1, 2].")
    assert out["citation_recall"].value == 1.0 and out["citation_precision"].value == 1.0
    # the same sentence citing one of the chunks: unsupported by its citation, supported by the contexts
    out = score(local, "The crossing takes about 55 minutes and an adult return costs 18 crowns [ferry#1].")
    assert out["citation_recall"].value == 0.0 and out["miscited"].value == 1.0
    # a range over-cites: [1-3] for a sentence that [1] alone supports: 1 relevant of 3
    out = score(local, "The crossing takes about 55 minutes [1-3].")
    assert out["citation_recall"].value == 1.0 and out["citation_precision"].value == pytest.approx(1 / 3)
    # two sentences, the second uncited: recall 1/2, coverage 1/2, precision 1/1
    out = score(local, "The crossing takes about 55 minutes [1]. An adult return costs 18 crowns.")
    assert (out["citation_recall"].value, out["citation_coverage"].value, out["citation_precision"].value) == (
        0.5, 0.5, 1.0)
    cited = out["citation_recall"].details["sentences"][0]["citations"][0]
    assert CONTEXTS[0].text[slice(*cited["quote_span"])] == cited["quote"] and "55 minutes" in cited["quote"]


def test_local_statuses_never_a_silent_number(local):
    out = score(local, "The crossing takes about 55 minutes [1]. An adult return costs 18 crowns (Source 7).")
    assert {r.status for r in out.values()} == {formulas.OUT_OF_RANGE}
    assert all(r.value is None for r in out.values())
    assert "'7' in sentence 2" in out["miscited"].reason and "3 context(s)" in out["miscited"].reason
    # the sentences are kept with the status, the out-of-range reference named
    assert out["citation_recall"].details["sentences"][1]["out_of_range"] == ["7"]
    assert score(local, "The crossing takes about 55 minutes.")["citation_recall"].status == formulas.NO_CITATIONS
    assert local.score([Sample("x", "The crossing takes about 55 minutes [1].")])[0][
        "citation_precision"].status == types.NO_CONTEXT
    assert score(local, "I don't know based on the provided documents.")["citation_recall"].status == types.REFUSAL


def test_local_reads_the_citations_field(local):
    out = score(local, "The crossing takes about 55 minutes. Adults pay 18 crowns for a return.",
                citations=((None, ("ferry#1",)), (None, ("1",))))
    assert out["citation_recall"].value == 0.5 and out["miscited"].value == 0.5
    assert out["citation_recall"].details["source"] == "field"
    claims = score(local, "The crossing takes about 55 minutes, and adults pay 18 crowns.",
                   citations=(("The crossing takes about 55 minutes", ("ferry#1",)),
                              ("adults pay 18 crowns", ("ferry#3",))))
    assert claims["citation_recall"].value == 1.0 and claims["citation_coverage"].value == 1.0
    wrong = score(local, "One sentence here only.", citations=((None, ("1",)), (None, ("2",))))
    assert wrong["citation_recall"].status == types.ERROR and "lists 2 sentence(s)" in wrong["citation_recall"].reason
