"""``genevals run``'s mapping options: ``--map-file`` (a TOML or JSON file of ``field = "column"``) merged with
``--map`` (which wins for the same field); ``--ignore-fields`` with the file's ``ignore`` list, the columns nothing
reads that no warning should name; and ``--show-mapping``, which prints the first row as genevals reads it through
the mapping and exits, so a mapping is checked without scoring anything."""
from __future__ import annotations

import argparse
import json
from typing import Any

from genevals.cli import sources
from genevals.cli.common import EXIT_BAD_INPUT, EXIT_OK
from genevals.quote import clip, quoted
from genevals.output.terminal import say


def column_map(args: argparse.Namespace) -> dict[str, str]:
    """The mapping of ``--map-file`` then ``--map``; an InputError naming the option for a bad one."""
    return read(args)[0]


def read(args: argparse.Namespace) -> tuple[dict[str, str], tuple[str, ...]]:
    """The mapping of ``--map-file`` then ``--map``, and the columns to ignore (the file's ``ignore``, then
    ``--ignore-fields``); an InputError naming the option for a bad one."""
    from genevals.input import mapping
    from genevals.input.readers import InputError, parse_column_map

    from_file = mapping.MapFile({})
    if args.map_file is not None:
        try:
            from_file = mapping.load(args.map_file)
        except mapping.MapError as exc:
            raise InputError("--map-file", None, None, str(exc)) from None
    merged = {**from_file.columns, **parse_column_map(args.map)}
    try:
        mapping.check(merged)
    except mapping.MapError as exc:
        raise InputError("--map/--map-file", None, None, str(exc)) from None
    ignore = tuple(dict.fromkeys([*from_file.ignore, *(getattr(args, "ignore_fields", None) or ())]))
    _check_ignored(ignore, merged, args)
    return merged, ignore


def _check_ignored(ignore: tuple[str, ...], merged: dict[str, str], args: argparse.Namespace) -> None:
    """An InputError for an ignored column that something reads: ignoring it would silence nothing and hide
    that the column is used."""
    from genevals.input.readers import ALIASES, KNOWN_FIELDS, InputError
    from genevals.input.rows.raw import METADATA

    given = set(getattr(args, "ignore_fields", None) or ())
    for name in ignore:
        where = "--ignore-fields" if name in given else f"--map-file {args.map_file}: ignore"
        if name == METADATA:
            raise InputError(where, None, None, f"'{METADATA}' is declared for a row's own facts: genevals never "
                                                "reads it and no warning names it, so there is nothing to ignore")
        if name in KNOWN_FIELDS or name in ALIASES:
            read_as = "" if name in KNOWN_FIELDS else f" (read as {ALIASES[name]})"
            raise InputError(where, None, None, f"{quoted(name)} is a field genevals reads{read_as}; ignore names "
                                                "columns that nothing reads, to silence their warnings")
        mapped = [target for target, column in merged.items() if column == name]
        if mapped:
            raise InputError(where, None, None, f"{quoted(name)} is mapped ({mapped[0]}={clip(name)}); ignore names "
                                                "columns that nothing reads, to silence their warnings")


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


def show(args: argparse.Namespace, merged: dict[str, str], ignore: tuple[str, ...] = ()) -> int:
    """Print the input's first row as genevals reads it through ``merged`` (JSON), and the mapping's problems
    found in it; exit 2 when the row cannot be read or a mapped column is not in it."""
    from genevals.input.fields import FieldTracker
    from genevals.input.readers import ALIASES, KNOWN_FIELDS, InputError, iter_samples

    tracker = FieldTracker(KNOWN_FIELDS, ALIASES, merged, ignore)
    first: Any = None
    try:
        for first in iter_samples(sources.data(args), merged, tracker):  # a trace export's rows too
            break
    except InputError as exc:
        say(f"genevals: error: {exc}")
        return EXIT_BAD_INPUT
    if first is None:
        say(f"genevals: error: {args.input}: no rows (the input is empty, blank or only a header)")
        return EXIT_BAD_INPUT
    problems = [from_file(m, args, merged).replace("no row has a field", "the first row has no field")
                for m in tracker.unmapped()]
    if isinstance(first, InputError):
        problems.insert(0, str(first))
    for warning in tracker.warnings():
        say(f"genevals: warning: {warning}")
    for problem in problems:
        say(f"genevals: error: {problem}")
    if problems:
        return EXIT_BAD_INPUT
    row = first.to_dict()
    print(f"{row.pop('origin')} read through the mapping:")
    print(json.dumps(row, indent=2, ensure_ascii=False))
    return EXIT_OK
