"""Cases: conversations (issue 38): every input form of a conversation with one thing wrong in it: the ``turns``
form (bad roles, missing or non-text content, non-list turns, contexts and references of the wrong type or on the
wrong turn, DeepEval's test-case turns), ragas' multi-turn samples (``user_input`` as messages, tool messages,
``reference``), flat rows tied by ``conversation_id`` and ordered by ``turn`` (JSONL, CSV with ``--map``,
Parquet: duplicate, out-of-order and malformed turn numbers, ids of the wrong type), a row's own ``history``,
huge and empty conversations, mixed forms and unicode edge cases. Line 2 of each file is the hostile one: a
refusal names the file and line and the turn's field (``turns[1].role``)."""
from __future__ import annotations

import copy
import io
import json

from hostile.cases import ANY, OK, REFUSED, Case, jsonl, run_case

CLS = "conversations"
USER = {"role": "user", "content": "What is the capital of France?"}
BOT = {"role": "assistant", "content": "Paris is the capital of France.",
       "contexts": ["Paris is the capital and largest city of France."], "references": ["Paris"]}
USER2 = {"role": "user", "content": "How many people live there?"}
BOT2 = {"role": "assistant", "content": "About two million people live in Paris.",
        "contexts": ["Paris has about 2.1 million inhabitants."]}
CONV = {"id": "c1", "turns": [USER, BOT, USER2, BOT2]}
RAGAS = {"user_input": [{"content": "What is the capital of France?", "type": "human"},
                        {"content": "Paris is the capital and largest city of France.", "type": "tool"},
                        {"content": "Paris is the capital of France.", "type": "ai"}],
         "reference": "Paris"}
FLAT = ({"conversation_id": "c1", "turn": 1, "question": "What is the capital of France?",
         "answer": "Paris is the capital of France.", "contexts": ["Paris is the capital of France."]},
        {"conversation_id": "c1", "turn": 2, "question": "How many people live there?",
         "answer": "About two million.", "contexts": ["Paris has about 2.1 million inhabitants."]})
#: a value's JSON text, for raw literals the json module cannot write (NaN tokens, huge numbers)
RAW = object()


def _conv(**changes) -> dict:
    """CONV with the turn at each ``turns[i]`` key replaced (None removes it) or the row's key set."""
    row = copy.deepcopy(CONV)
    for key, value in changes.items():
        if key.startswith("t"):
            index = int(key[1:])
            row["turns"][index] = value
        else:
            row[key] = value
    row["turns"] = [t for t in row["turns"] if t is not None]
    return row


def _middle(row_text: str, first: dict = CONV) -> bytes:
    last = {**first, "id": "c3"} if "id" in first else first
    return jsonl(json.dumps({**first, "id": "c0"} if "id" in first else first), row_text, json.dumps(last))


def _case(slug: str, expect: str, row, where=(), *, first: dict = CONV, extra=(), **kw) -> Case:
    text = row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)
    located = ("in.jsonl:2", *where) if where else ()
    return run_case(f"{CLS}-{slug}", CLS, expect, _middle(text, first), where=located,
                    extra=("--no-history", *extra), **kw)


def _turn(index: int, **fields) -> dict:
    """Turn ``index`` of CONV with ``fields`` set (a None value removes the key)."""
    turn = {**CONV["turns"][index], **fields}
    return {k: v for k, v in turn.items() if v is not None}


