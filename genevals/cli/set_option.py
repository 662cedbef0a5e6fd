"""``--set FAMILY.KEY=VALUE``: any metric setting from the command line (``run``, ``validate``), parsed by the
setting's declaration and checked by the one checker (:mod:`genevals.settings`)."""
from __future__ import annotations

import argparse
from typing import Any


def setting_assignment(text: str) -> tuple[str, str, Any]:
    """``--set FAMILY.KEY=VALUE``: (family, key, value), the value parsed by the setting's declaration and
    checked by the one checker; an unknown family or key gets a did-you-mean. Only the module of the family named
    is imported (:mod:`genevals.metric_index` knows it); every family only to suggest one for an unknown name."""
    from genevals.registry import UnknownMetric, families, load_family
    from genevals.settings import did_you_mean, find, parse

    name, sep, value = text.partition("=")
    family, dot, key = name.strip().partition(".")
    if not sep or not dot or not family or not key:
        raise argparse.ArgumentTypeError(f"expected FAMILY.KEY=VALUE (e.g. rouge.use_stemmer=true), got '{text}'")
    try:
        cls = load_family(family)
    except UnknownMetric:
        known = [cls.family for cls in families()]
        raise argparse.ArgumentTypeError(f"{name.strip()}: unknown metric family '{family}'"
                                         f"{did_you_mean(family, known)} (see `genevals metrics`)") from None
    key = key.strip().replace("-", "_")
    try:
        setting = find(cls.SETTINGS, key, family)
        return family, key, parse(setting, value, f"{family}.{key}")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (see `genevals metrics {family}`)") from None


def add_set_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--set", dest="set_settings", action="append", type=setting_assignment, default=[],
                        metavar="FAMILY.KEY=VALUE",
                        help="any metric setting (repeatable), e.g. rouge.use_stemmer=true, retrieval.cutoffs=1,5,20; "
                             "`genevals metrics NAME` lists a family's settings. A --set wins over the flag for the "
                             "same setting")


def set_settings(args: argparse.Namespace, options: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``options`` with every ``--set`` applied on top (the later --set wins for the same key)."""
    for family, key, value in getattr(args, "set_settings", None) or ():
        options.setdefault(family, {})[key] = value
    return options
