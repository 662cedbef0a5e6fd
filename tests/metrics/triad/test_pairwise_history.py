"""pairwise reads a conversation's earlier turns (issue 38), in real processes against the project's fault server
on 127.0.0.1: both orders of the third turn's comparison hold the first user turn, before the question (one block
when both systems said the same before, else each answer's own conversation); a turn without history sends the
requests it sent before conversations were judged, byte for byte, and the prompt hash is unchanged."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from conversations import forms
from support.fault_server import FaultServer
from support.rag_judge import honest_judge

from genevals import prompt_render
from genevals.output import runfolder

FIRST_USER_TURN = "Where is the Varnholt Bridge?"
QUESTIONS = [FIRST_USER_TURN, "When did it open?", "How long does it take to cross it?"]
#: each system's answers, turn by turn: x and y said the same until turn 3; z said other things before
ANSWERS = {"x": ["It spans the river Elde.", "It opened in 1931.", "About ten minutes on foot."],
           "y": ["It spans the river Elde.", "It opened in 1931.", "Ten minutes."],
           "z": ["On the Elde, near Grabow.", "In 1931, after two years of work.", "Ten minutes on foot."]}
CONTEXT = "It takes about ten minutes on foot to cross the Varnholt Bridge."
#: single answers (no history), two systems on one question
ROWS_SINGLE = [{"id": "q1", "system": system, "question": QUESTIONS[2], "answer": answer, "contexts": [CONTEXT]}
               for system, answer in (("x", "It takes about ten minutes on foot."), ("y", "Ten minutes."))]
#: sha256 of each pairwise request's JSON body (sorted keys) for ROWS_SINGLE, as genevals sent them before this
#: change (main at a9f9527)
BEFORE = ["2eb368decc1f57f6a7d2e5e834e451958fe717f902557f89b45876e1c3436506",
          "361bc02c48e05fbf3a2d7aa94ff21d4d210221ada145994726bdeb92601f961e"]


def prompt(request) -> str:
    return request["body"]["messages"][0]["content"]


def judging(requests) -> list[dict]:
    return [r for r in requests if not prompt(r).startswith("Reply with the single word")]  # not the preflight


def conversations(path, systems):
    rows = []
    for system in systems:
        turns = []
        for question, answer in zip(QUESTIONS, ANSWERS[system]):
            turns += [{"role": "user", "content": question},
                      {"role": "assistant", "content": answer, "contexts": [CONTEXT]}]
        rows.append({"conversation_id": "c1", "system": system, "turns": turns})
    return forms.write_jsonl(path, rows)


def genevals_run(source, out, server):
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(source), "-o", str(out), "-q", "-m",
                           "pairwise", "--no-history", "--judge-base-url", server.base_url, "--judge-model", "judge",
                           "--no-judge-cache"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return {(r["id"], r["system"]): r["metrics"]["pairwise"]
            for _, r in runfolder.iter_rows(out)}  # one line per conversation, read per turn


def third(requests, answer):
    found = [r for r in judging(requests) if f'"""{answer}"""' in prompt(r) and "How long" in prompt(r)]
    assert len(found) == 2  # both orders
    return found


def test_both_orders_of_the_third_turn_hold_the_first_user_turn(tmp_path):
    with FaultServer(replies=honest_judge) as server:
        rows = genevals_run(conversations(tmp_path / "in.jsonl", "xy"), tmp_path / "out", server)
    assert len(judging(server.requests)) == 6  # 3 turns x 2 orders
    for request in third(server.requests, ANSWERS["x"][2]):
        text = prompt(request)
        # the same earlier turns for both systems: one block
        assert text.count("Conversation so far") == 1 and "Before answer A:" not in text
        assert f"User: {FIRST_USER_TURN}" in text and text.index(FIRST_USER_TURN) < text.index("Question: How long")
    first = [r for r in judging(server.requests) if "Question: Where is" in prompt(r)]
    assert len(first) == 2 and all("Conversation so far" not in prompt(r) for r in first)
    assert rows["c1:3", "x"]["value"] == 1.0 and rows["c1:1", "x"]["value"] == 0.5  # the longer answer wins


def test_systems_that_said_different_things_before_are_each_read_in_their_own_conversation(tmp_path):
    with FaultServer(replies=honest_judge) as server:
        genevals_run(conversations(tmp_path / "in.jsonl", "xz"), tmp_path / "out", server)
    for request in third(server.requests, ANSWERS["x"][2]):
        text = prompt(request)
        a, b = text.split("Before answer A:", 1)[1].split("\nQuestion:", 1)[0].split("Before answer B:", 1)
        mine, theirs = (a, b) if f'Answer A: """{ANSWERS["x"][2]}"""' in text else (b, a)
        assert f"Assistant: {ANSWERS['x'][0]}" in mine and f"Assistant: {ANSWERS['z'][0]}" in theirs
        assert mine.count(f"User: {FIRST_USER_TURN}") == 1 and text.index("Before answer B:") < text.index("Question:")


def test_a_turn_without_history_sends_the_requests_it_sent_before(tmp_path):
    with FaultServer(replies=honest_judge) as server:
        genevals_run(forms.write_jsonl(tmp_path / "in.jsonl", ROWS_SINGLE), tmp_path / "out", server)
    # without ``stream``: how the reply travels (a judge server on this machine streams: genevals.judge.local)
    sent = sorted(hashlib.sha256(json.dumps({k: v for k, v in r["body"].items() if k != "stream"},
                                            sort_keys=True).encode()).hexdigest()
                  for r in judging(server.requests))
    assert sent == BEFORE
    signature = json.loads((tmp_path / "out" / "summary.json").read_text())["signatures"]["pairwise"]
    assert prompt_render.prompt_version("pairwise") in signature
