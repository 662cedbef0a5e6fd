"""``genevals compare RUN_A [RUN_B]``: which system is better, by how much, and is it real, from run folders.

RUN_A alone compares the systems within that run; with RUN_B, each system both runs hold is compared with
itself across the runs (B minus A), paired on the question ids both scored. Every comparison is
:func:`genevals.stats.comparisons.compare_named` (a seeded paired bootstrap), so the figures equal summary.json's and the
report's. Prints the leaderboard and the significant differences, or ``--json``.

Gates, on the gated metrics (``--metrics``, default the headline ones: a run's --fail-under/--fail-over metrics
first): ``--fail-if-worse SYSTEM`` exits 1 when SYSTEM is significantly worse than another system of RUN_A (with
RUN_B: than itself in RUN_A); with RUN_B, exit 1 when RUN_B is significantly worse than RUN_A for any system.
A gate that would compare nothing is bad input, never a pass.

A metric the two runs scored under different signatures (other settings, language handling, model or prompt:
:func:`genevals.signature.signature_difference`) is not compared, never a regression: the leaderboard, the JSON's
``not_compared`` and stderr say why ("not compared: signatures differ (lang:auto vs lang:en)").

Exit codes (:mod:`genevals.cli.common`): 0 no significant regression among the metrics compared, 1 one, 2 bad
input (a missing folder, a folder without results, an unknown system or metric, systems that share no question
id, or two runs none of whose gated metrics could be compared: their signatures differ).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, EXIT_THRESHOLD, csv_list
from genevals.output.terminal import say, visible_message
from genevals.suggest import did_you_mean

#: how many available names an error lists before "..."
SHOWN_NAMES = 12


class CompareError(ValueError):
    """Bad input, said in one line naming the folder, system or metric, the value and what would do."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    compare = subparsers.add_parser(
        "compare", help="paired comparisons of a run's systems, or of two runs; exit 1 on a significant regression",
        description="Which system is better, by how much, and is it real: a seeded paired bootstrap on the "
                    "question ids the systems share (the figures of summary.json and the report). RUN_A alone: "
                    "its systems against each other. With RUN_B: each system both runs hold, RUN_B against RUN_A.")
    compare.add_argument("run_a", metavar="RUN_A", help="a run folder written by `genevals run --out`")
    compare.add_argument("run_b", metavar="RUN_B", nargs="?", default=None,
                         help="a second run folder: its systems are compared with the same systems in RUN_A, and "
                              "the command exits 1 when RUN_B is significantly worse on a gated metric (a metric "
                              "the runs scored under different signatures is not compared, and said)")
    compare.add_argument("-m", "--metrics", type=csv_list, default=None, metavar="A,B",
                         help="the metrics compared and gated (default: the headline metrics, the runs' "
                              "--fail-under/--fail-over metrics first)")
    compare.add_argument("--fail-if-worse", default=None, metavar="SYSTEM",
                         help="exit 1 when SYSTEM is significantly worse (p < 0.05) than another system of RUN_A on "
                              "a gated metric, or with RUN_B, than itself in RUN_A")
    compare.add_argument("--json", action="store_true", help="print the comparisons, leaderboard and gate as JSON")
    compare.add_argument("-q", "--quiet", action="store_true", help="print only errors and the gate's result")
    compare.set_defaults(handler=cmd_compare)
    return compare


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:SHOWN_NAMES])
    return shown + (f", ... ({len(names)} in all)" if len(names) > SHOWN_NAMES else "")


