"""The three conversation judges end to end over HTTP, against the project's fault server on 127.0.0.1 playing a
small rule-based judge: one request per conversation and metric (counted on the server), the value on the
conversation's last turn, a planted retention failure found with its turn and quote, statuses, the cache."""
from __future__ import annotations

import json
import re
from collections import Counter

from support.fault_server import FaultServer

from genevals import types
from genevals.api import evaluate
from genevals.judge.config import JudgeConfig
from genevals import prompt_render
from genevals.output import runfolder

FAMILIES = ["knowledge_retention", "conversation_relevance", "conversation_completeness"]
OPENING = {"You check whether an assistant keeps": "knowledge_retention",
           "You judge whether each assistant turn": "conversation_relevance",
           "You judge whether the assistant fulfilled": "conversation_completeness"}
_TURN = re.compile(r"^(User|Assistant) \(turn (\d+)\): (.*)$", re.M)


def kind_of(content: str) -> str | None:
    return next((family for opening, family in OPENING.items() if content.startswith(opening)), None)


def rule_judge(content: str) -> object:
    """Facts are "I live in X"; a turn that says "you live in Y" with another Y contradicts it; a turn that
    starts "By the way" is off topic; a question is fulfilled unless every later answer says "I cannot"."""
    kind = kind_of(content)
    if kind is None:
        return None
    turns: dict[int, dict[str, str]] = {}
    for who, n, text in _TURN.findall(content.split("Conversation:", 1)[1]):
        turns.setdefault(int(n), {})[who] = text
    if kind == "knowledge_retention":
        facts, failures = [], []
        for n, t in sorted(turns.items()):
            lived = re.search(r"I live in (\w+)", t["User"])
            if lived:
                facts.append({"turn": n, "quote": lived.group(0), "place": lived.group(1)})
            said = re.search(r"[Ss]ince you live in (\w+)", t["Assistant"])
            earlier = [f for f in facts if f["turn"] < n]
            if said and earlier and said.group(1) != earlier[0]["place"]:
                failures.append({"turn": n, "quote": said.group(0), "fact_turn": earlier[0]["turn"],
                                 "fact": earlier[0]["quote"], "kind": "contradicts", "reason": "another place"})
        return {"facts": [{"turn": f["turn"], "quote": f["quote"]} for f in facts], "failures": failures}
    if kind == "conversation_relevance":
        return {"turns": [{"turn": n, "relevant": not t["Assistant"].startswith("By the way"), "reason": "rule"}
                          for n, t in sorted(turns.items())]}
    requests = []
    for n, t in sorted(turns.items()):
        if t["User"].endswith("?"):
            by = next((m for m, u in sorted(turns.items()) if m >= n and "I cannot" not in u["Assistant"]), 0)
            requests.append({"turn": n, "request": t["User"], "quote": t["User"], "fulfilled": bool(by),
                             "fulfilled_in": by, "reason": "rule"})
    return {"requests": requests}


def conversation(cid: str, exchanges: list[tuple[str, str]]) -> dict:
    turns = [{"role": "system", "content": "You are a travel assistant."}]
    for user, assistant in exchanges:
        turns += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
    return {"conversation_id": cid, "turns": turns}


ROWS = [
    conversation("moved", [("Hello! I live in Grabow and I walk a lot.", "Welcome! How can I help?"),
                           ("Which bridge can I walk to?", "The Varnholt Bridge is a short walk from Grabow."),
                           ("How do I get to the market?", "Since you live in Berlin, take the S-Bahn."),
                           ("Thanks. Is it open on Sundays?", "By the way, the weather is fine. I cannot say.")]),
    conversation("kept", [("I live in Grabow. Where can I swim?", "Lake Grabow has a beach."),
                          ("Is it far?", "Since you live in Grabow, it is ten minutes by bike.")]),
    conversation("broken", [("I live in Grabow. FAULTMALFORMED", "Hello."), ("Where?", "Here.")]),
    {"id": "single", "question": "Where is the bridge?", "answer": "Near Grabow."},
]


def judge_config(server: FaultServer, tmp_path, **extra) -> JudgeConfig:
    return JudgeConfig(base_url=server.base_url, model="fault", api_key="sk-test", max_retries=0,
                       cache_dir=str(tmp_path / "cache"), timeout=10, **extra)


