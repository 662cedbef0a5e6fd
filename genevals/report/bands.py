"""Interpretation bands, what each metric's declaration says about them, and the coverage a band needs.

Bands describe a mean on the 0-1 scale that most genevals metrics share. A higher-is-better mean is read
against :data:`BANDS`; a lower-is-better one (an error rate) against :data:`LOWER_BANDS`, on the mean itself,
with limits far stricter than ``1 - mean`` would give, so an error rate is never flattered (a contradiction
rate of 0.14 is "Fair", not "Excellent"):

=========  ====================  ===================
band       higher is better      lower is better
=========  ====================  ===================
Excellent  >= 0.80               <= 0.02
Good       >= 0.60               <= 0.05
Moderate   >= 0.40               <= 0.10
Fair       >= 0.20               <= 0.20
Poor       <  0.20               >  0.20
=========  ====================  ===================

They are rough reading aids, not calibrated quality levels: what counts as "good" ROUGE-2 is far lower than
what counts as "good" hit rate, so pass/fail in a report comes only from explicit thresholds
(:mod:`genevals.output.thresholds`). A mean that covers less than ``min_coverage`` (default
:data:`DEFAULT_MIN_COVERAGE`) of its samples gets no band at all: 1.0 on 2 of 9 samples says little.

Which metric gets a band, and which way, comes from the run folder's ``outputs.json`` (each output's declared
``direction`` and ``range``), never from a list of metric names here (:func:`metric_facts`):

* an output declared on ``[0, 1]`` (or on ``[null, 1]``, a score capped at 1 such as BERTScore) is on the unit
  scale; one declared on any other range (``first_relevant_rank``: ``[1, null]``) is not, and gets no band;
* ``direction`` "lower" is banded with :data:`LOWER_BANDS`; "neither" gets no band;
* an output whose entry says ``"band": false`` gets none, with its ``band_note`` shown (raw BERTScore: bands apply
  only to baseline-rescaled values, bert-score's convention);
* an entry's ``definition`` (what it measures) travels to the page as ``definition``, shown under the metric's
  name, so a high band beside a low one (context_relevance beside recall@10) reads as two different measures;
* an entry's validation card (``card_text``: the offline triad judges' agreement with human labels, beside their
  baselines) travels to the page as ``card``;
* for a run written before ``outputs.json`` existed, ``genevals report`` supplies the declarations of the metrics
  installed now; an output declared nowhere counts as "higher", and as on the unit scale when every value seen
  lies in ``[0, 1]``.
"""
from __future__ import annotations

from typing import Any, Mapping

from genevals.report.clean import text
from genevals.stats import DEFAULT_MIN_COVERAGE

#: (name, lower limit) from best to worst; a mean falls into the first band whose limit it reaches.
BANDS: tuple[tuple[str, float], ...] = (
    ("Excellent", 0.8),
    ("Good", 0.6),
    ("Moderate", 0.4),
    ("Fair", 0.2),
    ("Poor", 0.0),
)
#: (name, upper limit) from best to worst for a lower-is-better mean; it falls into the first band it stays within.
LOWER_BANDS: tuple[tuple[str, float], ...] = (
    ("Excellent", 0.02),
    ("Good", 0.05),
    ("Moderate", 0.10),
    ("Fair", 0.20),
    ("Poor", 1.0),
)
#: The directions an output may declare; an undeclared or unknown one reads as the first.
DIRECTIONS = ("higher", "lower", "neither")
#: A starting point for a thresholds config (see README); never applied unless asked for.
SUGGESTED_THRESHOLDS: dict[str, float] = {
    "mrr": 0.6,
    "hit_rate@5": 0.75,
    "ndcg@10": 0.7,
    "bertscore_f1": 0.65,
    "faithfulness": 0.8,
}


