"""``genevals run``'s mapping options: ``--map-file`` (a TOML or JSON file of ``field = "column"``) merged with
``--map`` (which wins for the same field), and ``--show-mapping``, which prints the first row as genevals reads it
through the mapping and exits, so a mapping is checked without scoring anything."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK
from genevals.quote import clip


def column_map(args: argparse.Namespace) -> dict[str, str]:
    """The mapping of ``--map-file`` then ``--map``; an InputError naming the option for a bad one."""
    from genevals.input import mapping
    from genevals.input.readers import InputError, parse_column_map

    from_file: dict[str, str] = {}
    if args.map_file is not None:
        try:
            from_file = mapping.read_file(args.map_file)
        except mapping.MapError as exc:
            raise InputError("--map-file", None, None, str(exc)) from None
    merged = {**from_file, **parse_column_map(args.map)}
    try:
        mapping.check(merged)
    except mapping.MapError as exc:
        raise InputError("--map/--map-file", None, None, str(exc)) from None
    return merged


def from_file(message: str, args: argparse.Namespace, merged: dict[str, str]) -> str:
    """``message`` with each ``--map FIELD=COLUMN`` that came from the ``--map-file`` named as the file's line
    ``FIELD = "COLUMN"`` (the engine knows only the merged mapping)."""
    if args.map_file is None:
        return message
    given = {pair.partition("=")[0].strip() for pair in args.map}
    for target, column in merged.items():
        if target not in given:  # the tracker's message quotes the column clipped, as this one does
            message = message.replace(f"--map {target}={clip(column)}:", f"--map-file {args.map_file}: {target} "
                                                                         f"= {json.dumps(clip(column))}:")
    return message


def show(args: argparse.Namespace, merged: dict[str, str]) -> int:
    """Print the input's first row as genevals reads it through ``merged`` (JSON), and the mapping's problems
    found in it; exit 2 when the row cannot be read or a mapped column is not in it."""
    from genevals.input.fields import FieldTracker
    from genevals.input.readers import ALIASES, KNOWN_FIELDS, InputError, iter_samples

    tracker = FieldTracker(KNOWN_FIELDS, ALIASES, merged)
    first: Any = None
    try:
        for first in iter_samples(args.input, merged, tracker):
            break
    except InputError as exc:
        print(f"genevals: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if first is None:
        print(f"genevals: error: {args.input}: no rows (the input is empty, blank or only a header)", file=sys.stderr)
        return EXIT_BAD_INPUT
    problems = [from_file(m, args, merged).replace("no row has a field", "the first row has no field")
                for m in tracker.unmapped()]
    if isinstance(first, InputError):
        problems.insert(0, str(first))
    for warning in tracker.warnings():
        print(f"genevals: warning: {warning}", file=sys.stderr)
    for problem in problems:
        print(f"genevals: error: {problem}", file=sys.stderr)
    if problems:
        return EXIT_BAD_INPUT
    row = first.to_dict()
    print(f"{row.pop('origin')} read through the mapping:")
    print(json.dumps(row, indent=2, ensure_ascii=False))
    return EXIT_OK