def test_one_call_per_conversation_value_on_its_last_turn_and_a_planted_retention_failure(tmp_path):
    with FaultServer(replies=rule_judge) as server:
        results = evaluate(ROWS, FAMILIES, judge=judge_config(server, tmp_path), out_dir=tmp_path / "run")
        sent = [r["body"]["messages"][0]["content"] for r in server.requests if "messages" in r["body"]]
        # one request per conversation and metric: the two turns before a last one cost nothing
        assert Counter(kind_of(c) for c in sent) == Counter({f: 3 for f in FAMILIES})
        # the last turn's request holds the first user turn and the system message
        moved = next(c for c in sent if kind_of(c) == "knowledge_retention" and "Berlin" in c)
        assert "User (turn 1): Hello! I live in Grabow" in moved and "System: You are a travel assistant." in moved
        by_id = {r.sample.id: r.metrics for r in results.samples}

        retention = by_id["moved:4"]["knowledge_retention"]
        assert retention.status == types.OK
        # the user's fact is in turn 1; turns 2-4 are at stake; turn 3 contradicts it
        assert retention.details["turns_at_stake"] == [2, 3, 4] and retention.details["failed_turns"] == [3]
        assert retention.value == 1 - 1 / 3
        (failure,) = retention.details["failures"]
        answer = "Since you live in Berlin, take the S-Bahn."
        assert failure["turn"] == 3 and failure["quote"] == "Since you live in Berlin" and failure["located"]
        assert answer[slice(*failure["spans"][0])] == "Since you live in Berlin"
        assert failure["fact_turn"] == 1 and failure["fact"] == "I live in Grabow"
        assert retention.details["first_failure"] == "turn 3: Since you live in Berlin"
        assert by_id["kept:2"]["knowledge_retention"].value == 1.0

        assert by_id["moved:4"]["conversation_relevance"].value == 0.75
        assert by_id["moved:4"]["conversation_relevance"].details["irrelevant_turns"] == [4]
        completeness = by_id["moved:4"]["conversation_completeness"]
        assert completeness.value == 2 / 3 and completeness.details["unfulfilled"] == [
            "turn 4: Thanks. Is it open on Sundays?"]

        for turn in ("moved:1", "moved:2", "moved:3", "kept:1"):
            for family in FAMILIES:
                result = by_id[turn][family]
                assert result.status == types.NOT_LAST_TURN and result.value is None
        assert by_id["moved:2"]["knowledge_retention"].details["carried_by"] == "moved:4"
        assert "has it on turn 4 (this is turn 2)" in by_id["moved:2"]["knowledge_retention"].reason
        for family in FAMILIES:
            assert by_id["single"][family].status == "not_conversation"
            # an unreadable reply: parse_error with the raw reply kept
            broken = by_id["broken:2"][family]
            assert broken.status == types.PARSE_ERROR and broken.details["transcript"]

        summary = json.loads((tmp_path / "run" / "summary.json").read_text())
        for family in FAMILIES:
            m = summary["systems"]["default"][family]
            # coverage counts conversations: 2 scored, the broken one and the single row unscored; the other
            # turns are counted beside it, in no total
            assert (m["scored"], m["total"], m["statuses"]["not_last_turn"]) == (2, 4, 5)
            assert f"prompt:{prompt_render.prompt_version(family)}" in summary["signatures"][family]

        # the same run again: every reply from the cache
        server.reset_counts()
        again = evaluate(ROWS[:2], FAMILIES, judge=judge_config(server, tmp_path))
        assert server.total == 0
        assert {r.sample.id: r.metrics["knowledge_retention"].value for r in again.samples}["moved:4"] == 1 - 1 / 3


def test_repeats_and_dry_run(tmp_path):
    with FaultServer(replies=rule_judge) as server:
        results = evaluate(ROWS[:1], ["knowledge_retention"], judge=judge_config(server, tmp_path, repeats=3))
        by_id = {r.sample.id: r.metrics for r in results.samples}
        last = by_id["moved:4"]["knowledge_retention"]
        assert last.status == types.OK and last.value == 1 - 1 / 3
        assert by_id["moved:1"]["knowledge_retention"].status == types.NOT_LAST_TURN
        assert sum(1 for r in server.requests if "messages" in r["body"]) == 3  # seeds differ: 3 cache keys
        server.reset_counts()
        dry = evaluate(ROWS[:1], ["knowledge_retention"], judge=judge_config(server, tmp_path, dry_run=True))
        last = {r.sample.id: r.metrics for r in dry.samples}["moved:4"]["knowledge_retention"]
        assert last.status == types.DRY_RUN and server.total == 0


