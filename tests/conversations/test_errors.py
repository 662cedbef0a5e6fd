"""A conversation that cannot be read is refused in a real process with exit 2, no traceback, and a message that
names the file, the line, the turn and the field (issue 38)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conversations import forms
from genevals.output import runfolder


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)


def refused(tmp_path, rows, *want):
    data = forms.write_jsonl(tmp_path / "in.jsonl", rows)
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", "token_f1", "--no-history")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    for part in want:
        assert part in done.stderr, done.stderr
    return done.stderr


USER = {"role": "user", "content": "Where is it?"}
ASSISTANT = {"role": "assistant", "content": "Here.", "contexts": ["It is here."]}


@pytest.mark.parametrize("turns, where, words", [
    ([USER, {"role": "asistant", "content": "Here."}], "turns[1].role", ["'asistant'", "did you mean 'assistant'"]),
    ([USER, {"role": "assistant"}], "turns[1].content", ["got nothing"]),
    ([USER, {"content": "Here."}], "turns[1].role", ["missing role"]),
    ([{**USER, "contexts": ["x"]}, ASSISTANT], "turns[0].contexts", ["belong to the assistant turn"]),
    ([USER, {**ASSISTANT, "contexts": [{"txt": "x"}]}], "turns[1].contexts[0]", ["needs its text"]),
    ([USER, "Here."], "turns[1]", ["expected a turn object"]),
    ([USER], "turns", ["conversation 'c1' has no assistant turn", "roles: user"]),
    ([], "turns", ["no assistant turn", "roles: none"]),
])
def test_a_bad_turn_is_named(tmp_path, turns, where, words):
    good = {"conversation_id": "ok", "turns": [USER, ASSISTANT]}
    refused(tmp_path, [good, {"conversation_id": "c1", "turns": turns}], f"in.jsonl:2: field '{where}'", *words)


def test_a_bad_ragas_message_is_named(tmp_path):
    rows = [{"user_input": [{"content": "Hi", "type": "human"}, {"content": "Hello", "type": "robot"}]}]
    refused(tmp_path, rows, "in.jsonl:1: field 'user_input[1].type'", "'robot'")


def test_flat_turns_out_of_order_name_both_lines(tmp_path):
    rows = [{"conversation_id": "c1", "turn": 2, "question": "b", "answer": "B"},
            {"conversation_id": "c1", "turn": 1, "question": "a", "answer": "A"}]
    refused(tmp_path, rows, "in.jsonl:2: field 'turn'", "turn 1 of conversation 'c1' comes after turn 2",
            "in.jsonl:1", "in turn order")


@pytest.mark.parametrize("turn, words", [("two", "expected a turn number"), (-1, "from 0"), (True, "got bool")])
def test_a_bad_turn_number_is_named(tmp_path, turn, words):
    refused(tmp_path, [{"conversation_id": "c1", "turn": turn, "question": "a", "answer": "A"}],
            "in.jsonl:1: field 'turn'", words)


def test_a_flat_row_without_its_turn_is_named(tmp_path):
    refused(tmp_path, [{"conversation_id": "c1", "question": "a", "answer": "A"}], "in.jsonl:1: field 'turn'",
            "needs its turn number")


def test_a_bad_history_message_is_named(tmp_path):
    rows = [{"question": "a", "answer": "A", "history": [{"role": "user", "content": "x"}, {"role": "bot"}]}]
    refused(tmp_path, rows, "in.jsonl:1: field 'history[1].content'")


def test_a_valid_file_next_to_them_still_runs(tmp_path):
    data = forms.native(tmp_path / "in.jsonl")
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", "token_f1", "--no-history")
    assert done.returncode == 0, done.stderr
    lines = [row for _, row in runfolder.iter_rows(tmp_path / "out")]  # one line per conversation, read per turn
    assert len(lines) == 5


@pytest.mark.parametrize("extra, field", [({"answer": "Here."}, "answer"), ({"response": "Here."}, "answer"),
                                          ({"question": "Where?"}, "question"),
                                          ({"retrieved_contexts": ["It is here."]}, "contexts")])
def test_a_row_level_answer_beside_turns_is_refused_not_dropped(tmp_path, extra, field):
    """The turns carry each question, answer and retrieval; a row-level one would be ignored without a word."""
    refused(tmp_path, [{"conversation_id": "c1", "turns": [USER, ASSISTANT], **extra}],
            f"in.jsonl:1: field '{field}'", "which would be ignored")


def test_deepevals_conversation_wide_context_is_still_read(tmp_path):
    data = forms.write_jsonl(tmp_path / "in.jsonl", [{"conversation_id": "c1", "turns": [USER, ASSISTANT],
                                                     "context": ["Background."]}])
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", "token_f1", "--no-history")
    assert "which would be ignored" not in done.stderr and "Traceback" not in done.stderr