def _run(path: str, which: str) -> dict[str, Any]:
    """A run folder's summary and declared directions; :class:`CompareError` saying what is wrong with it."""
    from genevals.output import runfolder, summary_shape
    from genevals.output.comparing import directions_of

    folder = Path(path)
    if not folder.exists():
        siblings = [p.name for p in folder.parent.iterdir() if p.is_dir()] if folder.parent.is_dir() else []
        raise CompareError(f"{which} {path}: no such folder{did_you_mean(folder.name, siblings)}")
    if not folder.is_dir():
        raise CompareError(f"{which} {path}: a file, not a run folder (give the folder `genevals run --out` wrote)")
    if not runfolder.has_results(folder):
        raise CompareError(f"{which} {path}: no {runfolder.RESULTS_FILE} in it (not a run folder written by "
                           "`genevals run --out`, or a run that scored nothing)")
    try:
        summary = runfolder.read_summary(folder)
        summary_shape.check(summary, folder / runfolder.SUMMARY_FILE)
        declared = runfolder.read_outputs(folder)
    except ValueError as exc:  # a file that is no JSON object, a FIFO, too large, or a field of the wrong type
        raise CompareError(f"{which} {exc}") from None
    if not isinstance(summary.get("systems"), Mapping) or not summary["systems"]:
        raise CompareError(f"{which} {path}: no {runfolder.SUMMARY_FILE} with systems in it (an interrupted run: "
                           "`genevals run ... --resume` finishes it)")
    return {"path": folder, "summary": summary, "directions": directions_of(declared)}


