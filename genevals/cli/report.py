"""``genevals report DIR1 DIR2 ... -o compare.html``: an HTML report built from earlier runs; ``genevals report
SET_DIR``: a generated test set's card page (report.html) drawn again from its card.json.

Exit codes (:mod:`genevals.cli.common`): 0 written, 1 written but a threshold was missed, 2 bad input.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, EXIT_THRESHOLD, add_thresholds, count
from genevals.output.runfolder import REPORT_FILE
from genevals.output.terminal import say

#: ``--history`` given with no path (the default history), told apart from ``--history ''`` (refused)
DEFAULT_HISTORY = object()


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``report`` subcommand to ``subparsers`` (from ``parser.add_subparsers``)."""
    report = subparsers.add_parser(
        "report", help="build one self-contained HTML report from one or more run folders",
        description="Build one self-contained HTML report (overview, charts, paired comparisons, samples and "
                    "hallucination review) from the results.jsonl and summary.json of earlier runs.")
    report.add_argument("runs", nargs="+", metavar="DIR",
                        help="run folders written by `genevals run --out`, or one test set's folder (`genevals "
                             "generate --out`: its card page is drawn again from card.json)")
    report.add_argument("-o", "--output", default=None,
                        help="HTML file to write (default: DIR/report.html for one run, compare.html for several)")
    add_thresholds(report)
    report.add_argument("--config", default=None, metavar="THRESHOLDS.json",
                        help='JSON thresholds: {"fail_under": {"metric": minimum}, "fail_over": {"metric": '
                             'maximum}} (a flat {"metric": minimum} reads as fail_under); --fail-under and '
                             "--fail-over win for the same metric")
    report.add_argument("--max-samples", type=count, default=None, metavar="N",
                        help="embed the texts (question, answer, contexts, judge claims) of at most N samples; "
                             "samples with contradicted/unverifiable claims or unscored metrics come first "
                             "(default 2000). Every sample's values still count in summaries, charts and "
                             "comparisons")
    report.add_argument("--all-pairs", action="store_true",
                        help="paired comparisons between every two systems, also different systems of different "
                             "runs (default: the systems of each run, and the same system across runs)")
    report.add_argument("--history", nargs="?", const=DEFAULT_HISTORY, default=None, metavar="PATH",
                        help="add a Trends tab: each headline metric across the runs of the run history (default "
                             "history: $GENEVALS_HISTORY, else $XDG_DATA_HOME/genevals/history.sqlite) that share "
                             "the first run's input")
    report.set_defaults(handler=cmd_report)
    return report


def cmd_report(args: argparse.Namespace) -> int:
    from genevals.output import thresholds as th
    from genevals.cli.gates import check_report
    from genevals.registry import declaration_of
    from genevals.report.model import MAX_DETAILED_SAMPLES, build_data
    from genevals.report.render import threshold_failures, unshared_ids_notes, write_page
    from genevals.output.runfolder import read_summary
    from genevals.stats import DEFAULT_MIN_COVERAGE

    if len(args.runs) == 1 and _is_test_set(args.runs[0]):
        return _test_set_page(args)
    given: dict[str, th.Threshold] = {}
    try:
        if args.config:
            given.update(th.normalise(th.load(args.config)))
        given.update(th.normalise(args.thresholds))
        run_dirs = [Path(d) for d in args.runs]
        check_report(list(given.values()), run_dirs)
        min_coverage = args.min_coverage
        if min_coverage is None:  # the one the (first) run was made with
            meta = read_summary(run_dirs[0]).get("meta") if run_dirs[0].is_dir() else None
            recorded = meta.get("min_coverage") if isinstance(meta, dict) else None
            min_coverage = recorded if isinstance(recorded, (int, float)) else DEFAULT_MIN_COVERAGE
        limit = MAX_DETAILED_SAMPLES if args.max_samples is None else args.max_samples
        data = build_data(run_dirs, list(given.values()) or None, max_detailed_samples=limit,
                          declared=declaration_of, min_coverage=min_coverage,
                          all_pairs=args.all_pairs)
        if len(run_dirs) == 1:  # reviewers' decisions, shown read-only (genevals review RUN_DIR writes them)
            from genevals.review.tally import report_state

            data["review"] = report_state(run_dirs[0])
            _review_warnings(data["review"])
        if args.history is not None:
            data["history"] = _trends(args.history, run_dirs[0])
    except (OSError, ValueError) as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    out = Path(args.output) if args.output else (run_dirs[0] / REPORT_FILE if len(run_dirs) == 1
                                                  else Path("compare.html"))
    problem = _clobbers(args, out, run_dirs)
    if problem is not None:
        say(f"genevals: error: {problem}")
        return EXIT_BAD_INPUT
    try:
        write_page(data, out)
    except OSError as exc:  # -o under a file, in a folder this user may not write, a name too long ...
        say(f"genevals: error: {_unwritable(out, exc)}")
        return EXIT_BAD_INPUT
    say(f"wrote {out}", sys.stdout)
    for note in unshared_ids_notes(data):
        say(f"genevals: warning: {note}")
    failures = threshold_failures(data) if data["thresholds"] and given else []
    for failure in failures:
        say(f"genevals: threshold missed: {failure}")
    return EXIT_THRESHOLD if failures else EXIT_OK


