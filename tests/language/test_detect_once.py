"""Issue 52, point 3, through the real command line: detection chooses among the languages genevals handles only
(no Aragonese, Latin, Shona or Occitan for XQuAD answers), and a sample's language is decided once: every metric
of the run (token F1, exact match, ROUGE, BLEU; token F1, ROUGE and BERTScore's English-only model) records the same one, and a
metric that reads an unsure sample in its script's language says so (``read_as``) instead of recording another."""
from __future__ import annotations

from pathlib import Path

import pytest
from support import mlqa

from genevals.language.codes import SUPPORTED

PAIRS = Path(__file__).resolve().parents[1] / "data" / "mlqa" / "detection_pairs.jsonl"


def _languages(metrics: dict) -> dict[str, str]:
    return {name: m["details"]["language"] for name, m in metrics.items()
            if isinstance(m.get("details"), dict) and "language" in m["details"]}


def test_lexical_metrics_detect_only_supported_languages_and_keep_mlqa_values(tmp_path) -> None:
    pairs = mlqa.load(PAIRS)
    got = mlqa.run(tmp_path, pairs, "--token-norm", "mlqa", metrics="token_f1,exact_match,rouge,bleu")
    codes = {name: lang for metrics in got for name, lang in _languages(metrics).items()}
    outside = [(p["prediction"], _languages(m)) for p, m in zip(pairs, got) if set(_languages(m).values()) - SUPPORTED]
    assert not outside, outside
    assert codes  # every sample's language was recorded
    right = [(p, m) for p, m in zip(pairs, got) if m["token_f1"]["details"]["language"] == p["lang"]]
    assert all(mlqa.exact(p, m) for p, m in right), [p["prediction"] for p, m in right if not mlqa.exact(p, m)]


def test_one_language_per_sample_for_every_metric(tmp_path) -> None:
    pytest.importorskip("sentence_transformers")
    pairs = [p for p in mlqa.load(PAIRS) if p["lang"] == "en"]
    got = mlqa.run(tmp_path, pairs, metrics="token_f1,rouge,bertscore", name="all")
    for pair, metrics in zip(pairs, got):
        langs = _languages(metrics)
        assert {"token_f1", "rouge1", "bertscore_f1"} <= set(langs), (pair["prediction"], langs)
        assert len(set(langs.values())) == 1, (pair["prediction"], langs)  # one decision, every metric
        sources = {m["details"]["language_source"] for m in metrics.values() if "language_source" in m["details"]}
        assert len(sources) == 1, (pair["prediction"], sources)
        bert = metrics["bertscore_f1"]
        assert bert["status"] == "ok", (pair["prediction"], bert)  # English answers: the English model scores them
        read = bert["details"].get("read_as")
        assert read is None or (read == "en" and bert["details"]["language"] != "en")
