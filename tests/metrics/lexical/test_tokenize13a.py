"""tokens_13a must give sacrebleu's own 13a tokens, on adversarial and on real text."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from genevals.metrics.lexical.tokenize13a import tokens_13a


def _sacrebleu(line: str) -> list[str]:
    return Tokenizer13a()(line).split()


def test_runs_of_dots_and_commas_follow_sacrebleu() -> None:
    # sacrebleu's rules consume two characters per match, so these keep some dots glued (".5", "..").
    for line in ("x..5", "a...b", "1.2.3", "U.S., the 1,000.5 people-5-4", "3-4 a-b", "..", ".,.,5,",
                 "&quot;Hi&quot; &amp; bye -\nnext\nline <skipped> end.", "¿Qué? 東京。 x\u00a0.y", ""):
        assert tokens_13a(line) == _sacrebleu(line), line
    assert tokens_13a("x..5") == ["x", ".", ".5"]


_ALPHABET = "ab0 9.,-&;quot<>\n\t/({~é\u00a0"


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=30) | st.text(max_size=30))
def test_identical_to_sacrebleu(line: str) -> None:
    assert tokens_13a(line) == _sacrebleu(line)


def test_real_text(shared_dir: Path) -> None:
    rows = [json.loads(line) for line in (shared_dir / "datasets" / "ragtruth_dev.jsonl").open(encoding="utf-8")]
    texts = [row[key] for row in rows for key in ("response", "context")]
    assert sum("..." in t or ".," in t for t in texts) > 10
    for text in texts:
        assert tokens_13a(text) == _sacrebleu(text)
