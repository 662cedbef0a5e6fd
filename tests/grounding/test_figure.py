"""The figure genevals shows for the offline detector is the stored out-of-fold one, worded in one place."""
from __future__ import annotations

import json

import pytest

from genevals.grounding import detector, figure
from genevals.metrics.faithfulness import faithfulness


@pytest.fixture(scope="module")
def record() -> dict:
    return json.loads(detector.WEIGHTS_PATH.read_text(encoding="utf-8"))


def test_the_shown_figure_is_the_stored_one(record):
    shown = figure.from_record(record)
    assert shown == figure.packaged()
    h = record["scores"]["cross_validated"]["headline"]
    sentence = shown.sentence()
    expected = (f"F1 {h['detector']['f1']:.3f} [95% CI {h['detector']['ci95'][0]:.3f}, "
                f"{h['detector']['ci95'][1]:.3f}], against {h['word_overlap']['f1']:.3f} "
                f"[{h['word_overlap']['ci95'][0]:.3f}, {h['word_overlap']['ci95'][1]:.3f}] for the word-overlap "
                "baseline on the same folds")
    assert expected in sentence and f"on {h['n']} RAGTruth answers from {h['sources']} sources" in sentence
    assert ("a tie" in sentence) == h["tie"]
    assert sentence in faithfulness.OFFLINE_DEFAULT_NOTE
    assert shown.brief() in faithfulness.OFFLINE_DEFAULT_NOTE.partition("\n")[0]  # the line the terminal shows
    assert ("no better than word overlap's" in shown.brief()) == h["tie"]
    assert "Good for:" in faithfulness.OFFLINE_DEFAULT_NOTE and "Not for:" in faithfulness.OFFLINE_DEFAULT_NOTE


def test_a_changed_figure_changes_what_is_shown(record):
    changed = json.loads(json.dumps(record))
    h = changed["scores"]["cross_validated"]["headline"]
    h["detector"]["f1"], h["difference"]["ci95"], h["tie"] = 0.9, [0.1, 0.2], False
    sentence = figure.from_record(changed).sentence()
    assert "F1 0.900" in sentence and "better than word overlap" in sentence and "a tie" not in sentence
    assert figure.from_record(changed).brief().endswith("F1 0.900, better than word overlap's "
                                                         f"{h['word_overlap']['f1']:.3f}")
    h["difference"]["ci95"] = [-0.2, -0.1]
    assert ", worse than word overlap's " in figure.from_record(changed).brief()
    with pytest.raises(ValueError, match="no out-of-fold headline"):
        figure.from_record({"scores": {"data": "x", "cross_validated": {"folds": 5, "grouped_by": "s"}}})


def test_the_figure_is_read_from_the_packaged_weights():
    assert figure.WEIGHTS_PATH == detector.WEIGHTS_PATH
