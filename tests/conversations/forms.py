"""The same two conversations written in every input form genevals reads, for the tests of this folder."""
from __future__ import annotations

import csv
import json
from pathlib import Path

#: (conversation id, [(question, answer, contexts, references)]) in turn order
CONVERSATIONS = [
    ("c1", [("Where is the Varnholt Bridge?", "The Varnholt Bridge spans the river Elde.",
             ["The Varnholt Bridge spans the river Elde near Grabow."], []),
            ("When did it open?", "It opened in 1931.", ["The Varnholt Bridge opened in 1931."], ["In 1931."]),
            ("How long does it take to cross it?", "It takes about ten minutes on foot.",
             ["It takes about ten minutes on foot to cross the Varnholt Bridge."], ["Ten minutes on foot."])]),
    ("c2", [("What is polonium?", "Polonium is a chemical element.", ["Polonium is a chemical element."],
             ["A chemical element."]),
            ("Who discovered it?", "Marie Curie discovered polonium.", ["Marie Curie discovered polonium in 1898."],
             ["Marie Curie."])]),
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def native(path: Path) -> Path:
    rows = []
    for cid, exchanges in CONVERSATIONS:
        turns = []
        for question, answer, contexts, references in exchanges:
            turns.append({"role": "user", "content": question})
            turns.append({"role": "assistant", "content": answer, "contexts": contexts,
                          **({"references": references} if references else {})})
        rows.append({"conversation_id": cid, "turns": turns})
    return write_jsonl(path, rows)


def deepeval(path: Path) -> Path:
    """DeepEval's ConversationalTestCase as ``model_dump()`` writes it: Turns with ``retrieval_context``."""
    rows = []
    for cid, exchanges in CONVERSATIONS:
        turns = []
        for question, answer, contexts, references in exchanges:
            turns.append({"role": "user", "content": question, "retrieval_context": None})
            turns.append({"role": "assistant", "content": answer, "retrieval_context": contexts,
                          **({"expected_output": references} if references else {})})
        rows.append({"name": cid, "conversation_id": cid, "turns": turns, "chatbot_role": "a tour guide"})
    return write_jsonl(path, rows)


def deepeval_test_cases(path: Path) -> Path:
    """DeepEval's older conversational form: a list of LLMTestCases."""
    rows = [{"conversation_id": cid, "turns": [
        {"input": q, "actual_output": a, "retrieval_context": c, **({"expected_output": r} if r else {})}
        for q, a, c, r in exchanges]} for cid, exchanges in CONVERSATIONS]
    return write_jsonl(path, rows)


def ragas(path: Path) -> Path:
    """ragas' MultiTurnSample: tool messages carry what retrieval returned; ``reference`` is the last turn's."""
    rows = []
    for cid, exchanges in CONVERSATIONS:
        messages = []
        for question, answer, contexts, references in exchanges[:-1]:
            messages.append({"content": question, "type": "human"})
            messages += [{"content": c, "type": "tool"} for c in contexts]
            messages.append({"content": answer, "type": "ai", **({"references": references} if references else {})})
        question, answer, contexts, references = exchanges[-1]
        messages += [{"content": question, "type": "human"}, *({"content": c, "type": "tool"} for c in contexts),
                     {"content": answer, "type": "ai"}]
        rows.append({"conversation_id": cid, "user_input": messages, "reference": references[0]})
    return write_jsonl(path, rows)


def flat_rows() -> list[dict]:
    """One row per exchange, the conversations interleaved (rows are grouped by conversation_id)."""
    rows = []
    for turn in range(3):
        for cid, exchanges in CONVERSATIONS:
            if turn < len(exchanges):
                q, a, c, r = exchanges[turn]
                rows.append({"conversation_id": cid, "turn": turn + 1, "question": q, "answer": a, "contexts": c,
                             "references": r})
    return rows


def flat_jsonl(path: Path) -> Path:
    return write_jsonl(path, flat_rows())


def flat_csv(path: Path) -> Path:
    """Flat rows in a CSV with its own column names (read with --map)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["session", "n", "prompt", "output", "chunks", "gold"])
        for r in flat_rows():
            out.writerow([r["conversation_id"], r["turn"], r["question"], r["answer"], json.dumps(r["contexts"]),
                          json.dumps(r["references"])])
    return path


FLAT_CSV_MAP = ("conversation_id=session", "turn=n", "question=prompt", "answer=output", "contexts=chunks",
                "references=gold")