def _turns_form() -> list[Case]:
    bad_roles = {"bogus": "bot", "null": None, "number": 5, "list": ["user"], "empty": "", "tool": "tool",
                 "object": {"role": "user"}, "function": "function", "bool": True}
    found = [_case(f"role-{slug}", REFUSED, _conv(t1={**BOT, "role": value}), ("turns[1].role",))
             for slug, value in bad_roles.items()]
    found += [
        _case("role-missing", REFUSED, _conv(t1={"content": "Paris."}), ("turns[1].role",)),
        _case("role-upper", OK, _conv(t1={**BOT, "role": "ASSISTANT"})),
        _case("role-padded", OK, _conv(t0={**USER, "role": " user "})),
    ]
    bad_content = {"null": None, "number": 5, "list": ["Paris"], "object": {"text": "Paris"}, "bool": False,
                   "parts": [{"type": "text", "text": "Paris"}]}
    found += [_case(f"content-{slug}", REFUSED, _conv(t1={**BOT, "content": value}), ("turns[1].content",))
              for slug, value in bad_content.items()]
    found += [
        _case("content-missing", REFUSED, _conv(t1={"role": "assistant"}), ("turns[1].content",)),
        _case("user-content-number", REFUSED, _conv(t2={**USER2, "content": 42}), ("turns[2].content",)),
        _case("content-nan", REFUSED, json.dumps(_conv(t1={**BOT, "content": "@@"})).replace('"@@"', "NaN"),
              ("turns[1].content",)),
        _case("content-empty-answer", OK, _conv(t1={**BOT, "content": ""})),
        _case("content-empty-question", OK, _conv(t0={**USER, "content": ""})),
    ]
    not_lists = {"string": "hello", "number": 3, "object": {"role": "user", "content": "x"}, "bool": True}
    found += [_case(f"turns-{slug}", REFUSED, {"id": "c2", "turns": value}, ("turns",))
              for slug, value in not_lists.items()]
    found += [
        _case("turns-empty", REFUSED, {"id": "c2", "turns": []}, ("turns",)),
        _case("turns-null", REFUSED, {"id": "c2", "turns": None}),
        _case("turns-only-user", REFUSED, {"id": "c2", "turns": [USER, USER2]}, ("turns", "no assistant turn")),
        _case("turns-only-system", REFUSED, {"id": "c2", "turns": [{"role": "system", "content": "Be brief."}]},
              ("turns",)),
        _case("turn-string", REFUSED, _conv(t1="Paris."), ("turns[1]",)),
        _case("turn-null", REFUSED, {"id": "c2", "turns": [USER, None]}, ("turns[1]",)),
        _case("turn-list", REFUSED, _conv(t1=["assistant", "Paris."]), ("turns[1]",)),
        _case("turn-number", REFUSED, _conv(t1=7), ("turns[1]",)),
        # a greeting before the user speaks is common in chat logs: scored with an empty question, or refused
        _case("assistant-first", ANY, {"id": "c2", "turns": [BOT, USER2, BOT2]}, ("turns[0]",)),
        _case("two-users-in-a-row", OK, {"id": "c2", "turns": [USER, USER2, BOT2]}),
        _case("two-assistants-in-a-row", ANY, {"id": "c2", "turns": [USER, BOT, BOT2]}, ("turns[2]",)),
        _case("ends-with-user", OK, {"id": "c2", "turns": [USER, BOT, USER2]}),
        _case("system-first", OK, {"id": "c2", "turns": [{"role": "system", "content": "Be brief."}, USER, BOT]}),
        _case("system-contexts", REFUSED, {"id": "c2", "turns": [
            {"role": "system", "content": "Be brief.", "contexts": ["x"]}, USER, BOT]}, ("turns[0].contexts",)),
        _case("user-contexts", REFUSED, _conv(t0={**USER, "contexts": ["x"]}), ("turns[0].contexts",)),
        _case("user-references", REFUSED, _conv(t2={**USER2, "references": ["x"]}), ("turns[2].references",)),
        _case("user-retrieval-context", REFUSED, _conv(t0={**USER, "retrieval_context": ["x"]}),
              ("turns[0].retrieval_context",)),
    ]
    bad_contexts = {"string": "Paris is.", "number": 1, "object": {"a": 1}, "numbers": [1, 2],
                    "nested": [["Paris"]], "bool": True, "null-item": [None]}
    found += [_case(f"contexts-{slug}", REFUSED, _conv(t1=_turn(1, contexts=value)), ("turns[1].contexts",))
              for slug, value in bad_contexts.items()]
    found += [
        _case("contexts-empty", OK, _conv(t1=_turn(1, contexts=[]))),
        _case("references-number", REFUSED, _conv(t1=_turn(1, references=5)), ("turns[1].references",)),
        _case("references-object", REFUSED, _conv(t1=_turn(1, references={"a": 1})), ("turns[1].references",)),
        _case("references-nested", REFUSED, _conv(t1=_turn(1, references=[["Paris"]])), ("turns[1].references",)),
        _case("deepeval-retrieval-context", OK, _conv(t1=_turn(1, contexts=None, retrieval_context=["Paris."]))),
        _case("deepeval-retrieval-context-string", REFUSED,
              _conv(t1=_turn(1, contexts=None, retrieval_context="Paris.")), ("turns[1]",)),
        _case("deepeval-expected-output-number", REFUSED,
              _conv(t1=_turn(1, references=None, expected_output=3)), ("turns[1]",)),
        _case("deepeval-testcases", OK, {"id": "c2", "turns": [
            {"input": "Capital of France?", "actual_output": "Paris.", "retrieval_context": ["Paris is."]},
            {"input": "And of Spain?", "actual_output": "Madrid.", "expected_output": "Madrid"}]}),
        _case("deepeval-output-missing", REFUSED, {"id": "c2", "turns": [{"input": "Capital of France?"}]},
              ("turns[0].actual_output",)),
        _case("deepeval-output-number", REFUSED, {"id": "c2", "turns": [{"input": "Q?", "actual_output": 1}]},
              ("turns[0].actual_output",)),
        _case("deepeval-input-number", REFUSED, {"id": "c2", "turns": [{"input": 1, "actual_output": "A."}]},
              ("turns[0].input",)),
        _case("deepeval-mixed-with-roles", OK, {"id": "c2", "turns": [
            {"input": "Capital of France?", "actual_output": "Paris."}, USER2, BOT2]}),
    ]
    return found


