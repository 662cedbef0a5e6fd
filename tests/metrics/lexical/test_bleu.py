"""Bleu must equal sacrebleu: sentence_bleu per sample, corpus_bleu over summed statistics."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from genevals import types
from genevals.metrics.lexical.bleu import Bleu
from genevals.types import MetricResult, Sample

VECTORS = Path(__file__).resolve().parents[2] / "data" / "sacrebleu" / "sacrebleu_test_vectors.json"


def _groups() -> dict[str, dict]:
    return {g["name"]: g for g in json.loads(VECTORS.read_text(encoding="utf-8"))["groups"]}


def _samples(hyps: list[str], streams: list[list[str | None]]) -> list[Sample]:
    return [Sample(id=str(i), answer=h, references=tuple(s[i] for s in streams if s[i] is not None))
            for i, h in enumerate(hyps)]


def _capped(score: float) -> float:
    return min(score / 100, 1.0)


def test_corpus_vectors_with_our_settings() -> None:
    group = _groups()["test_corpus_bleu_cases"]
    used = 0
    for case in group["cases"]:
        if case["kwargs"] not in ({}, {"tokenize": "13a"}):
            continue  # other tokenizers / smoothing are not what Bleu computes
        metric = Bleu()
        per_sample = metric.score(_samples(case["hyps"], case["refs"]))
        got = metric.corpus_scores(per_sample)["bleu"]
        assert got == pytest.approx(case["expected_bleu"] / 100, abs=group["tolerance"])
        used += 1
    assert used == 3


def test_sentence_vectors_with_our_settings() -> None:
    groups = _groups()
    for name in ("test_sentence_bleu.test_cases", "test_sentence_bleu.test_cases_zero_bleu"):
        group = groups[name]
        case = next(c for c in group["cases"] if c["smooth_method"] == "exp" and c["tokenize"] == "13a"
                    and c["smooth_value"] is None and not c["lowercase"])
        got = Bleu().score([Sample(id="s", answer=group["SYS"], references=(group["REF"],))])[0]["bleu"]
        assert 100 * got.value == pytest.approx(case["expected_bleu"], abs=group["tolerance"])


def test_statistics_vector() -> None:
    case = _groups()["test_case_statistics"]["cases"][0]  # no punctuation, so 13a == no tokenisation
    got = Bleu().score(_samples(case["hyps"], case["refs"]))[0]["bleu"]
    assert got.details["counts"] == case["expected_counts"]
    assert got.details["totals"] == case["expected_totals"]


def test_corpus_from_stats_vector() -> None:
    case = _groups()["test_case_scoring"]["cases"][0]  # default exp smoothing, as our corpus score
    details = {"counts": case["common"], "totals": case["total"], "sys_len": case["sys_len"],
               "ref_len": case["ref_len"]}
    got = Bleu().corpus_scores([{"bleu": MetricResult("bleu", 0.5, details=details)}])["bleu"]
    assert got == pytest.approx(case["expected_bleu_fraction"], abs=1e-8)


def test_variable_reference_counts_match_padded_streams() -> None:
    hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him.", ""]
    streams: list[list[str | None]] = [
        ["The dog bit the man.", "It was not unexpected.", "The man bit him first.", "Nothing."],
        ["The dog had bit the man.", None, "The man had bitten the dog.", None],
        [None, None, "A man bit a dog.", None],
    ]
    metric = Bleu()
    per_sample = metric.score(_samples(hyps, streams))
    assert metric.corpus_scores(per_sample)["bleu"] == _capped(sacrebleu.corpus_bleu(hyps, streams).score)
    assert "nrefs:var" in metric.signature()
    for sample, result in zip(_samples(hyps, streams), per_sample):
        assert result["bleu"].value == _capped(sacrebleu.sentence_bleu(sample.answer, list(sample.references)).score)


def test_no_reference_and_empty_answers() -> None:
    metric = Bleu()
    got = metric.score([Sample(id="a", answer="x", references=()), Sample(id="b", answer="x", references=("",)),
                        Sample(id="c", answer="", references=("a cat",)),
                        Sample(id="d", answer="?!", references=("a cat",))])
    assert got[0]["bleu"].status == got[1]["bleu"].status == types.EMPTY_REFERENCE
    assert got[2]["bleu"].value == 0.0 and got[2]["bleu"].details["empty_answer"] is True
    # 13a keeps punctuation as tokens, so "?!" is a non-empty (wrong) answer for BLEU.
    assert got[3]["bleu"].value == 0.0 and "empty_answer" not in got[3]["bleu"].details
    assert metric.corpus_scores(got[:2]) == {}
    assert metric.corpus_scores(got)["bleu"] == _capped(
        sacrebleu.corpus_bleu(["", "?!"], [["a cat", "a cat"]]).score)


def test_details_and_signature() -> None:
    metric = Bleu()
    assert "nrefs:?" in metric.signature()
    r = metric.score([Sample(id="s", answer="the cat sat on the mat", references=("the cat is on the mat",))])
    d = r[0]["bleu"].details
    assert d["counts"] == [5, 3, 1, 0] and d["totals"] == [6, 5, 4, 3]
    assert d["precisions"] == [5 / 6, 3 / 5, 1 / 4, 0.0]
    assert d["sys_len"] == d["ref_len"] == 6 and d["bp"] == 1.0 and d["nrefs"] == 1
    # English text: the language table gives 13a, sacrebleu's default, and the details say so
    assert d["tokenizer"] == "13a" and d["language"] == "en"
    sig = metric.signature()
    assert sig.startswith("bleu|nrefs:1|case:mixed|eff:yes|tok:auto(13a)|lang:auto|smooth:exp|")
    assert f"version:{sacrebleu.__version__}" in sig
    assert "|tok:13a|lang:auto|" in Bleu(tokenize="13a").signature()


_WORDS = st.sampled_from(["The", "the", "cat", "sat", "on", "mat", "mat.", "don't", "U.S.", "3.5", "-",
                          "(a)", "über", "東京", "😀", "it", "is", "a", "dog", "?"])
_TEXT = st.lists(_WORDS, max_size=20).map(" ".join) | st.text(max_size=50)
# The property tests below draw text in any script and compare with sacrebleu's default tokenizer, so they ask
# for 13a; the language table's choices are compared with sacrebleu in test_bleu_languages.py.


@settings(max_examples=300, deadline=None)
@given(answer=_TEXT, refs=st.lists(_TEXT, min_size=1, max_size=3))
def test_sentence_identical_to_sacrebleu(answer: str, refs: list[str]) -> None:
    got = Bleu(tokenize="13a").score([Sample(id="s", answer=answer, references=tuple(refs))])[0]["bleu"]
    kept = [r for r in refs if r.strip()]
    if not kept:
        assert got.status == types.EMPTY_REFERENCE
        return
    want = sacrebleu.sentence_bleu(answer, kept)
    assert got.value == _capped(want.score)
    assert 0.0 <= got.value <= 1.0
    assert got.details["counts"] == want.counts and got.details["totals"] == want.totals


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.tuples(_TEXT, _TEXT.filter(str.strip), _TEXT.filter(str.strip)), min_size=1, max_size=8))
def test_corpus_identical_to_sacrebleu(rows: list[tuple[str, str, str]]) -> None:
    hyps = [h for h, _, _ in rows]
    streams = [[a for _, a, _ in rows], [b for _, _, b in rows]]
    metric = Bleu(tokenize="13a")
    got = metric.corpus_scores(metric.score(_samples(hyps, streams)))["bleu"]
    assert got == _capped(sacrebleu.corpus_bleu(hyps, streams).score)
    assert 0.0 <= got <= 1.0


@settings(max_examples=200, deadline=None)
@given(text=_TEXT.filter(str.strip))
def test_identity_scores_one(text: str) -> None:
    # With effective order, any answer identical to its reference with >= 1 token (13a) gets 1.
    got = Bleu(tokenize="13a").score([Sample(id="s", answer=text, references=(text,))])[0]["bleu"]
    assert got.value == 1.0


def test_real_text_identical_to_sacrebleu(shared_dir: Path) -> None:
    """RAGTruth responses scored against the other models' responses to the same source (1-5 references each,
    texts recurring as answer and as reference): every sentence BLEU and the corpus BLEU equal sacrebleu's."""
    rows = [json.loads(line) for line in (shared_dir / "datasets" / "ragtruth_dev.jsonl").open(encoding="utf-8")]
    by_source: dict[str, list[str]] = {}
    for row in rows:
        by_source.setdefault(row["source_id"], []).append(row["response"])
    samples = [Sample(id=str(i), answer=row["response"],
                      references=tuple(r for r in by_source[row["source_id"]] if r != row["response"])
                      or (row["context"],))
               for i, row in enumerate(rows)]
    metric = Bleu()
    got = metric.score(samples)
    for sample, result in zip(samples, got):
        want = sacrebleu.sentence_bleu(sample.answer, [r for r in sample.references if r.strip()])
        assert result["bleu"].value == _capped(want.score)
        assert result["bleu"].details["counts"] == want.counts and result["bleu"].details["totals"] == want.totals
    width = max(len(s.references) for s in samples)
    streams = [[s.references[k] if k < len(s.references) else None for s in samples] for k in range(width)]
    assert metric.corpus_scores(got)["bleu"] == _capped(
        sacrebleu.corpus_bleu([s.answer for s in samples], streams).score)
    assert len({len(s.references) for s in samples}) > 1


