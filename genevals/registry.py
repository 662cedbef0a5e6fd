"""Metric name -> metric class, imported lazily so heavy libraries (torch, openai) load only when used.

A name on the command line is a family ("rouge", "retrieval") or one of its outputs ("rougeL", "recall@5").
Asking for an output builds its family and keeps only the outputs asked for.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any, Mapping

from genevals.metrics.base import Metric

FAMILIES: dict[str, str] = {
    "exact_match": "genevals.metrics.squad:ExactMatch",
    "token_f1": "genevals.metrics.squad:TokenF1",
    "rouge": "genevals.metrics.rouge:Rouge",
    "bleu": "genevals.metrics.bleu:Bleu",
    "retrieval": "genevals.metrics.retrieval:Retrieval",
    "bertscore": "genevals.metrics.semantic:BertScore",
    "faithfulness": "genevals.metrics.faithfulness:Faithfulness",
    "llm_rubric": "genevals.metrics.rubric:Rubric",
}
DEFAULT_METRICS = ("exact_match", "token_f1", "rouge", "bleu", "retrieval")
# Slow, paid LLM calls: written in small chunks.
JUDGE_FAMILIES = frozenset({"faithfulness", "llm_rubric", "cascade"})
# Cheap, picklable, CPU-bound: these may be spread over worker processes.
PROCESS_PARALLEL = frozenset({"exact_match", "token_f1", "rouge", "bleu", "retrieval"})

_OUTPUT_TO_FAMILY = {
    "rouge1": "rouge", "rouge2": "rouge", "rougeL": "rouge",
    "bertscore_precision": "bertscore", "bertscore_recall": "bertscore", "bertscore_f1": "bertscore",
    "contradiction_rate": "faithfulness", "unverifiable_rate": "faithfulness",
    "mrr": "retrieval", "map": "retrieval", "first_relevant_rank": "retrieval", "auc": "retrieval",
}
_CUTOFF_OUTPUT = re.compile(r"^(precision|recall|f1|hit_rate|ndcg|ndcg_exp|err)@(\d+)$")


class UnknownMetric(ValueError):
    pass


@dataclass
class Selected:
    metric: Metric
    # None keeps every output of the family.
    outputs: frozenset[str] | None

    @property
    def family(self) -> str:
        return self.metric.family

    def keep(self, name: str) -> bool:
        return self.outputs is None or name in self.outputs


def load_family(family: str) -> type[Metric]:
    try:
        module_name, _, class_name = FAMILIES[family].partition(":")
    except KeyError:
        raise UnknownMetric(f"unknown metric '{family}'; run `genevals metrics` for the list") from None
    module = importlib.import_module(module_name)
    return getattr(module, class_name)


def family_of(name: str) -> tuple[str, int | None]:
    """The family a metric name belongs to, and the retrieval cutoff it names, if any."""
    if name in FAMILIES:
        return name, None
    if name in _OUTPUT_TO_FAMILY:
        return _OUTPUT_TO_FAMILY[name], None
    match = _CUTOFF_OUTPUT.match(name)
    if match:
        return "retrieval", int(match.group(2))
    raise UnknownMetric(f"unknown metric '{name}'; run `genevals metrics` for the list")


def select(names: list[str] | tuple[str, ...] | None = None,
           options: Mapping[str, Mapping[str, Any]] | None = None) -> list[Selected]:
    """Build the metrics for ``names``; ``options[family]`` holds that family's constructor arguments."""
    names = list(names or DEFAULT_METRICS)
    options = {k: dict(v) for k, v in (options or {}).items()}
    wanted: dict[str, set[str] | None] = {}
    extra_cutoffs: set[int] = set()
    for name in names:
        family, cutoff = family_of(name)
        if name == family:
            wanted[family] = None
        elif wanted.get(family, set()) is not None:
            wanted.setdefault(family, set()).add(name)  # type: ignore[union-attr]
        if cutoff is not None:
            extra_cutoffs.add(cutoff)
    if extra_cutoffs and "retrieval" in wanted:
        retrieval_opts = options.setdefault("retrieval", {})
        base = tuple(retrieval_opts.get("cutoffs", (1, 3, 5, 10)))
        retrieval_opts["cutoffs"] = tuple(sorted(set(base) | extra_cutoffs))
    selected = []
    for family, outputs in wanted.items():
        try:
            metric = load_family(family)(**options.get(family, {}))
        except (ValueError, TypeError) as exc:
            raise UnknownMetric(f"metric '{family}': {exc}") from None
        selected.append(Selected(metric, frozenset(outputs) if outputs is not None else None))
    return selected


def describe_all(options: Mapping[str, Mapping[str, Any]] | None = None) -> list[tuple[str, str, str, str]]:
    """(family, output, definition, signature) for every metric that can be built here."""
    rows = []
    for family in FAMILIES:
        try:
            metric = load_family(family)(**dict((options or {}).get(family, {})))
        except Exception as exc:  # an optional extra that is not installed: say so rather than hide it
            rows.append((family, family, f"(unavailable: {exc})", ""))
            continue
        for output, definition in metric.describe().items():
            rows.append((family, output, definition, metric.signature()))
    return rows
