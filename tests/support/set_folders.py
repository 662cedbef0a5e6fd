"""Set folders as ``genevals generate`` writes them (testset.jsonl, rejected.jsonl, card.json), written by hand
for the review tests: known items, so each figure can be checked against a hand calculation."""
from __future__ import annotations

import json
from pathlib import Path

CHUNK = "The Cranfield tests measured retrieval in 1960. They used 1400 abstracts."


def kept_row(n: int) -> dict:
    quote = "They used 1400 abstracts."
    start = CHUNK.index(quote)
    return {"id": f"g{n:05d}", "question": f"How many abstracts were used (item {n})?", "answer": "",
            "references": ["1400"], "relevant": {"d1#0": 1},
            "metadata": {"type": "factoid", "persona": "", "style": "", "length": "", "expect_refusal": False,
                         "reference_contexts": [{"doc_id": "d1", "chunk_id": "d1#0", "start": 0, "end": len(CHUNK),
                                                 "text": CHUNK}],
                         "evidence": [{"chunk_id": "d1#0", "quote": quote, "start": start, "end": start + len(quote)}],
                         "turns": [], "gates": {"ungrounded_reference": "passed", "duplicate": "passed"},
                         "gate_reasons": {"ungrounded_reference": "the quote is in the chunk"}, "provenance": {}}}


def rejected_row(n: int) -> dict:
    return {"id": f"g{n:05d}", "type": "factoid", "question": f"What year (item {n})?", "reference": "1961",
            "chunks": ["d1#0"], "evidence": [], "language": "", "persona": "", "style": "", "length": "",
            "expect_refusal": False, "turns": [], "gates": {"ungrounded_reference": "ungrounded_reference"},
            "provenance": {}, "gate_reasons": {"ungrounded_reference": "1961 is not in the chunk"},
            "rejection": "ungrounded_reference"}


def write_set(folder: Path, kept: int, rejected: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "testset.jsonl").write_text("".join(json.dumps(kept_row(n)) + "\n" for n in range(kept)))
    (folder / "rejected.jsonl").write_text(
        "".join(json.dumps(rejected_row(kept + n)) + "\n" for n in range(rejected)))
    (folder / "card.json").write_text(json.dumps({"tool": "genevals generate", "kept": kept}, indent=2))
    return folder
