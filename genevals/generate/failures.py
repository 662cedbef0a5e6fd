"""A generation's judge calls, each with its status, for the count ``genevals run`` keeps of a run's
(:class:`~genevals.engine.failures.JudgeFailures`, which the command line feeds), so the run lifecycle's rule
decides exit 3 for both: a judge that failed on more than ``--max-judge-errors`` of its calls has checked nothing,
whatever the kept count says.

Two kinds of call are counted, each its own family:

- ``generator``: every attempt whose generation call was sent (a slot the generator cannot fill sends none). A
  call that failed after the client's retries is ``judge_error``; a reply that gave no item (off the schema, cut
  short, citing chunks it was not given) is ``parse_error``.
- each judge gate (:data:`~genevals.generate.gates.pipeline.APPLIES`): an item the gate ran on is judged by it;
  its ``judge_error`` status counts as an error. A gate that said ``not_checked`` (no judge) sent nothing.

share = max over the families of errors / calls sent, the run's share as :mod:`genevals.engine.failures` defines
it.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from genevals import types
from genevals.generate.gates.outcome import JUDGE_ERROR, NOT_CHECKED
from genevals.generate.gates.pipeline import APPLIES
from genevals.generate.items import Item
from genevals.generate.llm import CALL_FAILED, FAILED, GATE

GENERATOR = "generator"


def calls(items: Iterable[Item]) -> Iterator[tuple[str, str, str | None]]:
    """(family, status, reason) of each judge call ``items`` (every attempt: kept and rejected) sent; the status
    ``ok``, ``judge_error`` or ``parse_error``."""
    for item in items:
        made = item.provenance
        if made.get("generator") == "llm" and "request_seed" in made:  # the call was sent
            if item.gates.get(GATE) == FAILED:
                reason = str(made.get("reason", ""))
                status = types.JUDGE_ERROR if reason.startswith(CALL_FAILED) else types.PARSE_ERROR
                yield GENERATOR, status, reason
            else:
                yield GENERATOR, types.OK, None
        for name in APPLIES:
            status = item.gates.get(name)
            if status is None or status == NOT_CHECKED:
                continue
            if status == JUDGE_ERROR:
                yield name, types.JUDGE_ERROR, item.gate_reasons.get(name)
            else:
                yield name, types.OK, None