def _metrics(asked: Sequence[str] | None, runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The compared metrics: those asked for (each one every run has), else the headline of those they share."""
    from genevals.stats.comparisons import headline_metrics
    from genevals.output.comparing import gated

    per_run = [list(dict.fromkeys(m for per in run["summary"]["systems"].values() for m in per)) for run in runs]
    shared = [m for m in per_run[0] if all(m in names for names in per_run[1:])]
    if asked is None:
        found = headline_metrics(shared, [m for run in runs for m in gated(run["summary"].get("meta") or {})])
        if not found:
            raise CompareError("the runs share no metric: nothing to compare")
        return found
    for name in asked:
        if name not in shared:
            raise CompareError(f"--metrics {name}: not a metric of {'both runs' if len(runs) > 1 else 'the run'}"
                               f"{did_you_mean(name, shared)} (they have: {_listed(shared)})")
    return list(dict.fromkeys(asked))


def _worse_side(c: Mapping[str, Any], directions: Mapping[str, str]) -> str | None:
    """The system significantly worse in comparison ``c`` (its "a" or "b" name), or None."""
    from genevals.stats.comparisons import higher_is_better

    if not c.get("significant") or not c.get("mean_difference"):
        return None
    a_better = (c["mean_difference"] > 0) == higher_is_better(c["metric"], directions.get(c["metric"]))
    return c["b"] if a_better else c["a"]


def _untested(gated: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The gated comparisons with too few pairs to test (no p-value): they pass the gate, and it says so."""
    return [c for c in gated if c.get("p_value") is None]


def _within(run: Mapping[str, Any], metrics: Sequence[str], system: str | None
            ) -> tuple[dict, list[dict], list[dict]]:
    from genevals.output.comparing import for_folder

    systems = list(run["summary"]["systems"])
    if system is not None and system not in systems:
        raise CompareError(f"--fail-if-worse {system}: no such system in {run['path']}"
                           f"{did_you_mean(system, systems)} (it has: {_listed(systems)})")
    if system is not None and len(systems) < 2:
        raise CompareError(f"--fail-if-worse {system}: {run['path']} holds one system, nothing to compare it with; "
                           "give RUN_B to compare it with itself across two runs")
    found = for_folder(run["path"], run["summary"], metrics=metrics)
    if len(systems) > 1 and not found["comparisons"]:
        raise CompareError(f"{run['path']}: its systems ({_listed(systems)}) share no scored question id on "
                           f"{', '.join(metrics)}: nothing was compared (rows without an id get their row number "
                           "as id: run again with --map id=question)")
    mine = [c for c in found["comparisons"] if system in (c["a"], c["b"])]
    if system is not None and not mine:
        raise CompareError(f"--fail-if-worse {system}: it shares no scored question id with another system on "
                           f"{', '.join(metrics)}: nothing was compared")
    worse = [c for c in mine if _worse_side(c, run["directions"]) == system]
    return found, worse, _untested(mine)


def _labels(a: Path, b: Path) -> tuple[str, str]:
    if a.name != b.name:
        return a.name, b.name
    return (str(a), str(b)) if str(a) != str(b) else ("A", "B")


def _across(run_a: Mapping[str, Any], run_b: Mapping[str, Any], metrics: Sequence[str],
            system: str | None) -> tuple[dict, list[dict], list[dict]]:
    from genevals.output.comparing import across_runs
    from genevals.stats import DEFAULT_SEED

    in_a, in_b = list(run_a["summary"]["systems"]), list(run_b["summary"]["systems"])
    shared = [s for s in in_a if s in in_b]
    if not shared:
        raise CompareError(f"RUN_A {run_a['path']} holds {_listed(in_a)} and RUN_B {run_b['path']} holds "
                           f"{_listed(in_b)}: no system in common, nothing to compare")
    if system is not None and system not in shared:
        raise CompareError(f"--fail-if-worse {system}: not a system of both runs{did_you_mean(system, shared)} "
                           f"(both have: {_listed(shared)})")
    label_a, label_b = _labels(run_a["path"], run_b["path"])
    directions = {**run_a["directions"], **run_b["directions"]}
    found = across_runs(run_a["path"], run_a["summary"], label_a, run_b["path"], run_b["summary"], label_b, shared,
                        metrics, run_a["summary"].get("seed", DEFAULT_SEED), directions)
    gated_systems = [system] if system is not None else shared
    mine = [c for c in found["comparisons"] if c["b"].removeprefix(f"{label_a}/") in gated_systems]
    apart = found["not_compared"]
    if not mine and apart:  # every gated metric scored under other settings: a gate on nothing
        raise CompareError(f"RUN_A {run_a['path']} and RUN_B {run_b['path']}: nothing was compared: "
                           + "; ".join(f"{e['metric']} not compared: {e['why']}" for e in apart))
    if not mine:
        raise CompareError(f"RUN_A {run_a['path']} and RUN_B {run_b['path']} share no scored question id for "
                           f"{_listed(gated_systems)} on {', '.join(metrics)}: nothing was compared")
    worse = [c for c in mine if _worse_side(c, directions) == c["a"]]  # a is RUN_B's
    return found, worse, _untested(mine)


def cmd_compare(args: argparse.Namespace) -> int:
    from genevals.output.runfolder import ResultsError
    from genevals.output.terminal import difference_line, leaderboard_lines

    try:
        runs = [_run(args.run_a, "RUN_A")] + ([_run(args.run_b, "RUN_B")] if args.run_b is not None else [])
        metrics = _metrics(args.metrics, runs)
        if len(runs) == 1:
            found, worse, untested = _within(runs[0], metrics, args.fail_if_worse)
        else:
            found, worse, untested = _across(runs[0], runs[1], metrics, args.fail_if_worse)
    except (CompareError, ResultsError) as exc:  # ResultsError: a results.jsonl line that is not a result
        print(f"genevals: error: {visible_message(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    gating = args.fail_if_worse is not None or len(runs) == 2
    directions = {k: v for run in runs for k, v in run["directions"].items()}
    if args.json:
        print(json.dumps({"runs": [str(run["path"]) for run in runs], "metrics": metrics, **found,
                          "gate": {"system": args.fail_if_worse, "gated": gating, "metrics": metrics,
                                   "worse": worse, "failed": bool(worse)}}, indent=2, ensure_ascii=False))
    elif not args.quiet:
        for line in leaderboard_lines(found, directions):
            print(line)
    for c in worse:
        say(f"genevals: significantly worse: {difference_line(c, directions)}")
    apart = found.get("not_compared") or []
    if apart and (args.quiet or args.json):  # the leaderboard's lines say it otherwise
        for entry in apart:
            say(f"genevals: not compared: {entry['metric']}: {entry['why']}")
    if gating and not worse and not args.json:
        who = args.fail_if_worse or "RUN_B"
        named = list(dict.fromkeys(c["metric"] for c in untested))
        skipped = [entry["metric"] for entry in apart]
        tested = [m for m in metrics if m not in skipped]
        print(f"gate passed: {who} is not significantly worse on {', '.join(tested)}"
              + (f" (too few pairs to test on {', '.join(named)})" if named else "")
              + (f"; not compared (signatures differ): {', '.join(skipped)}" if skipped else ""))
    return EXIT_THRESHOLD if worse else EXIT_OK
