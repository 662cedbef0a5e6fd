"""``genevals export otel RUN_DIR [--otel-endpoint URL]``: send a written run's results to an OpenTelemetry
backend as ``gen_ai.evaluation.result`` events (:mod:`genevals.output.otel`); and ``genevals run ...
--otel-endpoint URL``, which sends them once the run's files are written.

Exit codes (:mod:`genevals.cli.common`): ``export otel``: 0 every event was sent, 1 some could not be (the
backend is down, refused them or did not answer in time; otel.json says how many), 2 bad input (no run folder, a
URL that is not http(s), the ``otel`` extra not installed). ``run --otel-endpoint``: the run's own exit code
whatever became of the events (a warning says what could not be sent): a run that scored is not failed by a
dashboard that is down. Checked before anything is scored: the URL and the extra (exit 2).
"""
from __future__ import annotations

import argparse
from pathlib import Path

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK, EXIT_THRESHOLD
from genevals.lifecycle.course import otel_send
from genevals.output.terminal import say

_ENDPOINT_HELP = ("the OTLP/HTTP endpoint: a base URL (http://localhost:4318; /v1/logs is added) or the full logs "
                  "URL; headers such as credentials come from OTEL_EXPORTER_OTLP_HEADERS, never from a file")


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("export", help="send a run's results elsewhere (otel: an OpenTelemetry backend)",
                                   description="`genevals export otel RUN_DIR` sends each sample's metric results "
                                               "as gen_ai.evaluation.result events (OpenTelemetry GenAI semantic "
                                               "conventions) over OTLP/HTTP; samples imported from traces link to "
                                               "their trace and span.")
    sub = parser.add_subparsers(dest="export_command", required=True, metavar="{otel}")
    otel = sub.add_parser("otel", help="send the run's results as OpenTelemetry events (needs genevals[otel])")
    otel.add_argument("run_dir", metavar="RUN_DIR", help="a run folder (`genevals run -o DIR`)")
    otel.add_argument("--otel-endpoint", default=None, metavar="URL",
                      help=_ENDPOINT_HELP + " (default: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT, "
                           "else http://localhost:4318)")
    otel.set_defaults(handler=cmd_otel)
    return parser


def add_run_option(parser: argparse.ArgumentParser) -> None:
    """``genevals run --otel-endpoint URL``."""
    parser.add_argument("--otel-endpoint", default=None, metavar="URL",
                        help="once the run's files are written, send its results to this OpenTelemetry backend "
                             f"(needs genevals[otel]); {_ENDPOINT_HELP}. A backend that fails is a warning, never "
                             "the run's exit code")


def cmd_otel(args: argparse.Namespace) -> int:
    from genevals.output import otel

    try:
        url = otel.endpoint(args.otel_endpoint)
    except otel.OtelError as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    needs = otel.missing()
    if needs:
        say(f"genevals: error: {needs}")
        return EXIT_BAD_INPUT
    try:
        ok, line, unrecorded = otel_send(Path(args.run_dir), url)
    except ValueError as exc:  # OtelError, or a results.jsonl line that is not a result
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    if unrecorded:
        say(f"genevals: warning: could not record what was sent: {unrecorded}")
    if not ok:
        say(f"genevals: error: {line}")
        return EXIT_THRESHOLD
    print(line)
    return EXIT_OK