def _is_test_set(folder: str) -> bool:
    from genevals.report.testset import is_test_set

    return is_test_set(folder)


def _test_set_page(args: argparse.Namespace) -> int:
    """``genevals report SET_DIR``: a generated test set's card page, drawn again from its card.json."""
    from genevals.report.testset import PAGE, write_testset_page

    if args.thresholds or args.config or args.history is not None or args.all_pairs:
        say(f"genevals: error: {args.runs[0]} is a generated test set (card.json): thresholds, --history and "
            "--all-pairs apply to run folders")
        return EXIT_BAD_INPUT
    out = Path(args.output) if args.output else Path(args.runs[0]) / PAGE
    if out.exists() and out.resolve() == (Path(args.runs[0]) / "card.json").resolve():
        say(f"genevals: error: -o {out} is the card the page is drawn from")
        return EXIT_BAD_INPUT
    try:
        write_testset_page(args.runs[0], out)
    except ValueError as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    except OSError as exc:
        say(f"genevals: error: {_unwritable(out, exc)}")
        return EXIT_BAD_INPUT
    say(f"wrote {out}", sys.stdout)
    return EXIT_OK


def _clobbers(args: argparse.Namespace, out: Path, run_dirs: list[Path]) -> str | None:
    """Why the page may not be written to ``out``: it is a file the report was made from (a run's results, the
    thresholds file, the history)."""
    from genevals.files import clobber_refusal
    from genevals.output.runfolder import inputs_of

    inputs = [pair for run_dir in run_dirs for pair in inputs_of(run_dir)] + [("--config", args.config)]
    if args.history not in (None, DEFAULT_HISTORY):
        inputs.append(("--history", args.history))
    problem = clobber_refusal(out, inputs)
    return None if problem is None else f"-o {out} {problem}"


def _trends(history: str, run_dir: Path) -> dict:
    """The Trends tab's data: the history's runs of ``run_dir``'s input (HistoryError, a ValueError, if none)."""
    from genevals.history.store import History, default_path
    from genevals.history.trends import related, trends
    from genevals.output.runfolder import read_manifest, read_summary

    if history is not DEFAULT_HISTORY and not history.strip():
        raise ValueError("--history: an empty path; give a history file, or --history alone for the default history")
    path = Path(history).expanduser() if history is not DEFAULT_HISTORY else default_path()
    meta = read_summary(run_dir).get("meta") if run_dir.is_dir() else None
    try:
        manifest = read_manifest(run_dir) if run_dir.is_dir() else None
    except ValueError:  # a damaged manifest: the trend follows the input's name alone
        manifest = None
    with History(path, create=False) as store:
        runs = related(store.runs(), manifest.get("input_digest") if isinstance(manifest, dict) else None,
                       meta.get("input") if isinstance(meta, dict) else None)
    return trends(runs, str(path))


def _review_warnings(state: dict) -> None:
    """A review store that could not be read (the report is written without its decisions), or rows skipped."""
    if state.get("unreadable"):
        say(f"genevals: warning: {state['unreadable']}; the report shows no reviewers' decisions")
    elif state.get("skipped"):
        say(f"genevals: warning: {state['run']}/review.sqlite: {state['skipped']} row(s) that are not decisions "
            "(damaged or edited by hand) were left out")


def _unwritable(out: Path, exc: OSError) -> str:
    """Why the report cannot be written to ``out``, naming the path (and the file in the way, when a folder of
    the path is a file: the OS says only "File exists" or "Not a directory")."""
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                return f"cannot write the report to {out}: {parent} is a file, not a folder"
            break
    return f"cannot write the report to {out}: {exc.strerror or exc}"
