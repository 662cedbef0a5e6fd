"""Each headline metric across the runs of the history: its mean and 95% interval per system and run, as the
runs' summaries recorded them (nothing is recomputed), for ``genevals history show`` (text) and the report's
Trends tab (:func:`trends`, embedded as ``data["history"]``). The text shows names from the data through
:func:`~genevals.output.terminal.visible`: no control or bidi character reaches the terminal raw."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from genevals.history import inputs
from genevals.history.store import RunRecord
from genevals.output.terminal import visible

#: the most runs a trend shows (the latest ones)
MAX_RUNS = 50


def related(runs: Sequence[RunRecord], digest: str | None, given: str | None) -> list[RunRecord]:
    """The latest :data:`MAX_RUNS` runs of the input with content ``digest`` or file name ``given`` (a copy
    and an edit continue the trend: :func:`genevals.history.inputs.related`)."""
    return inputs.related(runs, digest, inputs.name_of(given))[-MAX_RUNS:]


def metrics_of(runs: Sequence[RunRecord]) -> list[str]:
    """The headline metrics of the runs, in the order the latest run lists them first, then the others'."""
    seen: dict[str, None] = {}
    for run in reversed(runs):
        seen.update(dict.fromkeys(run.headline))
    return list(seen)


def trends(runs: Sequence[RunRecord], path: str = "") -> dict[str, Any]:
    """The page's trends: the runs (id, time, commit, input digest) and per headline metric and system the points
    {run (index into runs), mean, ci95, scored, total}."""
    series: list[dict[str, Any]] = []
    for metric in metrics_of(runs):
        systems: dict[str, list[dict[str, Any]]] = {}
        for i, run in enumerate(runs):
            for system in run.systems:
                m = (run.summary.get(system) or {}).get(metric)
                if m is not None and m.get("mean") is not None:
                    systems.setdefault(system, []).append(
                        {"run": i, "mean": m["mean"], "ci95": m.get("ci95"), "scored": m.get("scored"),
                         "total": m.get("total")})
        if systems:
            series.append({"metric": metric, "systems": [{"system": s, "points": p} for s, p in systems.items()]})
    return {"path": path,
            "runs": [{"id": run.id, "finished": run.finished, "commit": run.git_commit, "input": run.input,
                      "input_digest": run.input_digest, "n_samples": run.n_samples} for run in runs],
            "series": series}


def _cell(m: dict[str, Any] | None) -> str:
    if not m or m.get("mean") is None:
        return "-"
    low, high = (m.get("ci95") or [None, None])[:2]
    band = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    return f"{m['mean']:.4f}{band}"


def text_table(runs: Sequence[RunRecord]) -> str:
    """One block per headline metric: a row per run (id, time, commit), a column per system, each cell the mean
    with its 95% interval."""
    lines: list[str] = []
    systems = list(dict.fromkeys(s for run in runs for s in run.systems))
    for metric in metrics_of(runs):
        rows = [[f"#{run.id}", visible(run.finished[:19].replace("T", " ")), visible((run.git_commit or "-")[:12])]
                + [_cell((run.summary.get(s) or {}).get(metric)) for s in systems] for run in runs]
        if all(cell == "-" for row in rows for cell in row[3:]):
            continue
        head = ["run", "finished (UTC)", "commit"] + [visible(s) for s in systems]
        widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
        lines.append(f"{visible(metric)}:")
        lines += ["  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in [head] + rows]
    return "\n".join(lines)
