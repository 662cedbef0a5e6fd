"""The card's figures against hand calculations and the reference libraries."""
import pytest

from genevals.generate import card
from genevals.generate.items import Chunk, Document, Item


def test_distinct_n_by_hand():
    texts = ["a b c", "a b d"]
    # unigrams a b c a b d: 4 distinct of 6; bigrams ab bc ab bd: 3 of 4
    assert card.distinct_n(texts, 1) == {"value": 4 / 6, "n": 6}
    assert card.distinct_n(texts, 2) == {"value": 3 / 4, "n": 4}
    assert card.distinct_n(["a"], 2) == {"status": "not_measured", "reason": "no 2-grams"}


def test_self_bleu_is_sacrebleus_sentence_bleu_against_the_others():
    from sacrebleu.metrics import BLEU

    texts = ["the cat sat on the mat", "the cat sat on a hat", "dogs bark at night loudly"]
    bleu = BLEU(effective_order=True)
    expected = sum(bleu.sentence_score(t, [o for o in texts if o is not t]).score for t in texts) / 3
    assert card.self_bleu(texts) == {"value": pytest.approx(expected, abs=1e-12), "n": 3}
    # by hand for the identical pair: BLEU 100 each
    assert card.self_bleu(["same words here now", "same words here now"])["value"] == pytest.approx(100.0)
    assert card.self_bleu(["one"])["status"] == "not_measured"


def test_question_chunk_rouge_l_is_rouge_scores():
    from rouge_score.rouge_scorer import RougeScorer

    chunks = {"d#0": Chunk("d#0", "d", 0, "The pump moves water up the hill every day", 0, 43)}
    items = [Item("q1", "fact", "How does the pump move water?", "r", ("d#0",), language="en"),
             Item("q2", "fact", "hill day", "r", ("d#0",), language="en")]
    scorer = RougeScorer(["rougeL"])
    expected = [scorer.score(chunks["d#0"].text, i.question)["rougeL"].fmeasure for i in items]
    # q2 by hand: LCS 2, P = 2/2, R = 2/9, F = 2PR/(P+R) = 4/11
    assert expected[1] == pytest.approx(4 / 11)
    assert card.rouge_l(items, chunks) == {"mean": pytest.approx(sum(expected) / 2), "n": 2}


def test_bm25_rank_of_the_source_chunk_by_hand():
    chunks = [Chunk("a#0", "a", 0, "apples and pears grow in the orchard", 0, 1),
              Chunk("b#0", "b", 0, "pears are sweet and pears are green", 0, 1),
              Chunk("c#0", "c", 0, "the river floods in spring", 0, 1)]
    items = [Item("q1", "known_item", "river spring", "r", ("c#0",)),  # only c#0 has the terms: rank 1
             Item("q2", "known_item", "pears", "r", ("a#0",)),  # b#0 has pears twice and is shorter: rank 2
             Item("q3", "known_item", "sweet", "r", ("a#0",))]  # a#0 scores 0, below b#0: rank 2 (ties above)
    assert card.bm25_ranks(items, chunks) == [1, 2, 2]
    figures = card.bm25_figures(items, chunks)
    assert figures == {"mrr": pytest.approx((1 + 0.5 + 0.5) / 3), "at_1": pytest.approx(1 / 3), "within_10": 1.0,
                       "median_rank": 2, "n": 3}


def test_the_whole_card_counts_and_coverage():
    chunks = [Chunk("a#0", "a", 0, "alpha beta gamma delta", 0, 1), Chunk("a#1", "a", 1, "epsilon zeta eta", 0, 1),
              Chunk("b#0", "b", 0, "theta iota kappa", 0, 1)]
    docs = [Document("a", "", "a"), Document("b", "", "b"), Document("c", "", "c")]
    kept = [Item("q1", "known_item", "alpha beta", "r", ("a#0",), language="en",
                 provenance={"generator": "offline:known_item"})]
    rejected = [Item("q2", "extractive", "x", "r", ("b#0",), gates={"language": "wrong_language"}),
                Item("q3", "extractive", "y", "r", ("b#0",), gates={"duplicate": "duplicate"}),
                Item("q4", "extractive", "z", "r", ("b#0",), gates={"language": "wrong_language"})]
    got = card.build_card({"known_item": 1, "extractive": 1}, kept, rejected, docs, chunks, {"tool": "t"},
                          embeddings=False)
    assert got["tool"] == "t" and got["kept"] == {"known_item": 1} and got["attempts"] == 4
    assert got["rejections"] == {"wrong_language": 2, "duplicate": 1}
    assert got["rejections_by_type"] == {"extractive": {"wrong_language": 2, "duplicate": 1}}
    assert got["coverage"] == {"documents": {"cited": 1, "n": 3}, "chunks": {"cited": 1, "n": 3}}
    assert got["languages"] == {"en": 1}
    assert got["answerable_without_context"]["status"] == "not_measured"
    assert got["diversity"]["baseline_lead_8"]["distinct_1"] == {"value": 1.0, "n": 4}


