"""The ``genevals`` command line: one module per subcommand, and :mod:`genevals.cli.common` for what they
share (exit codes, option parsers, thresholds, the judge options).

Exit codes: 0 success, 1 a --fail-under / --fail-over threshold was missed (``compare``: a significant
regression; ``export otel``: events that could not be sent), 2 bad input (found before anything
is scored) or a judge that fails its preflight, 3 too many judge errors (--max-judge-errors), 130 interrupted
(partial results and summary are written), 141 the reader of stdout went away (``genevals metrics | head -1``).
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

from genevals.cli import compare, curate, export, fuse, generate, history, label, metrics, report, review, run, validate, watch
from genevals.cli.common import EXIT_BAD_INPUT

#: a command whose stdout reader went away exits as one killed by SIGPIPE does in a shell (128 + 13), as
#: `yes | head -1` does: quietly, since the reader took all it wanted
EXIT_CLOSED_STDOUT = 141

SUBCOMMANDS = (run, metrics, report, compare, validate, review, fuse, label, generate, curate, history, export, watch)


#: the most of a usage error that is printed: argparse quotes the value it refused whole (a 5,000-digit number,
#: a pasted file), and a terminal or a CI log should get the point, not the value
MAX_ERROR = 400


class Parser(argparse.ArgumentParser):
    """argparse's parser (its subcommands' too: they are made of the same class) with usage errors cut short."""

    def error(self, message: str):  # type: ignore[override]
        from genevals.judge.redact import redact_urls
        from genevals.output.terminal import visible_message

        # argparse quotes what it refused as given: a URL with a password or a token in its query, passed to a
        # command that has no such option (``export otel --endpoint URL``), is shown as --print-config shows it
        message = redact_urls(message)
        if len(message) > MAX_ERROR:
            message = f"{message[:MAX_ERROR - 60]} ... ({len(message):,} characters in all) ... {message[-40:]}"
        super().error(visible_message(message))


def build_parser() -> argparse.ArgumentParser:
    from genevals._version import __version__

    parser = Parser(prog="genevals", description="Score RAG answers and find hallucinations.")
    parser.add_argument("--version", action="version", version=f"genevals {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in SUBCOMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _dispatch(argv)
        finally:  # --help's SystemExit too: piped output is buffered, so the pipe may turn out closed only here
            sys.stdout.flush()
    except BrokenPipeError:
        return _closed_stdout()


def _dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.error(f"unknown command {args.command}")
        return EXIT_BAD_INPUT
    return handler(args)


def _closed_stdout() -> int:
    """After stdout's reader went away: point stdout at /dev/null, so the interpreter's own flush at exit finds
    nowhere to fail (Python's documented recipe), and give the SIGPIPE exit status."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout replaced by something without a file descriptor
        pass
    return EXIT_CLOSED_STDOUT


if __name__ == "__main__":
    sys.exit(main())
