"""Citation markers: the default forms, ids, ranges, text that only looks like a marker, a custom pattern."""
from __future__ import annotations

import pytest

from genevals.claims.citations import PatternError, compile_pattern, find_markers, resolve, strip_markers


def refs(answer: str, ids=(), pattern=None) -> list[tuple[str, ...]]:
    return [m.refs for m in find_markers(answer, ids, compile_pattern(pattern))]


def test_default_forms():
    assert refs("A [2]. B [1, 3]. C [1-3]. D (Source 4). E (sources 1 and 2). F^5 G^1,2.") == [
        ("2",), ("1", "3"), ("1", "2", "3"), ("4",), ("1", "2"), ("5",), ("1", "2")]
    assert refs("Adjacent markers [1][2].") == [("1",), ("2",)]


def test_context_ids_and_text_that_is_not_a_marker():
    assert refs("Ferry [ferry#1], bins [ferry#1, bins#2].", ids=("ferry#1", "bins#2")) == [
        ("ferry#1",), ("ferry#1", "bins#2")]
    # a bracket of words that name no context is text; so is a year span (not 31 citations)
    assert refs("He said [sic] it [citation needed] in [1990-2020].") == []


def test_strip_markers_keeps_a_map_to_the_original():
    answer = "It opened in 1998 [2]. Next [1]."
    markers = find_markers(answer)
    clean, index = strip_markers(answer, markers)
    assert clean == "It opened in 1998. Next."
    assert answer[index[clean.index("Next")]:].startswith("Next [1]")


def test_resolve_ids_before_positions_and_out_of_range():
    ids = ["a", "2", None]
    assert resolve("a", ids) == 0
    assert resolve("2", ids) == 1  # the id "2" wins over the 2nd position (also index 1 here)
    assert resolve("3", ids) == 2
    assert resolve("7", ids) is None and resolve("zz", ids) is None


def test_custom_pattern():
    assert refs("Fact {{doc:2}} and {{doc:ferry#1}}.", pattern=r"\{\{doc:(?P<ref>[^}]+)\}\}") == [("2",), ("ferry#1",)]
    assert refs("Fact <3>.", pattern=r"<(\d+)>") == [("3",)]
    with pytest.raises(PatternError, match="not a regular expression"):
        compile_pattern("([")
    with pytest.raises(PatternError, match="empty string"):
        compile_pattern(r"\d*")
