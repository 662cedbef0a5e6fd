"""The three conversation judges on a jury, against two real judge servers on 127.0.0.1 (the project's fault
server playing the rule judge, and a lenient one that sees no failure and finds every turn relevant): one request
per conversation, metric and judge, each server its own; the value on the last turn is the weighted mean with each
judge's value and the spread; the turn-by-turn labels are voted and give the kappas; a judge that fails casts no
vote, and when both fail the status stands."""
from __future__ import annotations

from collections import Counter

from metrics.conversation.test_conversation_judges import FAMILIES, ROWS, kind_of, rule_judge
from support.fault_server import FaultServer

from genevals import types
from genevals.api import evaluate


def lenient(content: str) -> object:
    reply = rule_judge(content)
    if kind_of(content) == "knowledge_retention":
        return {**reply, "failures": []}
    if kind_of(content) == "conversation_relevance":
        return {"turns": [{**t, "relevant": True} for t in reply["turns"]]}
    return reply


def unreadable_retention(content: str) -> object:
    return "not JSON {" if kind_of(content) == "knowledge_retention" else rule_judge(content)


def jury(a, b, **weights):
    return [{"name": name, "base_url": s.base_url, "model": "judge", "cache": False, "weight": weights.get(name, 1)}
            for name, s in (("rule", a), ("lenient", b))]


def sent(server) -> Counter:
    return Counter(kind_of(r["body"]["messages"][0]["content"]) for r in server.requests)


def test_each_judges_value_the_votes_per_turn_and_the_kappas(tmp_path):
    with FaultServer(replies=rule_judge) as a, FaultServer(replies=lenient) as b:
        results = evaluate(ROWS, FAMILIES, judge=jury(a, b, lenient=3), out_dir=tmp_path / "run")
        # moved, kept, broken: one request per conversation for each metric, at each judge's own server
        assert sent(a) == sent(b) == Counter({f: 3 for f in FAMILIES})
    by_id = {r.sample.id: r.metrics for r in results.samples}
    retention = by_id["moved:4"]["knowledge_retention"]
    assert retention.details["jury"] == {"rule": 1 - 1 / 3, "lenient": 1.0}
    assert abs(retention.details["jury_spread"] - 1 / 3) < 1e-12
    assert abs(retention.value - (1 * (2 / 3) + 3 * 1.0) / 4) < 1e-12  # the weighted mean
    assert set(retention.details["jury_usage"]) == {"rule", "lenient"}
    assert retention.details["usage"]["requests"] == 2
    turns = {item["turn"]: item for item in retention.details["jury_items"]["items"]}
    assert turns[3]["jury"] == {"rule": "failed", "lenient": "kept"}
    assert turns[3]["label"] == "kept" and turns[3]["agreement"] == 0.75  # the lenient judge weighs 3
    assert turns[2] == {"index": 0, "turn": 2, "jury": {"rule": "kept", "lenient": "kept"}, "label": "kept",
                        "agreement": 1.0}
    relevance = by_id["moved:4"]["conversation_relevance"]
    assert relevance.details["jury"] == {"rule": 0.75, "lenient": 1.0}
    assert [i["jury"] for i in relevance.details["jury_items"]["items"]][3] == {"rule": False, "lenient": True}
    completeness = by_id["moved:4"]["conversation_completeness"]
    assert [i["label"] for i in completeness.details["jury_items"]["items"]] == [
        "no_request", "fulfilled", "fulfilled", "unfulfilled"]
    # the other turns: placed by each judge alike, with no call and no jury record
    for turn in ("moved:1", "moved:3", "kept:1"):
        for family in FAMILIES:
            assert by_id[turn][family].status == types.NOT_LAST_TURN and "jury" not in by_id[turn][family].details
    assert by_id["single"]["conversation_relevance"].status == "not_conversation"
    # both judges failed on the broken conversation: its status stands, each judge's beside it
    broken = by_id["broken:2"]["knowledge_retention"]
    assert broken.status == types.PARSE_ERROR and broken.details["jury_statuses"] == {
        "rule": types.PARSE_ERROR, "lenient": types.PARSE_ERROR}

    figures = results.meta["jury"]["default"]
    kr = figures["knowledge_retention"]
    # moved: turns 2, 3, 4 (one split: turn 3); kept: turn 2
    assert (kr["unit"], kr["units"], kr["split_units"], kr["disagreement_rate"]) == ("turns", 4, 1, 0.25)
    assert kr["pairwise_kappa"] == {"rule|lenient": 0.0} and kr["fleiss_kappa"] is not None
    assert figures["conversation_relevance"]["unit"] == "verdicts"
    assert figures["conversation_relevance"]["units"] == 6 and figures["conversation_relevance"]["split_units"] == 1
    cc = figures["conversation_completeness"]
    assert cc["fleiss_kappa"] == 1.0 and cc["disagreement_rate"] == 0.0


def test_a_judge_that_fails_casts_no_vote(tmp_path):
    with FaultServer(replies=rule_judge) as a, FaultServer(replies=unreadable_retention) as b:
        results = evaluate(ROWS[:1], ["knowledge_retention"], judge=jury(a, b))
    last = {r.sample.id: r.metrics for r in results.samples}["moved:4"]["knowledge_retention"]
    assert last.status == types.OK and last.value == 1 - 1 / 3  # the rule judge's alone
    assert last.details["jury"] == {"rule": 1 - 1 / 3, "lenient": None}
    assert last.details["jury_statuses"]["lenient"] == types.PARSE_ERROR
    assert all(i["jury"]["lenient"] is None for i in last.details["jury_items"]["items"])
