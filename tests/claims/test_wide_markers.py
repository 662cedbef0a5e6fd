"""Citation markers as CJK answers write them (issue 35): 【n】, ［n］, 【n†source】 and full-width digits and
separators name the same contexts as [n], are removed from the sentence the same way, and a custom RE2 pattern
reads full-width digits too."""
from __future__ import annotations

import pytest

from genevals.claims.citations import compile_pattern, find_markers, resolve, strip_markers


def refs(answer, ids=(), pattern=None):
    return [m.refs for m in find_markers(answer, ids, compile_pattern(pattern))]


@pytest.mark.parametrize("marker, expected", [
    ("【1】", ("1",)), ("［1］", ("1",)), ("[１]", ("1",)), ("【１】", ("1",)), ("［１，２］", ("1", "2")),
    ("【1†source】", ("1",)), ("【2†维基百科】", ("2",)), ("【１、３】", ("1", "3")), ("【1～3】", ("1", "2", "3")),
    ("［1－2］", ("1", "2")), ("【1,2】", ("1", "2")), ("[1]", ("1",)),
])
def test_wide_markers_name_the_same_references(marker, expected):
    assert refs(f"北京是中国的首都{marker}。") == [expected]


@pytest.mark.parametrize("text", ["【注】", "【4:0†source】", "［一］", "【】", "【1", "[sic]", "【١】"])
def test_brackets_that_hold_no_reference_are_text(text):
    assert refs(f"北京{text}。") == []


def test_a_context_id_with_wide_characters_is_matched_as_written():
    assert refs("见【资料１】。", ids=["资料１"]) == [("资料１",)]
    assert refs("见【资料1】。", ids=["资料1"]) == [("资料1",)]


def test_wide_markers_are_removed_with_the_space_before_them():
    answer = "北京是首都　【1】。上海很大［２］。"
    found = find_markers(answer)
    clean, index = strip_markers(answer, found)
    assert clean == "北京是首都。上海很大。"
    assert "".join(answer[i] for i in index) == clean  # each clean character maps to its original one


def test_full_width_references_resolve_to_the_same_context():
    ids = ["a", "b", "c"]
    wide = [resolve(r, ids) for m in find_markers("甲［１］。乙【2】。丙[３]。") for r in m.refs]
    ascii_ = [resolve(r, ids) for m in find_markers("甲[1]。乙[2]。丙[3]。") for r in m.refs]
    assert wide == ascii_ == [0, 1, 2]


def test_custom_re2_pattern_reads_full_width_digits():
    assert refs("甲<１>。乙<2>。", pattern=r"<(\d+|[０-９]+)>") == [("1",), ("2",)]
    assert refs("甲{{doc:３}}。", pattern=r"\{\{doc:(?P<ref>[^}]+)\}\}") == [("3",)]