def test_a_budget_that_leaves_every_earlier_turn_out_is_said(tmp_path):
    with FaultServer(replies=rule_judge) as server:
        results = evaluate(ROWS[:1], FAMILIES, judge=judge_config(server, tmp_path), history_tokens=0)
        by_id = {r.sample.id: r.metrics for r in results.samples}
        retention = by_id["moved:4"]["knowledge_retention"]
        assert retention.status == "no_earlier_turns" and "raise --history-tokens" in retention.reason
        relevance = by_id["moved:4"]["conversation_relevance"]  # judged on what it sees, and says so
        assert relevance.details["turns_seen"] == [4] and "less its 7 oldest message(s)" in relevance.details["scope"]
        # the one request sent (relevance's and completeness's) holds the last exchange only
        sent = [r["body"]["messages"][0]["content"] for r in server.requests if "messages" in r["body"]]
        assert len(sent) == 2 and all("Hello!" not in c for c in sent)


def test_a_run_resumed_mid_conversation_places_values_as_the_uninterrupted_one(tmp_path):
    with FaultServer(replies=rule_judge) as server:
        judge = judge_config(server, tmp_path)
        whole = evaluate(ROWS[:2], FAMILIES, judge=judge)
        out = tmp_path / "run"
        evaluate(ROWS[:2], FAMILIES, judge=judge, out_dir=out)
        results = out / "results.jsonl"
        # one line per conversation: the first finished one kept, the other scored on resume
        results.write_text("".join(results.read_text().splitlines(keepends=True)[:1]))
        evaluate(ROWS[:2], FAMILIES, judge=judge, out_dir=out, resume=True)
        lines = [row for _, row in runfolder.iter_rows(results)]
        assert sorted(line["id"] for line in lines) == sorted(r.sample.id for r in whole.samples)
        for line in lines:
            expected = {r.sample.id: r.metrics for r in whole.samples}[line["id"]]
            for family in FAMILIES:
                assert line["metrics"][family]["status"] == expected[family].status
                assert line["metrics"][family]["value"] == expected[family].value


def copied_form(content: str) -> object:
    """What the tiny packaged model does: it copies the reply form of the prompt, "..." and all."""
    if kind_of(content) is None:  # the command line's preflight request
        return None
    form = content.split("Reply with JSON only, in this form:\n", 1)[1].split("\n", 1)[0]
    return json.loads(form)


def test_a_reply_that_copies_the_prompt_s_form_gives_a_status_not_a_number(tmp_path):
    with FaultServer(replies=copied_form) as server:
        results = evaluate(ROWS[:1], FAMILIES, judge=judge_config(server, tmp_path))
        last = {r.sample.id: r.metrics for r in results.samples}["moved:4"]
        assert last["knowledge_retention"].status == "no_facts"
        assert last["knowledge_retention"].details["failures"][0]["located"] is False
        assert last["conversation_completeness"].status == "no_requests"
        relevance = last["conversation_relevance"]  # one verdict, for turn 1 of 4
        assert relevance.status == types.PARSE_ERROR and "but not 2, 3, 4" in relevance.reason


def test_the_judge_error_gate_counts_conversations(tmp_path):
    import subprocess
    import sys

    from conftest import REPO

    with FaultServer(replies=copied_form) as server:
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(REPO / "datasets" / "chat" / "chat.jsonl"),
                               "-m", "conversation_relevance", "--judge-base-url", server.base_url, "--judge-model",
                               "fault", "--judge-option", f"cache_dir={tmp_path / 'cache'}", "--no-history", "-q",
                               "-o", str(tmp_path / "run")], capture_output=True, text=True, timeout=600)
    # two conversations, both unreadable: 2 of 2, not 2 of the 5 turns
    assert "2 of 2 conversation_relevance samples (100%) ended in judge_error or parse_error" in done.stderr
    assert done.returncode == 3, done.stderr
