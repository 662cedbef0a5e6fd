"""Answers with planted hallucinations the offline grounding checker gets right, and labels exports of them
(the rows ``genevals review export`` writes), for the agreement gate's tests."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PLACES = ["Pier 4", "the north gate", "Platform 2", "the old harbour", "Dock 7", "the main square"]
THINGS = ["ferry", "bus", "tram", "shuttle", "train", "coach"]


def rows(n: int = 30) -> list[dict[str, Any]]:
    """``n`` answers: even ids repeat their context's time and place, odd ids change the hour (hallucinated)."""
    out = []
    for i in range(n):
        thing, place, hour = THINGS[i % len(THINGS)], PLACES[(i // 2) % len(PLACES)], 5 + i % 6
        context = f"The {thing} leaves at {hour} am every day from {place}."
        said = hour if i % 2 == 0 else hour + 3
        out.append({"id": f"s{i}", "question": f"When does the {thing} leave?",
                    "answer": f"The {thing} leaves at {said} am from {place}.", "contexts": [context]})
    return out


def labels(data: list[dict[str, Any]], flip: int = 0, system: str = "default") -> list[dict[str, Any]]:
    """The labels export of ``data``: hallucinated for the odd ids, the first ``flip`` labels turned over."""
    out = []
    for i, row in enumerate(data):
        hallucinated = int(row["id"][1:]) % 2 == 1
        out.append({"id": row["id"], "model": system, "question": row["question"], "context": row["contexts"],
                    "response": row["answer"], "hallucinated": hallucinated != (i < flip), "spans": [],
                    "source": f"review of results.jsonl line {i + 1}"})
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
