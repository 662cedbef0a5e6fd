"""``--jury FILE`` on ``genevals run`` and ``genevals validate``: several judges in place of one."""
from __future__ import annotations

import argparse
from typing import Any

HELP = ("several judges (TOML, YAML or JSON: a list of judges, each with the --judge-* keys, a name and a weight): "
        "every judge-backed metric runs on each; the --judge-* options are their defaults (see docs: juries)")


def add_option(parser: argparse.ArgumentParser, help: str = HELP) -> None:
    parser.add_argument("--jury", default=None, metavar="FILE", help=help)


def apply(args: argparse.Namespace, judge: Any) -> tuple[Any, str | None]:
    """(the jury of ``args.jury`` with ``judge`` as every member's defaults, or ``judge`` when no file was given;
    None), or (None, the error naming the file, line, judge and key) for a bad file."""
    if args.jury is None:
        return judge, None
    from genevals.judge.jury import JuryError, load_jury

    try:
        return load_jury(args.jury, base=judge), None
    except JuryError as exc:
        return None, f"--jury {exc}"
