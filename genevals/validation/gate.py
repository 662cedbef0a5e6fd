"""The agreement gate (``genevals run --require-agreement LABELS [--min-kappa 0.6]``, ``assert_scores(...,
require_agreement=LABELS)``): before a threshold on a judge-backed metric may decide anything, the judge must
agree with people on this run's own answers.

LABELS is a labels export (``genevals review export``; the rows ``genevals validate`` reads: ``id``, ``model``,
``response``, ``hallucinated`` / ``spans``). A label counts for a sample of the run with the same ``id``, the
same system when the label names a ``model``, and the same answer text: a label of an answer that has changed
since it was labelled says nothing about the new one, so it is left out and counted. The judge's verdict on a
sample is the ``faithfulness`` output (a jury's or repeats' majority already): hallucinated when below 1, as
``genevals validate``'s default rule ``any``. Unscored samples (judge errors, refusals) are left out and counted.

The figure is Cohen's kappa with a seeded percentile bootstrap 95% CI (and accuracy), from
:func:`genevals.stats.agreement.binary_metrics` / :func:`~genevals.stats.agreement.agreement_cis`, the code ``validate`` uses. The
gate passes only when the CI's lower bound reaches the minimum: a point estimate above it with a lower bound
below is "too few labels to tell", not a pass, since a handful of labels agrees with anything by chance.

The percentile bootstrap collapses to a point when the judge agrees with every label (every resample agrees
too), so four agreeing labels would read "kappa 1.00 [1.00, 1.00]". The lower bound is therefore never above
the Wilson 95% lower bound of the observed agreement :math:`p_o`, mapped to kappa through the chance agreement
:math:`p_e` of the observed margins: :math:`(p_o^{lo} - p_e) / (1 - p_e)`. Four agreeing labels (two of each
class) give a lower bound of 0.02; thirty give 0.77.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from genevals.settings import Setting
from genevals.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from genevals.stats.agreement import agreement_cis, binary_metrics, confusion
from genevals.validation.labels import LabelledInputError, check_row, gold_label, load_labelled

#: the least kappa the judge must reach (Landis and Koch's "substantial" begins at 0.6)
MIN_KAPPA = Setting("min_kappa", float, 0.6, "the least Cohen's kappa between the judge and the labels "
                    "(the lower bound of its 95% CI must reach it)", minimum=-1.0, maximum=1.0)
#: the metric families whose verdicts a labels export measures (``genevals validate``'s judges)
JUDGE_FAMILIES = ("faithfulness", "grounding", "cascade")
#: the output that carries the answer-level verdict
VERDICT_OUTPUT = "faithfulness"

PASSED, BELOW, TOO_FEW, NO_MATCH = "passed", "below_minimum", "too_few_labels", "no_labelled_sample"


def check_label(row: Any) -> str | None:
    """A labels row as ``validate`` checks it, and an ``id`` to match it by (``validate`` numbers rows without
    one; here that would match a label to whichever sample bears its line number)."""
    problem = check_row(row)
    found = row.get("id") if isinstance(row, dict) else None
    if problem is None and (not isinstance(found, (str, int)) or isinstance(found, bool)):
        return "field 'id': missing, or not a string or number (the run's sample id the label belongs to)"
    return problem


def read_labels(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a labels export; :class:`LabelledInputError` naming the file, the line and the field of each
    bad row, or the file when it holds none."""
    rows = load_labelled(path, check=check_label)
    if not rows:
        raise LabelledInputError(f"{path}: holds no labelled answer (write one with `genevals review export`)")
    return rows


