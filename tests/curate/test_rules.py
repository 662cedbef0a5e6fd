"""The arithmetic of the rules and the de-duplication, worked by hand."""
from __future__ import annotations

import pytest

from genevals.curate.config import CurateError, Rule, parse_rule
from genevals.curate.dedup import content_hash, deduplicate, normalised
from genevals.curate.rules import allocate, band


def test_largest_remainder_allocation():
    # quotas 7 * (10, 20, 30) / 60 = 1.167, 2.333, 3.5: floors 1, 2, 3 (6); the one left goes to the 0.5 remainder
    assert allocate({"a": 10, "b": 20, "c": 30}, 7) == {"a": 1, "b": 2, "c": 4}
    # quotas 1.5 and 1.5 (tie broken by name): 2 and 1
    assert allocate({"y": 3, "x": 3}, 3) == {"x": 2, "y": 1}
    assert allocate({"a": 2, "b": 1}, 10) == {"a": 2, "b": 1}  # all when N reaches the total


def test_bands():
    assert [band(v) for v in (0.0, 0.2499, 0.25, 0.7499999999999999, 1.0, 1.5, None)] == [
        "[0,0.25)", "[0,0.25)", "[0.25,0.5)", "[0.75,1]", "[0.75,1]", "outside [0,1]", "unscored"]


def test_normalised_content_and_duplicates():
    assert normalised("  The  Ferry—sails, DAILY! ") == "the ferry sails daily"
    assert content_hash("Q?", "An answer.") == content_hash("q", "an   ANSWER")
    texts = [("How long?", "About 55 minutes."), ("how long", "about 55 minutes"), ("How long?", "About 56 minutes."),
             ("Who?", "Nobody at all.")]
    kept, dropped = deduplicate(texts, 90.0)
    # "how long about 55 minutes" vs "how long about 56 minutes": 25 characters each, one substitution = two
    # Indel edits: 100 * (1 - 2 / 50) = 96
    assert kept == [0, 3]
    assert [(d.dropped, d.kept, d.kind, d.ratio) for d in dropped] == [(1, 0, "exact", 100.0), (2, 0, "near", 96.0)]
    assert deduplicate(texts, 96.5)[0] == [0, 2, 3]


@pytest.mark.parametrize("text, rule", [("flagged", Rule("flagged")), ("low:faithfulness<0.5", Rule("low", "faithfulness", 0.5)),
                                        ("sample:20", Rule("sample", n=20))])
def test_rule_grammar(text, rule):
    assert parse_rule(text) == rule and parse_rule(text).name == text


@pytest.mark.parametrize("text", ["low:x<", "low:x<inf", "sample:-1", "sample:", "flagged,disputed", "low:<1"])
def test_bad_rules(text):
    with pytest.raises(CurateError):
        parse_rule(text)
