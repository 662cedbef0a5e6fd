"""The gates of `genevals generate`: each generated item is checked by separate computations and judge calls,
each with a named status and a reason, before it is kept (docs/generate-gates.md describes each).

    context.py     GateContext (chunks, judge, language, earlier sets, BM25 index) and GateSettings
    pipeline.py    run_gates / run_gates_async: the gates in their fixed order, stopping at the first rejection
    outcome.py     Outcome (status, reason), NOT_CHECKED, JUDGE_ERROR
    shape.py       type_mismatch                 grounding.py   ungrounded_reference (quotes located, offsets)
    standalone.py  not_self_contained (+ standalone.json, the phrase tables)
    language.py    wrong_language                duplicates.py  duplicate (exact hash, rapidfuzz near)
    judged.py      one judge call: the item and passages as JSON data, the reply read
    supported.py   reference_not_supported       multihop.py    not_multihop
    solving.py     unanswerable_from_source, accidentally_answerable, answerable_without_context (a flag)
    agreement.py   token F1 agreement of a solver's answer with the reference
    retrieval.py   BM25 (bm25s) over every chunk of the corpus
"""
from __future__ import annotations

from genevals.generate.gates.context import GateContext, GateSettings
from genevals.generate.gates.outcome import JUDGE_ERROR, NOT_CHECKED, Outcome
from genevals.generate.gates.pipeline import ORDER, run_gates, run_gates_async

__all__ = ["JUDGE_ERROR", "NOT_CHECKED", "ORDER", "GateContext", "GateSettings", "Outcome", "run_gates",
           "run_gates_async"]