def _sizes_and_text() -> list[Case]:
    long_turns = [t for _ in range(1000) for t in (USER, {"role": "assistant", "content": "Paris."})]
    return [
        _case("two-thousand-turns", OK, {"id": "c2", "turns": long_turns}, limit=40.0),
        _case("one-megabyte-turn", ANY, _conv(t2={**USER2, "content": "word " * 200_000}), ("turns[2]",),
              limit=40.0),
        _case("unicode-rtl-zero-width", OK, _conv(t0={**USER, "content": "\u202ewhat\u200b is \ufeffit?"})),
        _case("unicode-emoji-combining", OK, _conv(t1=_turn(1, content="Paris \U0001f1eb\U0001f1f7 e\u0301"))),
        _case("unicode-nul-in-content", ANY, _conv(t1=_turn(1, content="Par\u0000is")), ("turns[1].content",)),
        _case("unicode-lone-surrogate", ANY, json.dumps(_conv(t1=_turn(1, content="@@"))).replace('"@@"',
              '"\\ud800"'), ("turns[1].content",)),
        _case("unicode-role-lookalike", REFUSED, _conv(t1={**BOT, "role": "\u0430ssistant"}), ("turns[1].role",)),
        _case("id-number", OK, _conv(id=7)),
        _case("id-bool", REFUSED, _conv(id=True), ("id",)),
        _case("id-object", REFUSED, _conv(id={"a": 1}), ("id",)),
        _case("id-huge", REFUSED, json.dumps(_conv(id="@@")).replace('"@@"', "9" * 400),
              ("field 'id'", "at most 100 digits", "400 digits")),
        _case("conversation-id-list", REFUSED, _conv(conversation_id=["c"]), ("conversation_id",)),
        _case("duplicate-conversation-id", ANY, _conv(id="c0"), ("c0",)),
        _case("turns-and-user-input", REFUSED, _conv(user_input=RAGAS["user_input"]),
              ("user_input", "both turns")),
        _case("turns-and-answer", ANY, _conv(answer="Paris.")),
        _case("turns-and-history", ANY, _conv(history=[USER])),
        _case("unknown-field-in-turn", OK, _conv(t1=_turn(1, mood="happy"))),
        _case("line-not-an-object", REFUSED, '[{"role": "user", "content": "hi"}]'),
        _case("turns-cut-short", REFUSED, json.dumps(CONV)[:60]),
    ]


