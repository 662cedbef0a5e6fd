"""``genevals metrics``: every metric with its outputs, their definitions and directions, its signature, the extra
it needs (and whether that is installed), and its validation card where it has one. ``genevals metrics NAME``:
one family, with its settings (name, type, default, limits, help) as the family declares them."""
from __future__ import annotations

import argparse
import sys

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK

_DIRECTION = {"higher": "", "lower": " [lower is better]", "neither": ""}


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("metrics", help="list every metric with its definition and defaults")
    parser.add_argument("name", nargs="?", default=None,
                        help="one metric family: its outputs and its settings (for --set FAMILY.KEY=VALUE)")
    parser.set_defaults(handler=cmd_metrics)
    return parser


def cmd_metrics(args: argparse.Namespace) -> int:
    from genevals.metrics.base import card_lines
    from genevals.registry import describe_all, families, load_family
    from genevals.settings import did_you_mean

    name = getattr(args, "name", None)
    if name is not None and name not in {cls.family for cls in families()}:
        known = [cls.family for cls in families()]
        print(f"genevals: error: unknown metric family '{name}'{did_you_mean(name, known)} "
              f"(families: {', '.join(known)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    last_family = None
    for family, output_name, output, signature in describe_all(name):
        if family != last_family:
            if last_family is not None:
                _card(load_family(last_family).card(), card_lines)
            print(f"\n{family}" + (f"  ({signature})" if signature else "") + _extra(load_family(family)))
            last_family = family
        definition = output.definition.strip()
        first_line = definition.splitlines()[0] if definition else ""
        print(f"  {output_name:<22} {first_line}{_DIRECTION[output.direction]}")
    if last_family is not None:
        _card(load_family(last_family).card(), card_lines)
    if name is not None:
        _settings(load_family(name))
    return EXIT_OK


def _settings(cls) -> None:
    """The family's declared settings, as ``--set`` and the API's ``options`` take them."""
    from genevals.settings import table

    if not cls.SETTINGS:
        print("  settings: none")
        return
    print(f"  settings (--set {cls.family}.NAME=VALUE; options={{'{cls.family}': {{NAME: VALUE}}}} in the API):")
    for line in table(cls.SETTINGS):
        print("    " + line)


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
