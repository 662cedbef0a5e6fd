"""The run's summary as plain text: one compact table (metrics x systems, each mean with its interval and the
samples it covers), or with ``verbose`` one block per system with every unscored status.

Both show the outputs they are given (the caller picks each family's headline ones,
:func:`genevals.registry.headlines`, unless asked for all) and say how many they leave out. Every mean shows
``scored/total``; a mean covering less than the minimum coverage (summary meta ``min_coverage``, default
:data:`genevals.stats.DEFAULT_MIN_COVERAGE`) is marked ``*``. Below the compact table, unscored samples are
grouped by status: the outputs with the same status and the same counts in every system share one line, so a
family that could not score (retrieval without labels) takes one line, not one per output and system. Counts
(judge requests, tokens) print as integers. Names from the data (systems, outputs, statuses) are printed through
:func:`~genevals.output.terminal.visible`: a control or bidi character shows as its escape, never reaches the
terminal raw.
"""
from __future__ import annotations

from typing import Any, Collection, Mapping, Sequence

from genevals.output import unjudged
from genevals.output.terminal import visible as shown_text
from genevals.stats import DEFAULT_MIN_COVERAGE
from genevals.types import NOT_COUNTED


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
    shown = ", ".join(f"{shown_text(status)} {n}" for n, status in found[:limit])
    return shown + (f", ... {len(found) - limit} more" if len(found) > limit else "")


def _cell(m: Mapping[str, Any], min_coverage: float) -> str:
    covered = (f"{m.get('scored') or 0}/{_total(m)}" + ("*" if _low(m, min_coverage) else "")
               + (unjudged.MARK if unjudged.marked(m) else ""))
    if m.get("mean") is None:
        return f"- {covered}"
    ci = m.get("ci95") or [None, None]
    interval = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if None not in ci else ""
    return f"{m['mean']:.4f} {interval} {covered}"


def min_coverage_of(summary: Mapping[str, Any]) -> float:
    value = (summary.get("meta") or {}).get("min_coverage")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else DEFAULT_MIN_COVERAGE


def compact(summary: Mapping[str, Any], shown: Collection[str] | None = None) -> str:
    """One table: a row per metric output in ``shown`` (None: every one), then per corpus score, a column per
    system; then the unscored samples of every output, grouped by status."""
    systems: Mapping[str, Mapping[str, Any]] = summary.get("systems") or {}
    corpus: Mapping[str, Mapping[str, Any]] = summary.get("corpus") or {}
    min_coverage = min_coverage_of(summary)
    names = list(dict.fromkeys(name for metrics in systems.values() for name in metrics))
    visible = [name for name in names if shown is None or name in shown]
    corpus_names = list(dict.fromkeys(name for values in corpus.values() for name, v in values.items()
                                      if isinstance(v, (int, float)) and not isinstance(v, bool)))
    # a corpus score's parts (bleu_bp, bleu_sys_len beside bleu) are details, like the outputs not shown
    details = [name for name in corpus_names if any(name.startswith(f"{other}_") for other in corpus_names)]
    corpus_shown = [name for name in corpus_names if shown is None or name not in details]
    rows = [[shown_text(name)] + [_cell(systems[s][name], min_coverage) if name in systems[s] else ""
                                  for s in systems] for name in visible]
    rows += [[f"corpus {shown_text(name)}"] + [_number(corpus.get(s, {}).get(name, "")) for s in systems]
             for name in corpus_shown]
    header = ["metric"] + [shown_text(s) for s in systems]
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in [header] + rows]
    n = summary.get("n_samples")
    # turns of conversations: the CIs resample whole conversations, and the header says how many there are
    talks = max((m.get("conversations_total") or 0 for metrics in systems.values() for m in metrics.values()
                 if isinstance(m, Mapping)), default=0)
    unit = f"samples ({talks} conversation{'s' if talks != 1 else ''}, CIs by conversation)" if talks else "samples"
    lines.insert(0, f"{n} {unit}, {len(systems)} system(s); each mean: [95% CI] scored/total" if n is not None
                 else "each mean: [95% CI] scored/total")
    hidden = [f"{n} more {what}" for n, what in ((len(names) - len(visible), "outputs"),
                                                 (len(corpus_names) - len(corpus_shown), "corpus details")) if n]
    if hidden:
        lines.append(f"{' and '.join(hidden)} not shown (every one: --all-outputs)")
    if any(_low(systems[s][name], min_coverage) for name in visible for s in systems if name in systems[s]):
        lines.append(f"* covers less than {min_coverage:.0%} of its samples (no band)")
    if any(unjudged.marked(systems[s][name]) for name in visible for s in systems if name in systems[s]):
        lines.append(unjudged.FOOTNOTE)
    lines += _unscored_groups(systems, names, visible)
    if summary.get("skipped"):
        lines.append(f"skipped input rows: {len(summary['skipped'])} (skipped.jsonl)")
    return "\n".join(lines)


#: status groups the compact table lists (-v lists every status of every output)
SHOWN_GROUPS = 8


