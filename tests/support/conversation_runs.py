"""Conversations to score in the engine tests: every conversation has the same number of turns, and each turn's
answer, contexts and references differ, so a result out of place shows."""
from __future__ import annotations

import json
from pathlib import Path

WORDS = ("bridge river ferry harbour tower market castle island valley forest garden station museum chapel mill "
         "lighthouse square canal").split()


def conversation(c: int, turns: int) -> dict:
    messages = []
    for t in range(1, turns + 1):
        a, b = WORDS[(c + t) % len(WORDS)], WORDS[(c * 7 + t * 3) % len(WORDS)]
        messages.append({"role": "user", "content": f"Tell me about the {a} number {c}, part {t}."})
        messages.append({"role": "assistant", "content": f"The {a} {c} stands beside the {b} since {1900 + t}.",
                         "contexts": [f"The {a} {c} stands beside the {b}.", f"It was built in {1900 + t}."],
                         "references": [f"The {a} {c} is near the {b}, built in {1900 + t}."]})
    return {"conversation_id": f"conv{c}", "turns": messages}


def write(path: Path, n: int, turns: int = 3) -> Path:
    """``n`` conversations of ``turns`` turns, as native conversation rows (one row per conversation)."""
    path.write_text("".join(json.dumps(conversation(c, turns)) + "\n" for c in range(n)), encoding="utf-8")
    return path


def write_flat_interleaved(path: Path, n: int, turns: int = 3) -> Path:
    """The same conversations as flat rows (one per exchange, with conversation_id and turn), their turns
    interleaved: every conversation's turn 1, then every turn 2, ..."""
    rows = []
    for t in range(1, turns + 1):
        for c in range(n):
            user, assistant = conversation(c, turns)["turns"][2 * t - 2:2 * t]
            rows.append({"conversation_id": f"conv{c}", "turn": t, "question": user["content"],
                         "answer": assistant["content"], "contexts": assistant["contexts"],
                         "references": assistant["references"]})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def lines(path: Path) -> list[dict]:
    """The whole lines of a results.jsonl (a SIGKILL may leave the last one cut short)."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]


def scheduled(path: Path) -> list[dict]:
    """The units of work an engine logged (genevals.engine.units.SCHEDULE_LOG)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def split_conversations(units: list[dict], turns: int) -> list[tuple[str, dict]]:
    """The (where, conversation -> turns) of each logged unit that holds part of a conversation only."""
    split = []
    for unit in units:
        counts: dict[str, int] = {}
        for _, sample_id in unit["ids"]:
            conversation_id = sample_id.rsplit(":", 1)[0]
            counts[conversation_id] = counts.get(conversation_id, 0) + 1
        partial = {c: k for c, k in counts.items() if k != turns}
        if partial:
            split.append((unit["where"], partial))
    return split