def _ragas_form() -> list[Case]:
    def ragas(*messages, reference="Paris", **extra) -> dict:
        return {"user_input": list(messages), "reference": reference, **extra}

    human, tool = RAGAS["user_input"][0], RAGAS["user_input"][1]
    ai = RAGAS["user_input"][2]
    return [
        _case("ragas-good", OK, RAGAS, first=RAGAS),
        _case("ragas-type-bogus", REFUSED, ragas(human, {**ai, "type": "robot"}), ("user_input[1].type",),
              first=RAGAS),
        _case("ragas-type-missing", REFUSED, ragas(human, {"content": "Paris."}), ("user_input[1].type",),
              first=RAGAS),
        _case("ragas-type-number", REFUSED, ragas(human, {**ai, "type": 2}), ("user_input[1].type",), first=RAGAS),
        _case("ragas-content-missing", REFUSED, ragas(human, {"type": "ai"}), ("user_input[1].content",),
              first=RAGAS),
        _case("ragas-content-list", REFUSED, ragas(human, {**ai, "content": ["Paris"]}),
              ("user_input[1].content",), first=RAGAS),
        _case("ragas-tool-only", REFUSED, ragas(human, tool), ("user_input",), first=RAGAS),
        _case("ragas-tool-content-number", REFUSED, ragas(human, {**tool, "content": 1}, ai),
              ("user_input[1].content",), first=RAGAS),
        _case("ragas-retrieved-contexts-string", REFUSED, ragas(human, tool, {**ai, "retrieved_contexts": "x"}),
              ("user_input[2].retrieved_contexts",), first=RAGAS),
        _case("ragas-reference-number", REFUSED, ragas(human, ai, reference=5), ("references",), first=RAGAS),
        _case("ragas-reference-list", ANY, ragas(human, ai, reference=["Paris", "City of Light"]), first=RAGAS),
        # a list of strings is ragas' single-turn question as a list: no answer
        _case("ragas-strings-not-messages", REFUSED, {"user_input": ["hi", "there"]}, ("answer",), first=RAGAS),
        _case("ragas-mixed-message-and-string", REFUSED, {"user_input": [human, "Paris."]}, ("user_input[1]",),
              first=RAGAS),
        _case("ragas-empty-list", REFUSED, {"user_input": []}, ("user_input", "no assistant turn"), first=RAGAS),
        _case("ragas-tool-calls", OK, ragas(human, {**ai, "tool_calls": [{"name": "search", "args": {}}]}),
              first=RAGAS),
        _case("ragas-role-key", OK, ragas({"role": "human", "content": "Q?"}, {"role": "ai", "content": "A."}),
              first=RAGAS),
    ]


def _flat_lines(*rows) -> bytes:
    return jsonl(*(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows))


def _flat(slug: str, expect: str, second, where=(), line: int = 2, extra=()) -> Case:
    """FLAT's first row, then ``second`` (a row or raw JSON text), as a flat-rows file."""
    located = (f"in.jsonl:{line}", *where) if where else ()
    return run_case(f"{CLS}-flat-{slug}", CLS, expect, _flat_lines(FLAT[0], second), where=located,
                    extra=("--no-history", *extra))


