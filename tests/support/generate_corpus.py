"""A small corpus whose multi-hop partners share a rare term, the question the generation server writes about each
document with its answer, and a server that writes items and answers the gates' prompts from that table: the
judged ``genevals generate`` tests' material."""
from __future__ import annotations

import json

from support.gate_judge import GateJudge
from support.generation_server import GenerationServer, first_sentence

HEADS = ("The north boiler holds twelve bar of steam pressure.",
         "Copper gaskets were banned from the pump room in 1994.",
         "Rotor blades of the third turbine crack after cold starts.",
         "Night shifts log every alarm in a paper ledger kept by the foreman.",
         "Ultrasonic probes find corrosion under the paint of old shafts.",
         "Lubricant for the gearbox arrives from Rotterdam each spring.")


INSPECTORS = ("Halvorsen", "Okonkwo", "Tremblay")


def corpus() -> list[dict]:
    """Documents 0 and 1, 2 and 3, 4 and 5 name the same inspector (a rare term: multi-hop partners)."""
    return [{"id": f"doc{d}", "text": f"{head} The crew reviewed it during the audit of {2001 + d}. Inspector "
                                      f"{INSPECTORS[d // 2]} signed finding number {d + 7} afterwards."}
            for d, head in enumerate(HEADS)]


def question(head: str) -> str:
    return f"Is it so that {head[0].lower()}{head[1:-1]}?"


def facts(rows) -> dict:
    """The question the server writes about each document (:func:`question`), with its answer: the first
    sentence, found only where that sentence is shown."""
    return {question(first_sentence(row["text"])): (first_sentence(row["text"]),
                                                      (first_sentence(row["text"]),)) for row in rows}


class Server(GenerationServer):
    """Generation prompts as the generation server answers them; gate prompts by the gate judge."""

    def __init__(self, gates: GateJudge) -> None:
        super().__init__()
        self.gates = gates
        self.replies = self._both

    def _both(self, content: str):
        made = self._reply(content)
        if made is None:
            return self.gates(content)
        try:
            item = json.loads(made)
        except json.JSONDecodeError:
            return made
        if isinstance(item, dict) and "reference" in item:  # a question of its own per first sentence
            item["question"] = question(item["reference"])
        return json.dumps(item)
