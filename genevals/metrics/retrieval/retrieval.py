"""Retrieval metrics for a RAG sample: how well ``sample.contexts`` rank the ids in ``sample.relevant``.

The pure math lives in :mod:`genevals.metrics.retrieval.ranking` (trec_eval conventions; one batch at a time in
:mod:`genevals.metrics.retrieval.ranking_columns`); this module builds the ranking from a sample's contexts and turns
the numbers into :class:`MetricResult` values with statuses.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Any, Mapping, Sequence

from genevals import types
from genevals.metrics.base import Metric, Output, register
from genevals.metrics.retrieval import ranking as rk
from genevals.metrics.retrieval import unjudged
from genevals.scored import Columns
from genevals.signature import make_signature
from genevals.types import MetricResult, Sample
from genevals.settings import Setting

#: status when the labels exist but none reaches the relevance level (nothing to find: recall undefined)
NO_RELEVANT = "no_relevant"
#: status for AUC when it has no (relevant, non-relevant) pair to compare
UNDEFINED = "undefined"

LEVELS = ("auto", "chunk", "doc")
DEFAULT_CUTOFFS = (1, 3, 5, 10)
#: the largest cutoff: no retriever hands a generator more contexts than this, and the per-sample arrays the
#: ranking metrics build grow with the cutoff (recall@10^20 would never finish)
MAX_CUTOFF = 10_000
_RANK = attrgetter("rank")


def build_ranking(contexts: Sequence[types.Context], level: str) -> tuple[list[str], int]:
    """The ranked, deduplicated ids of ``contexts`` (sorted by ``rank``, stable) at ``level``.

    "chunk": ``Context.key`` (id, else str(rank)). "doc": ``doc_id``, collapsing the chunks of one
    document to its first (best) occurrence; a context without ``doc_id`` falls back to its key.
    Returns (ids, number of doc-level contexts that had no doc_id).
    """
    ordered = sorted(contexts, key=_RANK)
    if level != "doc":
        keys = [c.id if c.id is not None else str(c.rank) for c in ordered]  # Context.key, without the call
        if len(set(keys)) == len(keys):
            return keys, 0
        return list(dict.fromkeys(keys)), 0  # first occurrence of each, in order
    seen: set[str] = set()
    out: list[str] = []
    missing = 0
    for c in ordered:
        key = c.doc_id
        if key is None:
            missing += 1
            key = c.key
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out, missing


def resolve_level(contexts: Sequence[types.Context], level: str,
                  relevant: Mapping[str, float] | None = None) -> str:
    """Pick the level the labels speak of.

    "auto" is "chunk" when the labels name a retrieved chunk id, "doc" when they name a retrieved doc_id,
    and otherwise "doc" when any context has a doc_id, else "chunk". Looking at the labels first matters:
    a dataset labelled by chunk id whose contexts also carry URLs must not be scored against URLs.
    """
    if level != "auto":
        return level
    keys = set(relevant or ())
    if keys & {c.key for c in contexts}:
        return "chunk"
    if keys & {c.doc_id for c in contexts if c.doc_id is not None}:
        return "doc"
    return "doc" if any(c.doc_id is not None for c in contexts) else "chunk"


@register
class Retrieval(Metric):
    """Ranked-retrieval metrics (trec_eval conventions) over the sample's contexts and its relevance labels."""
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("cutoffs", list, DEFAULT_CUTOFFS, "cutoffs k of the @k outputs", minimum=1, maximum=MAX_CUTOFF),
        Setting("level", str, "auto", "ranking level; auto: doc when contexts carry doc_id", choices=LEVELS),
        Setting("relevance_level", float, 1, "the smallest graded label that counts as relevant"),
        Setting("pool_depth", int, None, "the depth the qrels were pooled to (set from a genevals label qrels "
                                          "file): the unjudged documents at each cutoff past it are counted",
                minimum=1),
    )

    family = "retrieval"
    outputs = (
        Output("precision@{k}", "relevant ids in the top {k} / {k} (trec_eval P_{k}; divides by {k} even if fewer "
                                "were retrieved)"),
        Output("recall@{k}", "relevant ids in the top {k} / all relevant ids in the labels (trec_eval recall_{k})"),
        Output("f1@{k}", "harmonic mean of precision@{k} and recall@{k}"),
        Output("hit_rate@{k}", "1 if any of the top {k} is relevant, else 0 (trec_eval success_{k})"),
        Output("ndcg@{k}", "nDCG@{k}, linear gain = grade, 1/log2(rank+1) discount, ideal from all labels "
                           "(trec_eval ndcg_cut_{k})"),
        Output("ndcg_exp@{k}", "nDCG@{k} with exponential gain 2^grade - 1 (Burges), 1/log2(rank+1) discount"),
        Output("err@{k}", "Expected Reciprocal Rank@{k} (Chapelle 2009), R = (2^grade - 1) / 2^max_grade_in_labels"),
        Output("mrr", "1 / rank of the first relevant id, 0 if none retrieved (trec_eval recip_rank; mean = MRR)"),
        Output("map", "average precision: sum of precision at each relevant hit / all relevant ids in the labels "
                      "(trec_eval map)"),
        Output("first_relevant_rank", "1-based rank of the first relevant id (a rank, lower is better); "
                                      "not_found if none retrieved", direction="lower", range=(1.0, None),
               integer=True),
        Output("auc", "P(relevant id ranked above a retrieved non-relevant id); unretrieved relevant ids rank "
                      "below all retrieved"),
    )
    presets = ("default", "all")
    order = 50
    headline = ("mrr", "recall@10", "ndcg@10")

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self.relevance_level = float(self.relevance_level)
        if not self.relevance_level > 0:
            raise ValueError(f"relevance_level must be > 0 (grade 0 means not relevant), got {self.relevance_level!r}")
        self.cutoffs = tuple(sorted(set(self.cutoffs)))
        self._names = ([o.name.format(k=k) for o in self.outputs if o.is_template for k in self.cutoffs]
                       + [o.name for o in self.outputs if not o.is_template])
        #: the cutoffs past the pool depth, whose unjudged documents are counted (genevals.metrics.retrieval.unjudged)
        self.unjudged_cutoffs = unjudged.deeper(self.cutoffs, self.pool_depth)

    @property
    def has_corpus_scores(self) -> bool:
        return bool(self.unjudged_cutoffs)

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """A scored sample's unjudged documents in the top k and its ranked ones there, per cutoff past the pool
        depth."""
        first = next(iter(outputs.values()), None)
        if not self.unjudged_cutoffs or first is None or first.status in (NO_RELEVANT, types.NO_RELEVANCE_LABELS):
            return None
        return unjudged.statistics(first.details)

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        return unjudged.shares(totals)

    def corpus_warning(self, totals_by_system: Mapping[str, Mapping[str, float]]) -> str | None:
        """The sentence naming the unjudged documents past the pool depth, per system and cutoff."""
        if not self.unjudged_cutoffs:
            return None
        return unjudged.warning(totals_by_system, self.pool_depth, self._names)

    def output_names(self) -> list[str]:
        return list(self._names)

    @classmethod
    def widen(cls, options: Mapping[str, Any], params: Mapping[str, str]) -> dict[str, Any]:
        """Add the cutoff an output such as "recall@20" names to the default or given cutoffs."""
        options = dict(options)
        if "k" in params:
            if len(params["k"]) > len(str(MAX_CUTOFF)):  # int() of a 5,000-digit k is itself an error
                raise ValueError(f"cutoff {params['k'][:20]}... is larger than {MAX_CUTOFF:,}")
            if not 1 <= int(params["k"]) <= MAX_CUTOFF:  # said of the name asked for, not of the cutoff list
                raise ValueError(f"cutoffs must be whole numbers from 1 to {MAX_CUTOFF:,}")
            options["cutoffs"] = tuple(sorted(set(options.get("cutoffs", DEFAULT_CUTOFFS)) | {int(params["k"])}))
        return options

    def signature(self) -> str:
        return make_signature(
            "retrieval",
            level=self.level,
            cutoffs=self.cutoffs,
            rel_level=_fmt_num(self.relevance_level),
            ndcg_gain="linear(trec_eval)",
            ndcg_exp_gain="2^rel-1",
            err_gmax="max_in_qrels",
            dedupe="first",
        )

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return self.score_columns(samples).rows()

    def score_columns(self, samples: Sequence[Sample]) -> Columns:
        """The batch's rankings scored together (:func:`~genevals.metrics.retrieval.ranking_columns.evaluate_many`, the
        same values as :func:`~genevals.metrics.retrieval.ranking.evaluate` query by query), kept as one column per
        output: a result object is built only for a sample whose results are read (``genevals.scored``)."""
        n, names = len(samples), self._names
        details: list[dict[str, Any]] = []
        unscored: list[tuple[int, str, str]] = []  # (row, status, reason) for every output
        scored: list[int] = []
        rankings: list[list[str]] = []
        labels: list[Mapping[str, float]] = []
        for index, sample in enumerate(samples):
            ids, qrels, row_details, problem = self._prepare(sample)
            details.append(row_details)
            if problem is not None:
                unscored.append((index, *problem))
            else:
                scored.append(index)
                rankings.append(ids)
                labels.append(qrels)
        values: dict[str, list[float | None]] = {}
        if scored:
            from genevals.metrics.retrieval.ranking_columns import evaluate_many  # numpy: not for `genevals --help`

            computed = evaluate_many(rankings, labels, self.cutoffs, self.relevance_level)
            for name in names:
                column = computed[name].astype(float).tolist()
                if len(scored) < n:
                    full: list[float | None] = [None] * n
                    for row, value in zip(scored, column):
                        full[row] = value
                    column = full
                values[name] = column
        else:
            values = {name: [None] * n for name in names}
        marks = StatusMarks(names, values, n)
        for row, status, reason in unscored:
            marks.unscored(row, status, reason)
        for row, ids in zip(scored, rankings):
            marks.ranked(row, len(ids))
        return Columns(names, values, marks.statuses, marks.reasons, details)

    def _prepare(self, sample: Sample) -> tuple[list[str], dict[str, float], dict[str, Any], tuple[str, str] | None]:
        """The sample's ranking, labels and details, and (status, reason) when it cannot be scored."""
        level = resolve_level(sample.contexts, self.level, sample.relevant)
        if sample.relevant is None:
            return [], {}, {"level": level}, (types.NO_RELEVANCE_LABELS, NO_LABELS_REASON)
        qrels = {str(k): float(v) for k, v in sample.relevant.items()}
        ids, missing_doc = build_ranking(sample.contexts, level)
        details: dict[str, Any] = {
            "level": level,
            "n_retrieved": len(ids),
            "n_relevant": rk.num_relevant(qrels, self.relevance_level),
            "n_judged_retrieved": len(qrels.keys() & ids),  # ids are distinct
        }
        if missing_doc:
            details["contexts_without_doc_id"] = missing_doc
        if details["n_relevant"] == 0:
            return ids, qrels, details, (NO_RELEVANT, no_relevant_reason(self.relevance_level, len(qrels)))
        if not ids:
            details["note"] = "no contexts retrieved: scored as an empty ranking"
        if self.unjudged_cutoffs:
            details.update(unjudged.sample_counts(ids, qrels, self.unjudged_cutoffs))
        return ids, qrels, details, None