def _on_unit_scale(declared: Any) -> bool | None:
    """Whether a declared ``[lo, hi]`` is a score capped at 1 (``hi == 1``, ``lo`` 0, below 0 or open: BERTScore
    is declared ``[null, 1]`` since rescaled values can dip below 0); None when it is no range at all."""
    if not isinstance(declared, (list, tuple)) or len(declared) != 2:
        return None
    if not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in declared):
        return None
    return declared[1] == 1 and (declared[0] is None or declared[0] <= 0)


def metric_facts(name: str, declaration: Any, seen: tuple[float, float] | None) -> dict[str, Any]:
    """The page's entry for one metric: ``lower_better``, ``unit`` (drawn on a 0-1 scale) and ``banded``.

    ``declaration``: the metric's entry in outputs.json (None when the run has none); ``seen``: the smallest
    and largest value of the metric in the report (None when it has no value), used only without a declared
    range.
    """
    declaration = declaration if isinstance(declaration, Mapping) else {}
    direction = declaration.get("direction")
    direction = direction if direction in DIRECTIONS else DIRECTIONS[0]
    unit = _on_unit_scale(declaration.get("range"))
    if unit is None:
        unit = seen is None or (seen[0] >= 0.0 and seen[1] <= 1.0)
    facts = {"name": name, "lower_better": direction == "lower", "unit": unit,
             "banded": unit and direction != "neither" and declaration.get("band") is not False}
    if declaration.get("integer") is True:  # a count or a rank: each sample's value shown as a whole number
        facts["integer"] = True
    definition = text(declaration.get("definition"))
    if definition:  # what it measures, beside its band: why two bands on the same screen can disagree
        facts["definition"] = definition if len(definition) <= 300 else definition[:297] + "..."
    if declaration.get("band") is False:
        facts["band_note"] = text(declaration.get("band_note")) or "its declaration says it takes no band"
    lines = declaration.get("card_text")
    if isinstance(lines, list) and lines:
        card = declaration.get("card") if isinstance(declaration.get("card"), Mapping) else {}
        evaluations = card.get("evaluations") if isinstance(card.get("evaluations"), list) else []
        held = card.get("held_out") if isinstance(card.get("held_out"), list) else []
        # a held-out figure that does not beat its baseline marks the card as not above it, as the lines say
        facts["card"] = {"lines": [text(line) for line in lines[:20]],
                         "beats_baseline": [bool(e.get("beats_baseline")) for e in evaluations + held
                                            if isinstance(e, Mapping)]}
    return facts


def coverage(summary: Mapping[str, Any] | None) -> float | None:
    """scored / (scored + unscored) of one metric's summary; None when it covers no sample."""
    if not isinstance(summary, Mapping):
        return None
    scored, unscored = summary.get("scored") or 0, summary.get("unscored") or 0
    total = scored + unscored
    return scored / total if total else None


def band(facts: Mapping[str, Any], mean: float | None, covered: float | None = None,
         min_coverage: float = DEFAULT_MIN_COVERAGE) -> str | None:
    """The band name for ``mean`` of the metric described by ``facts`` (from :func:`metric_facts`), or None
    when it has no band, no mean, or covers (``covered``: scored share) less than ``min_coverage``. The page's
    ``bandOf`` applies the same rule."""
    if mean is None or not facts.get("banded"):
        return None
    if covered is not None and covered < min_coverage:
        return None
    if mean < 0.0 or mean > 1.0 + 1e-9:
        return None
    if facts.get("lower_better"):
        for name, limit in LOWER_BANDS:
            if mean <= limit + 1e-12:
                return name
        return LOWER_BANDS[-1][0]
    for name, limit in BANDS:
        if mean >= limit:
            return name
    return BANDS[-1][0]


def bands_table() -> list[dict[str, Any]]:
    """The band limits as the report shows them: ``min`` for higher-is-better, ``max`` for lower-is-better."""
    return [{"name": name, "min": limit, "max": upper} for (name, limit), (_, upper) in zip(BANDS, LOWER_BANDS)]