def test_rank_figures_by_hand():
    # ranks 1, 3, 12: MRR (1 + 1/3 + 1/12) / 3 = 17/36; at 1: 1/3; within 10: 2/3; median 3
    assert card.rank_figures([1, 3, 12]) == {"mrr": pytest.approx(17 / 36), "at_1": pytest.approx(1 / 3),
                                             "within_10": pytest.approx(2 / 3), "median_rank": 3, "n": 3}
    assert card.rank_figures([])["status"] == "not_measured"


def test_dense_ranks_by_hand_from_vectors():
    # unit vectors: chunk 0 = (1, 0), chunk 1 = (0.6, 0.8), chunk 2 = (0, 1)
    chunks = [[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]
    # question (0, 1): cosines 0, 0.8, 1 -> chunk 0 is third, chunk 1 second, chunk 2 first
    # question (0.8, 0.6): cosines 0.8, 0.96, 0.6 -> chunk 0 is second; a tie with the source is not above it
    questions = [[0.0, 1.0], [0.0, 1.0], [0.8, 0.6], [1.0, 0.0]]
    assert card.ranks_by_vectors(questions, chunks, [0, 1, 0, 0]) == [3, 2, 2, 1]
    tied = [[1.0, 0.0], [1.0, 0.0]]
    assert card.ranks_by_vectors([[1.0, 0.0]], tied, [1]) == [1]


def test_dense_rank_not_measured_without_embeddings_or_items():
    chunks = [Chunk("a#0", "a", 0, "alpha beta gamma delta", 0, 1)]
    items = [Item("q1", "known_item", "alpha", "r", ("a#0",))]
    assert card.dense_figures(items, chunks, embeddings=False) == {"status": "not_measured",
                                                                   "reason": "--no-embeddings"}
    assert card.dense_figures([], chunks)["reason"] == "no kept item"


def test_the_card_says_the_contract_the_meanings_and_examples():
    chunks = [Chunk("a#0", "a", 0, "alpha beta gamma delta", 0, 1), Chunk("b#0", "b", 0, "theta iota kappa", 0, 1)]
    docs = [Document("a", "", "a"), Document("b", "", "b")]
    kept = [Item("q1", "known_item", "alpha <b>beta</b>", "r" * 400, ("a#0",), language="en",
                 provenance={"generator": "offline:known_item"})]
    rejected = [Item("q2", "extractive", "x", "r", ("b#0",), gates={"language": "wrong_language"},
                     gate_reasons={"language": "detected fr"})]
    got = card.build_card({"known_item": 1, "extractive": 1}, kept, rejected, docs, chunks, {}, embeddings=False)
    assert got["contract"] == {"kept": 1, "requested": 2, "met": False}
    assert list(got["gate_meanings"]) == ["wrong_language"] and "language" in got["gate_meanings"]["wrong_language"]
    assert got["examples"]["kept"] == [{"id": "q1", "type": "known_item", "question": "alpha <b>beta</b>",
                                        "reference": "r" * card.EXAMPLE_CHARS + "..."}]
    assert got["examples"]["rejected"] == [{"id": "q2", "type": "extractive", "question": "x",
                                            "rejection": "wrong_language", "reason": "detected fr"}]
    assert got["leakage"]["dense_rank_of_source_chunk"]["reason"] == "--no-embeddings"
    assert got["cost_per_kept_item"]["status"] == "not_measured"
