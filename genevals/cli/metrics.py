"""``genevals metrics``: every metric with its outputs, their definitions and directions, and its signature."""
from __future__ import annotations

import argparse

from genevals.cli.common import EXIT_OK

_DIRECTION = {"higher": "", "lower": " [lower is better]", "neither": ""}


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("metrics", help="list every metric with its definition and defaults")
    parser.set_defaults(handler=cmd_metrics)
    return parser


def cmd_metrics(args: argparse.Namespace) -> int:
    from genevals.registry import describe_all

    last_family = None
    for family, name, output, signature in describe_all():
        if family != last_family:
            print(f"\n{family}" + (f"  ({signature})" if signature else ""))
            last_family = family
        definition = output.definition.strip()
        first_line = definition.splitlines()[0] if definition else ""
        print(f"  {name:<22} {first_line}{_DIRECTION[output.direction]}")
    return EXIT_OK
