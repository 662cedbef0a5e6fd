"""``genevals metrics``: every metric with its outputs, their definitions and directions, its signature, the extra
it needs (and whether that is installed), and its validation card where it has one. ``genevals metrics NAME``:
one family, with its settings (name, type, default, limits, help) as the family declares them."""
from __future__ import annotations

import argparse

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK
from genevals.output.terminal import say

_DIRECTION = {"higher": "", "lower": " [lower is better]", "neither": ""}


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("metrics", help="list every metric with its definition and defaults")
    parser.add_argument("name", nargs="?", default=None,
                        help="one metric family: its outputs and its settings (for --set FAMILY.KEY=VALUE); `judge`: the "
                             "judge's and its backends' settings (for --judge-option KEY=VALUE)")
    parser.set_defaults(handler=cmd_metrics)
    return parser


def cmd_metrics(args: argparse.Namespace) -> int:
    from genevals.metrics.base import card_lines
    from genevals.registry import describe_all, families, load_family
    from genevals.settings import did_you_mean

    name = getattr(args, "name", None)
    if name == "judge":
        return _judge()
    if name is not None and name not in {cls.family for cls in families()}:
        known = [cls.family for cls in families()]
        say(f"genevals: error: unknown metric family '{name}'{did_you_mean(name, known + ['judge'])} "
            f"(families: {', '.join(known)}; `genevals metrics judge` lists the judge's settings)")
        return EXIT_BAD_INPUT
    last_family = None
    for family, output_name, output, signature in describe_all(name):
        if family != last_family:
            if last_family is not None:
                _card(load_family(last_family).card(), card_lines)
                _note(load_family(last_family))
            print(f"\n{family}" + (f"  ({signature})" if signature else "") + _extra(load_family(family)))
            last_family = family
        definition = output.definition.strip()
        first_line = definition.splitlines()[0] if definition else ""
        print(f"  {output_name:<22} {first_line}{_DIRECTION[output.direction]}")
    if last_family is not None:
        _card(load_family(last_family).card(), card_lines)
        _note(load_family(last_family))
    if name is not None:
        _settings(load_family(name))
    return EXIT_OK


def _judge() -> int:
    """The judge's settings and each backend's own, as --judge-option, the run file's [judge] and the API take."""
    from genevals.judge.config import SETTINGS, all_backend_settings
    from genevals.settings import table

    print("judge settings (--judge-option KEY=VALUE; [judge] in a run file; judge={KEY: VALUE} in the API):")
    for line in table(SETTINGS):
        print("    " + line)
    for backend, declared in all_backend_settings().items():
        print(f"\nbackend {backend}'s own settings (used when the judge is {backend}):")
        for line in table(declared):
            print("    " + line)
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


def _note(cls) -> None:
    """Where a metric's confidence holds, for a metric that says (the cascade: the detector's calibrated domain)."""
    note = getattr(cls, "card_note", None)
    text = note() if callable(note) else None
    if text:
        print(f"  where it holds: {text}")
