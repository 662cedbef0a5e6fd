"""The judges see a turn's history (issue 38): a 3-turn conversation's third-turn judge requests, as a real
OpenAI-compatible server on 127.0.0.1 receives them, hold the first user turn; a single answer's requests are
what they were (no conversation block, no ``from_history`` label)."""
from __future__ import annotations

import json
import subprocess
import sys

from conversations import forms
from support.fault_server import FaultServer
from support.rag_judge import honest_judge
from genevals.output import runfolder

FIRST_USER_TURN = "Where is the Varnholt Bridge?"
THIRD_ANSWER = "It takes about ten minutes on foot."


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)


def judged(tmp_path, data, server, metrics="faithfulness,answer_relevance"):
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", metrics, "--no-history",
                    "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache")
    assert done.returncode == 0, done.stderr
    return [row for _, row in runfolder.iter_rows(tmp_path / "out")]  # one line per conversation, read per turn


def prompt(request) -> str:
    return request["body"]["messages"][0]["content"]


def test_the_third_turn_requests_hold_the_first_user_turn(tmp_path):
    with FaultServer(replies=honest_judge) as server:
        lines = judged(tmp_path, forms.native(tmp_path / "in.jsonl"), server)
    third = [r for r in server.requests if THIRD_ANSWER.rstrip(".") in prompt(r)]
    kinds = sorted(r["kind"] for r in third)
    assert kinds == ["decompose", "other", "verify"], kinds  # faithfulness' two calls and answer relevance
    for request in third:
        text = prompt(request)
        assert "Conversation so far" in text and f"User: {FIRST_USER_TURN}" in text
        # the history comes before the question (or the passages), so the judge reads it first
        anchor = "Context passages:" if request["kind"] == "verify" else "Question: How long"
        assert text.index(FIRST_USER_TURN) < text.index(anchor)
    verify = next(r for r in third if r["kind"] == "verify")
    enum = verify["body"]["response_format"]["json_schema"]["schema"]["properties"]["verdicts"]["items"][
        "properties"]["label"]["enum"]
    assert "from_history" in enum
    # 5 turns, 3 requests each; the first turns of the two conversations have no history
    judging = [r for r in server.requests if not prompt(r).startswith("Reply with the single word")]  # preflight
    without = [r for r in judging if "Conversation so far" not in prompt(r)]
    assert len(judging) == 15 and len(without) == 6
    by_id = {line["id"]: line for line in lines}
    assert by_id["c1:3"]["metrics"]["faithfulness"]["value"] == 1.0


def test_a_single_answer_prompt_is_unchanged(tmp_path):
    rows = [{"id": "1", "question": "How long does it take to cross it?", "answer": THIRD_ANSWER,
             "contexts": ["It takes about ten minutes on foot to cross the Varnholt Bridge."]}]
    with FaultServer(replies=honest_judge) as server:
        judged(tmp_path, forms.write_jsonl(tmp_path / "in.jsonl", rows), server)
    assert server.requests
    for request in server.requests:
        assert "Conversation so far" not in prompt(request)
        assert "from_history" not in json.dumps(request["body"])