_COUNTS = st.lists(st.integers(0, 40), min_size=4, max_size=4)


@settings(max_examples=500, deadline=None)
@given(correct=_COUNTS, extra=_COUNTS, sys_len=st.integers(0, 60), ref_len=st.integers(0, 60),
       effective_order=st.booleans())
def test_compute_bleu_is_sacrebleus(correct, extra, sys_len, ref_len, effective_order) -> None:
    """Bleu scores statistics without importing sacrebleu: the same floats as ``BLEU.compute_bleu`` (exp
    smoothing), zero matches, zero totals (effective order) and empty answers included."""
    from sacrebleu.metrics import BLEU

    from genevals.metrics.lexical.bleu import compute_bleu

    total = [c + e for c, e in zip(correct, extra)]
    want = BLEU.compute_bleu(list(correct), list(total), sys_len, ref_len, smooth_method="exp",
                             effective_order=effective_order)
    score, precisions, bp = compute_bleu(correct, total, sys_len, ref_len, effective_order)
    assert (score, precisions, bp) == (want.score, want.precisions, want.bp)


@settings(max_examples=300, deadline=None)
@given(hyp_len=st.integers(0, 30), ref_lens=st.lists(st.integers(0, 30), min_size=1, max_size=5))
def test_closest_ref_len_is_sacrebleus(hyp_len, ref_lens) -> None:
    from sacrebleu.metrics import BLEU

    from genevals.metrics.lexical.bleu import closest_ref_len

    assert closest_ref_len(hyp_len, ref_lens) == BLEU()._get_closest_ref_len(hyp_len, ref_lens)


def test_scoring_bleu_does_not_import_sacrebleu() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom genevals.metrics.lexical.bleu import Bleu\nfrom genevals.types import Sample\n"
            "m = Bleu()\nr = m.score([Sample(id='1', answer='the cat sat', references=('the cat sat down',))])\n"
            "m.corpus_scores(r)\nm.signature()\nprint('sacrebleu' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
