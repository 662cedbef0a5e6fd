"""The run's summary as plain text: one compact table (metrics x systems, each mean with its interval and the
samples it covers), or with ``verbose`` one block per system with every unscored status.

Every mean shows ``scored/total``; a mean covering less than the minimum coverage (summary meta
``min_coverage``, default :data:`genevals.stats.DEFAULT_MIN_COVERAGE`) is marked ``*`` and listed below the
table with its unscored statuses. Counts (judge requests, tokens) print as integers.
"""
from __future__ import annotations

from typing import Any, Mapping

from genevals.stats import DEFAULT_MIN_COVERAGE


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}".replace(",", "")
    return f"{value:.4f}"


def _total(m: Mapping[str, Any]) -> int:
    return int(m.get("scored") or 0) + int(m.get("unscored") or 0)


def _low(m: Mapping[str, Any], min_coverage: float) -> bool:
    total = _total(m)
    return bool(total) and (m.get("scored") or 0) / total < min_coverage


def _statuses(m: Mapping[str, Any], limit: int = 4) -> str:
    found = sorted(((n, s) for s, n in (m.get("statuses") or {}).items() if s != "ok"), reverse=True)
    shown = ", ".join(f"{status} {n}" for n, status in found[:limit])
    return shown + (f", ... {len(found) - limit} more" if len(found) > limit else "")


def _cell(m: Mapping[str, Any], min_coverage: float) -> str:
    covered = f"{m.get('scored') or 0}/{_total(m)}" + ("*" if _low(m, min_coverage) else "")
    if m.get("mean") is None:
        return f"- {covered}"
    ci = m.get("ci95") or [None, None]
    interval = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if None not in ci else ""
    return f"{m['mean']:.4f} {interval} {covered}"


def min_coverage_of(summary: Mapping[str, Any]) -> float:
    value = (summary.get("meta") or {}).get("min_coverage")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else DEFAULT_MIN_COVERAGE


def compact(summary: Mapping[str, Any]) -> str:
    """One table: a row per metric (then per corpus score), a column per system."""
    systems: Mapping[str, Mapping[str, Any]] = summary.get("systems") or {}
    corpus: Mapping[str, Mapping[str, Any]] = summary.get("corpus") or {}
    min_coverage = min_coverage_of(summary)
    names = list(dict.fromkeys(name for metrics in systems.values() for name in metrics))
    corpus_names = list(dict.fromkeys(name for values in corpus.values() for name, v in values.items()
                                      if isinstance(v, (int, float)) and not isinstance(v, bool)))
    rows = [[name] + [_cell(systems[s][name], min_coverage) if name in systems[s] else "" for s in systems]
            for name in names]
    rows += [[f"corpus {name}"] + [_number(corpus.get(s, {}).get(name, "")) for s in systems]
             for name in corpus_names]
    header = ["metric"] + list(systems)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in [header] + rows]
    n = summary.get("n_samples")
    lines.insert(0, f"{n} samples, {len(systems)} system(s); each mean: [95% CI] scored/total" if n is not None
                 else "each mean: [95% CI] scored/total")
    unscored = [(name, s, m) for name in names for s, metrics in systems.items()
                if (m := metrics.get(name)) and (m.get("unscored") or 0)]
    low = [(name, s, m) for name, s, m in unscored if _low(m, min_coverage)]
    if low:
        lines.append(f"* covers less than {min_coverage:.0%} of its samples (no band):")
        lines += [f"  {s} {name}: {m.get('scored') or 0}/{_total(m)} scored; unscored: {_statuses(m)}"
                  for name, s, m in low]
    by_metric: dict[str, list[str]] = {}
    for name, s, m in unscored:
        if not _low(m, min_coverage):
            by_metric.setdefault(name, []).append(f"{s} {_statuses(m, 2)}")
    if by_metric:
        lines.append("unscored, by status:")
        width = max(len(name) for name in by_metric)
        lines += [f"  {name:<{width}}  {'; '.join(parts)}" for name, parts in list(by_metric.items())[:8]]
        if len(by_metric) > 8:
            lines.append(f"  ... {len(by_metric) - 8} more metrics (-v)")
    if summary.get("skipped"):
        lines.append(f"skipped input rows: {len(summary['skipped'])} (skipped.jsonl)")
    return "\n".join(lines)


def detailed(summary: Mapping[str, Any]) -> str:
    """One block per system, one line per metric, with every unscored status."""
    min_coverage = min_coverage_of(summary)
    lines = []
    for system, metrics in (summary.get("systems") or {}).items():
        lines.append(f"system: {system}")
        lines.append(f"  {'metric':<22} {'mean':>8} {'95% CI':>19} {'scored':>13}  unscored by status")
        for name, m in metrics.items():
            if m["mean"] is None:
                mean, ci = "-", "-"
            else:
                mean, ci = f"{m['mean']:.4f}", f"[{m['ci95'][0]:.4f}, {m['ci95'][1]:.4f}]"
            covered = f"{m['scored']}/{_total(m)}" + ("*" if _low(m, min_coverage) else "")
            lines.append(f"  {name:<22} {mean:>8} {ci:>19} {covered:>13}  {_statuses(m, 10)}".rstrip())
        for name, value in (summary.get("corpus") or {}).get(system, {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                lines.append(f"  {'corpus ' + name:<22} {_number(value):>8}")
        lines.append("")
    if any(_low(m, min_coverage) for metrics in (summary.get("systems") or {}).values() for m in metrics.values()):
        lines.append(f"* covers less than {min_coverage:.0%} of its samples (no band)")
    if summary.get("skipped"):
        lines.append(f"skipped input rows: {len(summary['skipped'])}")
    return "\n".join(lines)