def _flat_form() -> list[Case]:
    second = FLAT[1]
    bad_turns = {"negative": -1, "float": 1.5, "word": "two", "bool": True, "list": [2], "object": {"n": 2},
                 "huge": 10**12, "null": None, "empty": ""}
    found = [_flat(f"turn-{slug}", REFUSED, {**second, "turn": value}, ("turn",))
             for slug, value in bad_turns.items()]
    found += [
        _flat("turn-missing", REFUSED, {k: v for k, v in second.items() if k != "turn"}, ("turn",)),
        _flat("turn-nan", REFUSED, json.dumps({**second, "turn": "@@"}).replace('"@@"', "NaN"), ("turn",)),
        _flat("turn-int400", REFUSED, json.dumps({**second, "turn": "@@"}).replace('"@@"', "1" + "0" * 400),
              ("turn",)),
        _flat("turn-duplicate", REFUSED, {**second, "turn": 1}, ("turn", "in.jsonl:1")),
        _flat("turn-out-of-order", REFUSED, {**second, "turn": 0}, ("turn", "in.jsonl:1")),
        _flat("turn-whole-float", OK, {**second, "turn": 2.0}),
        _flat("turn-text-digit", OK, {**second, "turn": "2"}),
        _flat("turn-zero-first", OK, {**second, "conversation_id": "c2", "turn": 0}),
        _flat("turn-gap", OK, {**second, "turn": 9}),
    ]
    bad_ids = {"bool": True, "float": 1.5, "list": ["c1"], "object": {"c": 1}, "blank": "   "}
    found += [_flat(f"conversation-id-{slug}", REFUSED, {**second, "conversation_id": value}, ("conversation_id",))
              for slug, value in bad_ids.items()]
    found += [
        _flat("conversation-id-empty", ANY, {**second, "conversation_id": ""}, ("conversation_id",)),
        _flat("conversation-id-number", OK, {**second, "conversation_id": 17}),
        _flat("answer-missing", REFUSED, {k: v for k, v in second.items() if k != "answer"}, ("answer",)),
        _flat("answer-number", REFUSED, {**second, "answer": 2}, ("answer",)),
        _flat("question-list", REFUSED, {**second, "question": ["a"]}, ("question",)),
        _flat("history-given", OK, {**second, "conversation_id": "c9", "history": [USER, BOT]}),
        _flat("history-string", REFUSED, {**second, "conversation_id": "c9", "history": "earlier"}, ("history",)),
        _flat("history-bad-role", REFUSED, {**second, "conversation_id": "c9", "history": [{**USER, "role": "x"}]},
              ("history[0].role",)),
        _flat("history-content-number", REFUSED,
              {**second, "conversation_id": "c9", "history": [{**USER, "content": 1}]}, ("history[0].content",)),
        _flat("history-dropped-negative", REFUSED,
              {**second, "conversation_id": "c9", "history": [USER], "history_dropped": -1}, ("history_dropped",)),
        _flat("history-dropped-text", REFUSED,
              {**second, "conversation_id": "c9", "history": [USER], "history_dropped": "many"},
              ("history_dropped",)),
        _flat("mixed-with-plain-row", OK, {"question": "Q?", "answer": "A."}),
        _flat("mixed-with-turns-row", OK, {**CONV, "id": "c5"}),
        # the turns row's first turn is c1:1, as the flat row's
        _flat("turns-row-same-id", REFUSED, CONV, ("duplicate id 'c1:1'", "in.jsonl:1")),
        _flat("other-system-same-turn", OK, {**second, "turn": 1, "system": "other"}),
    ]
    interleaved = _flat_lines(FLAT[0], {**FLAT[0], "conversation_id": "c2"}, FLAT[1],
                              {**FLAT[1], "conversation_id": "c2"})
    found.append(run_case(f"{CLS}-flat-interleaved", CLS, OK, interleaved, extra=("--no-history",)))
    return found


def _csv(rows: list[list[str]]) -> bytes:
    import csv

    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue().encode()


CSV_HEAD = ["conv", "n", "q", "a"]
CSV_MAP = ("--map", "conversation_id=conv", "--map", "turn=n", "--map", "question=q", "--map", "answer=a")


def _csv_case(slug: str, expect: str, second: list[str], where=(), extra=CSV_MAP, head=CSV_HEAD) -> Case:
    content = _csv([head, ["c1", "1", "What is the capital of France?", "Paris."], second])
    located = ("in.csv:3", *where) if where else ()
    return run_case(f"{CLS}-csv-{slug}", CLS, expect, content, name="in.csv", where=located,
                    extra=("--no-history", *extra))


def _parquet(slug: str, expect: str, table: dict, where=()) -> Case:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table(table), sink)
    return run_case(f"{CLS}-parquet-{slug}", CLS, expect, sink.getvalue(), name="in.parquet", where=where,
                    extra=("--no-history",))