NO_LABELS_REASON = "no relevance labels given for this sample"


def no_relevant_reason(level: float, n_labels: int) -> str:
    return (f"no labelled id has relevance >= {_fmt_num(level)} ({n_labels} labels): recall and the rank metrics "
            "are undefined")


class StatusMarks:
    """A batch's statuses and reasons per output, made only once some row is not ``ok``; a marked row's value
    becomes None. The per-sample and the columnar paths both mark rows here, so their words agree."""

    def __init__(self, names: Sequence[str], values: dict[str, list[float | None]], n: int) -> None:
        self.values, self.n = values, n
        self.statuses: dict[str, list[str] | None] = dict.fromkeys(names)
        self.reasons: dict[str, list[str | None] | None] = dict.fromkeys(names)

    def mark(self, name: str, row: int, status: str, reason: str) -> None:
        if self.statuses[name] is None:
            self.statuses[name], self.reasons[name] = [types.OK] * self.n, [None] * self.n
        self.statuses[name][row], self.reasons[name][row] = status, reason  # type: ignore[index]
        self.values[name][row] = None

    def unscored(self, row: int, status: str, reason: str) -> None:
        """Every output of ``row`` unscored, for one reason."""
        for name in self.statuses:
            self.mark(name, row, status, reason)

    def ranked(self, row: int, retrieved: int) -> None:
        """A scored row's own exceptions: no relevant id retrieved (first_relevant_rank), AUC undefined."""
        first, auc = self.values.get("first_relevant_rank"), self.values.get("auc")
        if first is not None and first[row] == 0:
            self.mark("first_relevant_rank", row, types.NOT_FOUND, f"none of the {retrieved} retrieved ids is relevant")
        if auc is not None and auc[row] != auc[row]:  # NaN: undefined
            self.mark("auc", row, UNDEFINED,
                      ("AUC needs at least one retrieved non-relevant id to compare against; every retrieved id is "
                       "relevant") if retrieved else "AUC needs at least one retrieved non-relevant id; nothing was "
                                                     "retrieved")


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
