"""llm_rubric reads a conversation's earlier turns (issue 38), in real processes against the project's fault
server on 127.0.0.1: the third turn's rubric request holds the first user turn, before the question; a turn
without history (a single answer, a conversation's first turn) sends the request it sent before conversations
were judged, byte for byte (digests taken from the code before this change), and the prompt hash is unchanged."""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

from conversations import forms
from support.fault_server import FaultServer
from support.rag_judge import honest_judge

from genevals import prompt_render
from genevals.output import runfolder

FIRST_USER_TURN = "Where is the Varnholt Bridge?"
THIRD_ANSWER = "It takes about ten minutes on foot."
CONTEXT = "It takes about ten minutes on foot to cross the Varnholt Bridge."
#: single answers (no history), two systems on one question
ROWS_SINGLE = [{"id": "q1", "system": system, "question": "How long does it take to cross it?", "answer": answer,
                "contexts": [CONTEXT]}
               for system, answer in (("x", THIRD_ANSWER), ("y", "Ten minutes."))]
#: sha256 of each judging request's JSON body (sorted keys) for ROWS_SINGLE, sent by genevals before this change
#: (main at a9f9527), llm_rubric and pairwise; see digest()
BEFORE = {"llm_rubric": ["10fe6ffaa8149b1894122c1d1da320f1d51335729c1cf71fe33b2de6dcf2401c",
                         "bdf123cdacafd720cf6063fcb8cb1358298d23668cc9849d2bcdff68d70633bf"],
          "pairwise": ["2eb368decc1f57f6a7d2e5e834e451958fe717f902557f89b45876e1c3436506",
                       "361bc02c48e05fbf3a2d7aa94ff21d4d210221ada145994726bdeb92601f961e"]}


def replies(content: str) -> object:
    """Every rubric criterion scored 4; the other prompts (pairwise) as the honest judge answers them."""
    if content.startswith("You grade an answer"):
        criteria = re.findall(r"^- (\w+): ", content.split("Criteria:", 1)[1].split("Score each", 1)[0], re.M)
        return {"scores": {c: {"reason": "fine", "score": 4} for c in criteria}}
    return honest_judge(content)


def judging(requests) -> list[dict]:
    return [r for r in requests if not prompt(r).startswith("Reply with the single word")]  # not the preflight


def sent(body: dict) -> dict:
    """A request's body without ``stream``: how the reply travels, not what is asked (a judge server on this machine
    gets streamed replies since issue 52, point 6: genevals.judge.local)."""
    return {k: v for k, v in body.items() if k != "stream"}


def digest(requests) -> dict[str, list[str]]:
    """family -> the sorted sha256 digests of its requests' bodies."""
    out: dict[str, list[str]] = {}
    for r in judging(requests):
        family = "llm_rubric" if prompt(r).startswith("You grade an answer") else "pairwise"
        out.setdefault(family, []).append(hashlib.sha256(json.dumps(sent(r["body"]), sort_keys=True).encode()).hexdigest())
    return {k: sorted(v) for k, v in out.items()}


def prompt(request) -> str:
    return request["body"]["messages"][0]["content"]


def genevals_run(source, out, metrics="llm_rubric", server=None, *extra):
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(source), "-o", str(out), "-q", "-m", metrics,
                           "--no-history", "--judge-base-url", server.base_url, "--judge-model", "judge",
                           "--no-judge-cache", *extra], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return {(r["id"], r.get("system")): r for _, r in runfolder.iter_rows(out)}  # one line per conversation


def test_the_third_turn_rubric_request_holds_the_first_user_turn(tmp_path):
    with FaultServer(replies=replies) as server:
        rows = genevals_run(forms.native(tmp_path / "in.jsonl"), tmp_path / "out", server=server)
    requests = judging(server.requests)
    assert len(requests) == 5  # one per assistant turn of the two conversations
    third = [r for r in requests if THIRD_ANSWER in prompt(r)]
    assert len(third) == 1
    text = prompt(third[0])
    assert "Conversation so far" in text and f"User: {FIRST_USER_TURN}" in text
    assert text.index(FIRST_USER_TURN) < text.index("Question: How long")  # read before the question
    # first turns have no earlier turn: no block
    assert sum("Conversation so far" not in prompt(r) for r in requests) == 2
    assert next(r for (i, _), r in rows.items() if i == "c1:3")["metrics"]["rubric_coherence"]["value"] == 0.75


def test_a_turn_without_history_sends_the_request_it_sent_before(tmp_path):
    source = forms.write_jsonl(tmp_path / "in.jsonl", ROWS_SINGLE)
    with FaultServer(replies=replies) as server:
        rows = genevals_run(source, tmp_path / "out", server=server)
    assert digest(server.requests) == {"llm_rubric": BEFORE["llm_rubric"]}
    assert all("Conversation so far" not in prompt(r) for r in server.requests)
    signature = json.loads((tmp_path / "out" / "summary.json").read_text())["signatures"]["llm_rubric"]
    assert prompt_render.prompt_version("rubric") in signature
    assert rows["q1", "x"]["metrics"]["rubric_coverage"]["status"] == "ok"


def test_the_history_is_in_the_cache_key(tmp_path):
    """The third turn, judged with its history, and the same exchange as a single answer: two cache keys, so the
    single answer is asked anew; asked again, both come from the cache."""
    question, answer, contexts, _ = forms.CONVERSATIONS[0][1][2]
    single = forms.write_jsonl(tmp_path / "single.jsonl", [{"id": "q", "question": question, "answer": answer,
                                                              "contexts": contexts}])
    conversation = forms.native(tmp_path / "in.jsonl")
    cache = ["--judge-cache", str(tmp_path / "cache")]
    with FaultServer(replies=replies) as server:
        for n, source in enumerate((conversation, single)):
            cached_run(source, tmp_path / f"out{n}", server, cache)
        asked = [prompt(r) for r in judging(server.requests) if THIRD_ANSWER in prompt(r)]
        assert len(asked) == 2 and sum("Conversation so far" in p for p in asked) == 1
        server.reset_counts()
        for n, source in enumerate((conversation, single)):
            cached_run(source, tmp_path / f"again{n}", server, cache)
        assert not judging(server.requests)


def cached_run(source, out, server, cache):
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(source), "-o", str(out), "-q", "-m",
                           "llm_rubric", "--no-history", "--judge-base-url", server.base_url, "--judge-model", "judge",
                           *cache], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
