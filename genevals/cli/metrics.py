"""``genevals metrics``: every metric with its outputs, their definitions and directions, its signature, the extra
it needs (and whether that is installed), and its validation card where it has one."""
from __future__ import annotations

import argparse

from genevals.cli.common import EXIT_OK

_DIRECTION = {"higher": "", "lower": " [lower is better]", "neither": ""}


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("metrics", help="list every metric with its definition and defaults")
    parser.set_defaults(handler=cmd_metrics)
    return parser


def cmd_metrics(args: argparse.Namespace) -> int:
    from genevals.metrics.base import card_lines
    from genevals.registry import describe_all, load_family

    last_family = None
    for family, name, output, signature in describe_all():
        if family != last_family:
            if last_family is not None:
                _card(load_family(last_family).card(), card_lines)
            print(f"\n{family}" + (f"  ({signature})" if signature else "") + _extra(load_family(family)))
            last_family = family
        definition = output.definition.strip()
        first_line = definition.splitlines()[0] if definition else ""
        print(f"  {name:<22} {first_line}{_DIRECTION[output.direction]}")
    if last_family is not None:
        _card(load_family(last_family).card(), card_lines)
    return EXIT_OK


def _extra(cls) -> str:
    """"  [needs genevals[semantic]: installed]" for a metric that needs an extra, else ""."""
    if not cls.extra:
        return ""
    return f"  [needs genevals[{cls.extra}]: {'not installed' if cls.missing() else 'installed'}]"


def _card(card, card_lines) -> None:
    """A metric's validation card under its outputs (the offline triad judges: benchmarks/bench_triad.py)."""
    if card:
        print("  validation card (out-of-fold, grouped by question, 95% CI):")
        for line in card_lines(card):
            print("    " + line)
