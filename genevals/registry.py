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
    "grounding": "genevals.metrics.grounding:Grounding",
    "cascade": "genevals.metrics.cascade:Cascade",
}
# These three write the same outputs (faithfulness, contradiction_rate, unverifiable_rate): one per run.
FAITHFULNESS_JUDGES = ("faithfulness", "grounding", "cascade")
OFFLINE_DEFAULT_NOTE = (
    "no judge endpoint or model configured: faithfulness comes from the local grounding checker, the offline "
    "default because it scored F1 0.81 against 0.60 for the packaged Gemma 270M on 40 RAGTruth answers "
    "(benchmarks/RESULTS.md); use --judge-base-url for an LLM judge, or --judge-backend llamacpp for the "
    "embedded model")
DEFAULT_METRICS = ("exact_match", "token_f1", "rouge", "bleu", "retrieval")
# "all": the defaults plus BERTScore and the faithfulness judge (the offline default when none is configured).
PRESETS = {"all": DEFAULT_METRICS + ("bertscore", "faithfulness")}
# Slow, paid LLM calls: written in small chunks.
JUDGE_FAMILIES = frozenset({"faithfulness", "llm_rubric", "cascade"})


def offline_default(family: str, options: Mapping[str, Any]) -> str:
    """"faithfulness" with nothing configured (no endpoint, no model, backend auto) becomes "grounding"."""
    if family != "faithfulness":
        return family
    if options.get("backend", "auto") != "auto" or any(
            options.get(key) for key in ("base_url", "model", "judge_model", "provider")):
        return family
    from genevals.judge.runtime import resolve_backend

    return "grounding" if resolve_backend("auto", None) == "llamacpp" else family
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
    names = [n for name in (names or DEFAULT_METRICS) for n in PRESETS.get(name, (name,))]
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
    judges = [f for f in wanted if f in FAITHFULNESS_JUDGES]
    if len(judges) > 1:
        raise UnknownMetric(f"choose one of {', '.join(judges)}: they write the same faithfulness outputs")
    selected = []
    for family, outputs in wanted.items():
        chosen = offline_default(family, options.get(family, {}))
        try:
            metric = load_family(chosen)(**(options.get(family, {}) if chosen == family else {}))
        except (ValueError, TypeError) as exc:
            raise UnknownMetric(f"metric '{family}': {exc}") from None
        if chosen != family:
            metric.warning = OFFLINE_DEFAULT_NOTE
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