def _unscored_groups(systems: Mapping[str, Mapping[str, Any]], names: Sequence[str],
                     visible: Sequence[str]) -> list[str]:
    """One line per unscored status and its counts per system, naming the outputs that share them (the
    outputs of one family usually do: retrieval's 30 outputs are one line)."""
    groups: dict[tuple[str, tuple[int, ...]], list[str]] = {}
    totals: dict[tuple[str, tuple[int, ...]], tuple[int, ...]] = {}
    for name in names:
        per_system = [(systems[s].get(name) or {}) for s in systems]
        # a conversation metric's other turns are no samples left unscored (its one value is on the last turn)
        found = {status for m in per_system for status in (m.get("statuses") or {})
                 if status != "ok" and status not in NOT_COUNTED}
        for status in found:
            key = (status, tuple(int((m.get("statuses") or {}).get(status) or 0) for m in per_system))
            groups.setdefault(key, []).append(name)
            totals.setdefault(key, tuple(_total(m) for m in per_system))
    if not groups:
        return []
    shown_names = set(visible)
    ordered = sorted(groups, key=lambda key: (-len(groups[key]), -sum(key[1]), key[0]))
    labels = [shown_text(s) for s in systems]
    lines = ["unscored, by status (outputs: samples per system):"]
    for status, counts in ordered[:SHOWN_GROUPS]:
        members = groups[(status, counts)]
        named = [n for n in members if n in shown_names][:4] or members[:3]
        more = f" +{len(members) - len(named)} more" if len(members) > len(named) else ""
        per = totals[(status, counts)]
        if len(labels) > 1 and len(set(counts)) == 1 and len(set(per)) == 1:
            where = f"{counts[0]}/{per[0]} in each system"
        else:
            where = ", ".join(f"{label} {c}/{t}" if len(labels) > 1 else f"{c}/{t}"
                              for label, c, t in zip(labels, counts, per) if c)
        lines.append(f"  {shown_text(status)}: {shown_text(', '.join(named))}{more}: {where}")
    if len(ordered) > SHOWN_GROUPS:
        lines.append(f"  ... {len(ordered) - SHOWN_GROUPS} more (-v)")
    return lines


def detailed(summary: Mapping[str, Any], shown: Collection[str] | None = None) -> str:
    """One block per system, one line per metric output in ``shown`` (None: every one), with every unscored
    status."""
    min_coverage = min_coverage_of(summary)
    lines = []
    hidden: set[str] = set()
    for system, metrics in (summary.get("systems") or {}).items():
        lines.append(f"system: {shown_text(system)}")
        lines.append(f"  {'metric':<22} {'mean':>8} {'95% CI':>19} {'scored':>13}  unscored by status")
        for name, m in metrics.items():
            if shown is not None and name not in shown:
                hidden.add(name)
                continue
            if m["mean"] is None:
                mean, ci = "-", "-"
            else:
                mean, ci = f"{m['mean']:.4f}", f"[{m['ci95'][0]:.4f}, {m['ci95'][1]:.4f}]"
            covered = (f"{m['scored']}/{_total(m)}" + ("*" if _low(m, min_coverage) else "")
                       + (unjudged.MARK if unjudged.marked(m) else ""))
            lines.append(f"  {shown_text(name):<22} {mean:>8} {ci:>19} {covered:>13}  {_statuses(m, 10)}".rstrip())
        for name, value in (summary.get("corpus") or {}).get(system, {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                lines.append(f"  {'corpus ' + shown_text(name):<22} {_number(value):>8}")
        lines.append("")
    if hidden:
        lines.append(f"{len(hidden)} more outputs not shown (every one: --all-outputs)")
    if any(_low(m, min_coverage) for metrics in (summary.get("systems") or {}).values() for name, m in metrics.items()
           if name not in hidden):
        lines.append(f"* covers less than {min_coverage:.0%} of its samples (no band)")
    if any(unjudged.marked(m) for metrics in (summary.get("systems") or {}).values() for name, m in metrics.items()
           if name not in hidden):
        lines.append(unjudged.FOOTNOTE)
    if summary.get("skipped"):
        lines.append(f"skipped input rows: {len(summary['skipped'])}")
    return "\n".join(lines)


def judge_repeats(summary: Mapping[str, Any]) -> list[str]:
    """With ``--judge-repeats``: per output and system, the flip rate, the mean per-sample spread, failed
    repeats, and the interval of the majority scores (samples only) beside the one with the judge's variance
    (samples and repeats) (summary meta ``judge_repeats``)."""
    repeats = (summary.get("meta") or {}).get("judge_repeats") or {}
    systems = summary.get("systems") or {}
    lines: list[str] = []
    for system, outputs in sorted(repeats.items()):
        for name, r in outputs.items():
            if not lines:
                lines.append(f"judge repeats ({r.get('repeats')} per request; {shown_text(r.get('policy'))}):")
            usual = systems.get(system, {}).get(name, {})
            ci, judged = usual.get("ci95") or [None, None], r.get("ci95_judge") or [None, None]
            flip = r.get("flip_rate")
            failed = r.get("failed_repeats") or 0
            lines.append(
                f"  {shown_text(system)} {shown_text(name)}: flip rate {'-' if flip is None else f'{flip:.3f}'} "
                f"({r.get('unstable')}/"
                f"{r.get('units')} {r.get('unit')} not unanimous), mean spread "
                f"{_number(r.get('mean_spread'))}" + (f", {failed} failed repeat(s)" if failed else "")
                + (f"; majority mean {usual['mean']:.4f} [{ci[0]:.2f}, {ci[1]:.2f}] (samples)"
                   if usual.get("mean") is not None and None not in ci else "")
                + (f"; mean over repeats {r['mean_over_repeats']:.4f} [{judged[0]:.2f}, {judged[1]:.2f}] "
                   "(samples and repeats)" if r.get("mean_over_repeats") is not None and None not in judged else ""))
    return lines
