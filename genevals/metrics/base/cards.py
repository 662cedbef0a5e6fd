"""A metric's validation card as text: its measured agreement with public human labels beside the best trivial
baseline, a few lines for ``genevals metrics`` and outputs.json (:meth:`~genevals.metrics.base.Metric.card`)."""
from __future__ import annotations

from typing import Any, Mapping


def _versus(verdict: str | None, beats: bool, name: str) -> str:
    """" - level with NAME" or " - worse than NAME" (the paired CI of the difference covers 0, or lies below
    it); nothing when the judge beats it. A card without the verdict word: " - does NOT beat its baseline"."""
    if verdict in ("level with", "worse than"):
        return f" - {verdict} {name} (does NOT beat it)"
    return "" if beats else " - does NOT beat its baseline"


def _ci(d: Mapping[str, Any]) -> str:
    return f"{d['value']:.3f} [{d['ci'][0]:.3f}, {d['ci'][1]:.3f}]"


def card_lines(c: dict[str, Any]) -> list[str]:
    """The card as a few lines of text, for ``genevals metrics``."""
    lines = []
    for e in c["evaluations"]:
        base = e["best_baseline"]
        head = (f"{e['data']} (n={e['n']}, {e['groups']} questions): {e['target']} AUC {_ci(e['auc'])}; "
                f"best trivial baseline ({base['name']}) {base['auc']:.3f}, difference {_ci(base['difference'])}")
        lines.append(head + _versus(e.get("versus_baseline"), e["beats_baseline"], base["name"]))
        if "f1" in e:
            f1_base = e["f1_baseline"]
            lines.append(f"  F1 at threshold {e['f1']['threshold']:.2f}: {_ci(e['f1'])} vs "
                         f"'{f1_base['name']}' {f1_base['value']:.3f}"
                         + _versus(e.get("f1_versus_baseline"), e.get("f1_beats_baseline", True), f1_base["name"]))
        if "balanced_accuracy" in e:
            ba_base = e["balanced_accuracy_baseline"]
            lines.append(f"  balanced accuracy: {_ci(e['balanced_accuracy'])} vs '{ba_base['name']}' "
                         f"{ba_base['value']:.3f}" + _versus(e.get("balanced_accuracy_versus_baseline"), True,
                                                          ba_base["name"]))
        for rule, v in (e.get("versus_each_rule") or {}).items():  # each trivial rule, not only the best
            lines.append(f"  vs '{rule}': F1 {v['f1']:.3f}, difference [{v['f1_difference_ci'][0]:+.3f}, "
                         f"{v['f1_difference_ci'][1]:+.3f}] ({v['f1_versus']}); balanced accuracy "
                         f"{v['balanced_accuracy']:.3f}, difference [{v['balanced_accuracy_difference_ci'][0]:+.3f}, "
                         f"{v['balanced_accuracy_difference_ci'][1]:+.3f}] ({v['balanced_accuracy_versus']})")
        if "versus_model" in e:  # a trivial rule's card: the packaged model it is measured against
            m = e["versus_model"]
            lines.append(f"  vs {m['name']} on the same rows: {m['figure']} {m['value']:.3f} [{m['ci'][0]:.3f}, "
                         f"{m['ci'][1]:.3f}]; this rule minus it {_ci(m['difference'])}: this rule "
                         + {"beats": "beats it", "level with": "is level with it (no better)",
                            "worse than": "is worse than it"}[m["verdict"]])
        if e.get("coverage") is not None and e["coverage"] < 1:
            lines.append(f"  scores {e['coverage']:.1%} of the rows")
    lines.append(f"  ({c['method']})")
    lines += held_out_lines(c)
    return lines


def held_out_lines(c: Mapping[str, Any]) -> list[str]:
    """The card's held-out figures (``held_out``: measured out of sample on data the repository does not hold),
    each overruling the development figure on the same kind of data when they disagree."""
    lines = []
    for e in c.get("held_out") or ():
        base = e["best_baseline"]
        n = f"n={e['n']}" if e.get("n") else "n not published"
        lines.append(f"HELD OUT: {e['data']} ({n}): {e['target']} AUC {_ci(e['auc'])}; best trivial baseline "
                     f"({base['name']}) {base['auc']:.3f}"
                     + _versus(e.get("versus_baseline"), e.get("beats_baseline", False), base["name"])
                     + "; this, not the development figure, is what to expect on such data")
        lines.append(f"  (held out: {e['source']})")
    return lines