def judged_outputs(declarations: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The outputs among ``declarations`` (outputs.json, or :func:`genevals.registry.declarations`) whose value
    the labels' judge decides."""
    return [name for name, d in declarations.items()
            if isinstance(d, Mapping) and d.get("family") in JUDGE_FAMILIES]


@dataclass(frozen=True)
class Judged:
    """One scored sample as the gate sees it: the judge's answer-level verdict (None when unscored)."""

    id: str
    system: str
    answer: str
    hallucinated: bool | None


def from_rows(rows: Iterable[Mapping[str, Any]]) -> Iterator[Judged]:
    """results.jsonl records (as :func:`genevals.output.runfolder.iter_rows` gives them) as :class:`Judged`."""
    for row in rows:
        found = (row.get("metrics") or {}).get(VERDICT_OUTPUT)
        if isinstance(found, Mapping):
            value = found.get("value") if found.get("status") == "ok" else None
            yield Judged(str(row.get("id")), str(row.get("system")), str(row.get("answer") or ""),
                         None if not isinstance(value, (int, float)) else value < 1.0)


def from_results(samples: Iterable[Any]) -> Iterator[Judged]:
    """:class:`~genevals.output.results.SampleResult` objects (``keep_samples=True``) as :class:`Judged`."""
    for result in samples:
        found = result.metrics.get(VERDICT_OUTPUT)
        if found is not None:
            value = found.value if found.status == "ok" else None
            yield Judged(str(result.sample.id), str(result.sample.system), result.sample.answer or "",
                         None if value is None else value < 1.0)


@dataclass
class Agreement:
    """The judge's agreement with the labels on this run, and whether it may gate."""

    labels: str
    min_kappa: float
    n: int = 0
    kappa: float | None = None
    kappa_ci: list[float] | None = None
    accuracy: float | None = None
    accuracy_ci: list[float] | None = None
    #: labels left out, by why: not in this run, answer changed, unscored by the judge
    left_out: dict[str, int] = field(default_factory=dict)
    outcome: str = NO_MATCH

    @property
    def passed(self) -> bool:
        return self.outcome == PASSED

    def figure(self) -> str:
        """"kappa 0.82 [95% CI 0.61, 0.95], accuracy 0.92 on 24 labelled samples"."""
        kappa = "kappa undefined" if self.kappa is None else f"kappa {self.kappa:.2f}"
        if self.kappa is not None:
            kappa += (f" [95% CI {self.kappa_ci[0]:.2f}, {self.kappa_ci[1]:.2f}]" if self.kappa_ci
                      else " [no CI: too few labels]")
        accuracy = "" if self.accuracy is None else f", accuracy {self.accuracy:.2f}"
        return f"{kappa}{accuracy} on {self.n} labelled sample{'s' if self.n != 1 else ''}"

    def line(self) -> str:
        """One line for the terminal and the report, naming the figure, its CI and the verdict."""
        left = ", ".join(f"{n} {why}" for why, n in self.left_out.items() if n)
        left = f" (left out: {left})" if left else ""
        if self.outcome == NO_MATCH:
            return (f"no labelled sample of {self.labels} is in this run{left}: the judge's agreement cannot be "
                    "measured (labels match by id, the system as 'model', and the same answer text)")
        verdict = {PASSED: f"at least {self.min_kappa:g}: the judge may gate",
                   BELOW: f"below the minimum {self.min_kappa:g}",
                   TOO_FEW: f"too few labels to tell whether it reaches the minimum {self.min_kappa:g}"}[self.outcome]
        if self.outcome == TOO_FEW and self.kappa is None:
            verdict = (f"undefined (the labels or the verdicts hold one class only): too few labels to tell "
                       f"whether it reaches the minimum {self.min_kappa:g}")
        return f"judge agreement with {self.labels}: {self.figure()}{left}; {verdict}"

    def to_dict(self) -> dict[str, Any]:
        return {"labels": self.labels, "min_kappa": self.min_kappa, "n": self.n, "kappa": self.kappa,
                "kappa_ci95": self.kappa_ci, "accuracy": self.accuracy, "accuracy_ci95": self.accuracy_ci,
                "left_out": dict(self.left_out), "outcome": self.outcome, "passed": self.passed,
                "line": self.line()}


def wilson_lower(successes: int, n: int, z: float = 1.959964) -> float:
    r"""The Wilson score interval's lower bound :math:`(\hat p + z^2/2n - z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2})
    / (1 + z^2/n)` of a share of ``successes`` in ``n``."""
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def kappa_lower(cm: Mapping[str, int], bootstrap_lower: float) -> float:
    """The kappa CI's lower bound: the bootstrap's, or the Wilson bound of the observed agreement mapped to
    kappa when that is lower (see the module)."""
    n = sum(cm.values())
    pe = ((cm["tp"] + cm["fp"]) * (cm["tp"] + cm["fn"]) + (cm["fn"] + cm["tn"]) * (cm["fp"] + cm["tn"])) / (n * n)
    return max(-1.0, min(bootstrap_lower, (wilson_lower(cm["tp"] + cm["tn"], n) - pe) / (1 - pe)))


def _key(row: Mapping[str, Any]) -> tuple[str, str | None]:
    model = row.get("model")
    return str(row["id"]), None if model is None else str(model)


def measure(labels: Iterable[Mapping[str, Any]], judged: Iterable[Judged], min_kappa: float,
            source: str, seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES) -> Agreement:
    """The agreement of the judged samples' verdicts with the labels that match them (see the module)."""
    by_key = {_key(row): row for row in labels}
    ids = {sample_id for sample_id, _ in by_key}
    matched: set[tuple[str, str | None]] = set()
    changed: set[tuple[str, str | None]] = set()
    unscored: set[tuple[str, str | None]] = set()
    pred, gold = [], []
    for sample in judged:
        if sample.id not in ids:
            continue
        key = (sample.id, sample.system) if (sample.id, sample.system) in by_key else (sample.id, None)
        label = by_key.get(key)
        if label is None:
            continue
        if " ".join(str(label["response"]).split()) != " ".join(sample.answer.split()):
            changed.add(key)
            continue
        if sample.hallucinated is None:
            unscored.add(key)
            continue
        matched.add(key)
        pred.append(sample.hallucinated)
        gold.append(gold_label(label))
    unscored -= matched
    changed -= matched | unscored
    out = Agreement(str(source), float(min_kappa), n=len(pred), left_out={
        "not in this run": len(by_key) - len(matched | changed | unscored),
        "answer changed since labelled": len(changed), "unscored by the judge": len(unscored)})
    if not pred:
        return out
    cm = confusion(pred, gold)
    found = binary_metrics(cm)
    cis = agreement_cis(pred, gold, seed, resamples)
    out.kappa, out.kappa_ci, out.accuracy, out.accuracy_ci = found["kappa"], cis["kappa"], found["accuracy"], \
        cis["accuracy"]
    if out.kappa is not None and out.kappa_ci:  # kappa defined: p_e < 1
        out.kappa_ci = [kappa_lower(cm, out.kappa_ci[0]), out.kappa_ci[1]]
    if out.accuracy_ci:
        out.accuracy_ci = [min(out.accuracy_ci[0], wilson_lower(cm["tp"] + cm["tn"], len(pred))), out.accuracy_ci[1]]
    if out.kappa is not None and out.kappa < out.min_kappa:
        out.outcome = BELOW
    elif out.kappa is None or not out.kappa_ci or out.kappa_ci[0] < out.min_kappa:
        out.outcome = TOO_FEW
    else:
        out.outcome = PASSED
    return out


def measure_run(labels: Iterable[Mapping[str, Any]], run_dir: str | Path, min_kappa: float, source: str,
                seed: int = DEFAULT_SEED) -> Agreement:
    """:func:`measure` on a run folder's results.jsonl (read after it is written, so nothing is lost)."""
    from genevals.output.runfolder import iter_rows

    return measure(labels, from_rows(row for _, row in iter_rows(run_dir)), min_kappa, source, seed)


def record(run_dir: str | Path, summary: dict[str, Any], agreement: Agreement) -> None:
    """The agreement into ``summary``'s meta and summary.json (written whole, replacing the run's own)."""
    from genevals.output.runfolder import SUMMARY_FILE, write_whole

    summary.setdefault("meta", {})["judge_agreement"] = agreement.to_dict()
    write_whole(Path(run_dir) / SUMMARY_FILE, json.dumps(summary, indent=2, ensure_ascii=False))
