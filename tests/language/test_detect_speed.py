"""Issue 51, point 2: language detection made cheaper without changing a decision.

Three changes, each checked against what it replaced: a text is detected once for its first MAX_CHARS characters
(a long answer unsure alone is not classified again with its references after it); a text's scripts are counted
per distinct character; py3langid's feature table is kept in row order. The decisions on MLQA's pairs, their
joins and long texts are pinned in tests/data/language/decisions.jsonl, written by the code before the change
(main at 3453993); the classifier's scores are compared with py3langid's model as py3langid leaves it.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from support import mlqa

from genevals.language.detect import MAX_CHARS, detect
from genevals.language.scripts import dominant, script_of, scripts
from genevals.language.setting import LanguageSetting, detection_text, resolve

detect_module = importlib.import_module("genevals.language.detect")
DATA = Path(__file__).resolve().parents[1] / "data"
DECISIONS = DATA / "language" / "decisions.jsonl"
#: texts no detection sees in the pairs: marks, digits only, kana beside Han, mixed scripts, empty
ODD = ["", "1234 5678", "e\u0301te\u0301", "東京タワーは高い", "Москва и London", "ＡＢＣ全角", "🙂🙂 ok",
       "x" * (MAX_CHARS + 5), "ä" * MAX_CHARS + "日本語", "\u200bword\u200b", "a\nb\tc"]


def texts() -> list[str]:
    """MLQA's predictions, golds and their joins (as resolve builds them), long texts (a language's golds
    joined past MAX_CHARS, and such a text with references after it) and odd ones."""
    pairs = mlqa.load(DATA / "mlqa" / "mlqa_f1_subset.jsonl") + mlqa.load(DATA / "mlqa" / "detection_pairs.jsonl")
    out = []
    for p in pairs:
        out += [p["prediction"], p["gold"], detection_text(p["prediction"], (p["gold"],))]
    for lang in sorted({p["lang"] for p in pairs}):
        long = " ".join(p["gold"] + "." for p in pairs if p["lang"] == lang) * 8
        assert len(long) > MAX_CHARS
        out += [long, detection_text(long, ("a reference in English, quite unlike the answer",))]
    return out + ODD


def test_the_decisions_are_those_before_the_change() -> None:
    pinned = [json.loads(line) for line in DECISIONS.read_text(encoding="utf-8").splitlines()]
    detect_module._detect.cache_clear()
    got = [{"fallback": fallback, "decision": list(dataclasses.astuple(detect(t, fallback)))}
           for fallback in (None, "de") for t in texts()]
    assert len(got) == len(pinned) > 600
    assert got == pinned
    assert len({tuple(g["decision"][:2]) for g in got}) > 10  # many languages and sources, not one answer


def test_a_long_answer_is_classified_once_with_its_references() -> None:
    detect_module._detect.cache_clear()
    answer = "Die Antwort steht im Text und sagt es klar. " * 20
    assert len(answer) > MAX_CHARS
    alone = detect(answer)
    with_references = detect(detection_text(answer, ("Eine andere Antwort.",), "Welche Frage?"))
    assert with_references is alone  # the same first MAX_CHARS characters: the same decision, not recomputed
    info = detect_module._detect.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    # resolve asks for both only when the answer alone is unsure; a short answer still gets its join's decision
    short = resolve("Berlin", None, LanguageSetting(), ("Berlin ist die Hauptstadt Deutschlands und liegt an der "
                                                         "Spree.",))
    assert short.code == "de" and short == detect(detection_text("Berlin", ("Berlin ist die Hauptstadt "
                                                                            "Deutschlands und liegt an der Spree.",)))


def test_scripts_count_as_a_step_per_character_would() -> None:
    for text in texts():  # one test, not one a text: the quick run's test count stays what CONTRIBUTING.md says
        per_character = Counter(s for s in map(script_of, text) if s is not None)
        got = scripts(text)
        assert list(got.items()) == list(per_character.items()), text  # the same counts, the same order (ties)
        assert dominant(text) == _dominant(per_character), text


def _dominant(counts: Counter) -> tuple[str | None, int]:
    letters = sum(counts.values())
    if not letters:
        return None, 0
    return ("Kana" if counts.get("Kana") else counts.most_common(1)[0][0]), letters


@pytest.mark.slow  # loads py3langid's model a second time (about a second, more under load)
def test_the_classifier_scores_as_py3langid_leaves_its_model() -> None:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ours = detect_module._identifier()
    theirs = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    theirs.set_languages(ours.nb_classes)
    assert ours.nb_ptc.flags["C_CONTIGUOUS"] and not theirs.nb_ptc.flags["C_CONTIGUOUS"]
    assert ours.nb_ptc.dtype == theirs.nb_ptc.dtype and np.array_equal(ours.nb_ptc, theirs.nb_ptc)
    for text in texts():
        cut = text[:MAX_CHARS]
        assert np.array_equal(ours._decide(cut), theirs._decide(cut)), text  # bit for bit