def _tables() -> list[Case]:
    import pyarrow as pa

    qs, answers = ["Q one?", "Q two?"], ["A one.", "A two."]
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    return [
        _csv_case("good", OK, ["c1", "2", "And there?", "Yes."]),
        _csv_case("turn-word", REFUSED, ["c1", "two", "And there?", "Yes."], ("n",)),
        _csv_case("turn-empty", REFUSED, ["c1", "", "And there?", "Yes."], ("n",)),
        _csv_case("turn-float", REFUSED, ["c1", "2.5", "And there?", "Yes."], ("n",)),
        _csv_case("turn-duplicate", REFUSED, ["c1", "1", "And there?", "Yes."], ("n", "in.csv:2")),
        _csv_case("turn-negative", REFUSED, ["c1", "-3", "And there?", "Yes."], ("n",)),
        run_case(f"{CLS}-csv-map-to-missing-column", CLS, REFUSED,
                 _csv([CSV_HEAD, ["c1", "1", "Q?", "A."], ["c1", "2", "Q2?", "A2."]]), name="in.csv",
                 where=("in.csv", "--map turn=nosuch", "fields found: conv, n, q, a"),
                 extra=("--no-history", *CSV_MAP[:2], "--map", "turn=nosuch", *CSV_MAP[4:])),
        run_case(f"{CLS}-csv-turns-json", CLS, OK, _csv([["id", "turns"], ["c1", json.dumps(CONV["turns"])]]),
                 name="in.csv", extra=("--no-history",)),
        run_case(f"{CLS}-csv-turns-broken-json", CLS, REFUSED,
                 _csv([["id", "turns"], ["c1", json.dumps(CONV["turns"])], ["c2", '[{"role": "user", "con']]),
                 name="in.csv", where=("in.csv:3", "turns"), extra=("--no-history",)),
        run_case(f"{CLS}-csv-turns-bad-role", CLS, REFUSED,
                 _csv([["id", "turns"], ["c1", json.dumps([USER, {**BOT, "role": "bot"}])]]),
                 name="in.csv", where=("in.csv:2", "turns[1].role"), extra=("--no-history",)),
        _parquet("flat-good", OK, {"conversation_id": ["c1", "c1"], "turn": [1, 2], "question": qs,
                                   "answer": answers}),
        _parquet("turn-nan", REFUSED, {"conversation_id": ["c1", "c1"], "turn": [1.0, float("nan")],
                                       "question": qs, "answer": answers}, ("in.parquet:2", "turn")),
        _parquet("turn-float", REFUSED, {"conversation_id": ["c1", "c1"], "turn": [1.0, 2.5],
                                         "question": qs, "answer": answers}, ("in.parquet:2", "turn")),
        _parquet("turn-duplicate", REFUSED, {"conversation_id": ["c1", "c1"], "turn": [1, 1],
                                             "question": qs, "answer": answers}, ("in.parquet:2", "turn")),
        _parquet("turn-text", OK, {"conversation_id": ["c1", "c1"], "turn": ["1", "2"], "question": qs,
                                   "answer": answers}),
        _parquet("conversation-id-float", REFUSED, {"conversation_id": [1.5, 1.5], "turn": [1, 2], "question": qs,
                                                    "answer": answers}, ("in.parquet:1", "conversation_id")),
        _parquet("turns-structs", OK, {"id": ["c1"], "turns": pa.array(
            [[{"role": "user", "content": "Q?"}, {"role": "assistant", "content": "A."}]], pa.list_(message))}),
        _parquet("turns-bad-role", REFUSED, {"id": ["c1"], "turns": pa.array(
            [[{"role": "user", "content": "Q?"}, {"role": "bot", "content": "A."}]], pa.list_(message))},
                 ("in.parquet:1", "turns[1].role")),
        _parquet("turns-null-content", REFUSED, {"id": ["c1"], "turns": pa.array(
            [[{"role": "user", "content": "Q?"}, {"role": "assistant", "content": None}]], pa.list_(message))},
                 ("in.parquet:1", "turns[1].content")),
        _parquet("turns-strings", REFUSED, {"id": ["c1"], "turns": [["Q?", "A."]]}, ("in.parquet:1", "turns[0]")),
    ]


def cases() -> list[Case]:
    return [*_turns_form(), *_sizes_and_text(), *_ragas_form(), *_flat_form(), *_tables()]
