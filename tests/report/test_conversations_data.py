"""The conversation view's data from hostile results rows: malformed conversation fields are left out, never an
error; a turn embeds only the tail of its history (what no earlier turn shows)."""
from __future__ import annotations

from genevals.report.conversations import MESSAGE_CHARS, page_conversations, retention_failures, turn_fields


def test_a_turn_keeps_only_its_historys_tail():
    row = {"conversation_id": "c", "turn": 3, "history_dropped": 2, "history": [
        {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "x" * (MESSAGE_CHARS + 5)}]}
    out = turn_fields(row)
    assert (out["cv"], out["tn"], out["hd"]) == ("c", 3, 2)
    assert out["pre"] == [["system", "be brief"], ["user", "x" * MESSAGE_CHARS]]


def test_malformed_fields_are_left_out():
    assert turn_fields({"id": "q1"}) == {}
    assert turn_fields({"conversation_id": "c", "turn": True}) == {}
    assert turn_fields({"conversation_id": "c", "turn": "2"}) == {}
    hostile = turn_fields({"conversation_id": {"<b>": 1}, "turn": 1, "history_dropped": -3,
                           "history": [None, {"role": "bot", "content": "x"}, {"role": "user", "content": 5}, "s"]})
    assert hostile == {"cv": "{'<b>': 1}", "tn": 1, "pre": [["user", "5"]]}
    assert "pre" not in turn_fields({"conversation_id": "c", "turn": 1, "history": "not a list"})


def test_retention_failures_are_the_counted_failures():
    """As knowledge_retention writes its details: the user's facts (turns of the user, not failures) and the
    failures, of which only the counted ones mark a turn."""
    row = {"metrics": {"knowledge_retention": {"value": 0.5, "details": {
        "facts": [{"turn": 1, "quote": "my dog Bruno", "located": True}],
        "failures": [{"turn": 2, "quote": "No pets allowed.", "fact": "travelling with my dog", "fact_turn": 1,
                      "kind": "ignores", "reason": "r", "located": True, "counted": True},
                     {"turn": 3, "quote": "invented", "fact_turn": 1, "counted": False}, {"turn": "x"}, 7]}}}}
    assert retention_failures(row) == [
        {"turn": 2, "text": "ignores: \u201cNo pets allowed.\u201d against the user's \u201ctravelling with my dog\u201d "
                            "(turn 1)"}]
    assert retention_failures({"metrics": {"knowledge_retention": {"details": {"failures": "x"}}}}) == []
    assert retention_failures({"metrics": []}) == []


def test_conversations_group_by_system_in_turn_order():
    samples = [{"sys": 0, "cv": "a", "tn": 2}, {"sys": 0, "id": "single"}, {"sys": 1, "cv": "a", "tn": 1},
               {"sys": 0, "cv": "a", "tn": 1}]
    assert page_conversations(samples) == [{"id": "a", "sys": 0, "turns": [3, 0]}, {"id": "a", "sys": 1, "turns": [2]}]
