"""A run file's value as the ``genevals run`` option it sets would have made it from the command line: the same
type conversion and choices, with a TOML array or table where the command line repeats a flag or lists values
with commas; a message saying what was expected and what was found."""
from __future__ import annotations

import argparse
import json
from typing import Any, Callable


class RunFileError(ValueError):
    """A run file that cannot be used; the message names the file, the line and the key."""


def type_name(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)


def convert(action: argparse.Action, value: Any, fail: Callable[[str], RunFileError]) -> Any:
    """``value`` as the option ``action`` would have made it from the command line."""
    if isinstance(action, argparse._StoreConstAction) and isinstance(action.const, bool):
        if not isinstance(value, bool):
            raise fail(f"expected true or false, got {type_name(value)}")
        return value if action.const else not value
    if isinstance(action, argparse._AppendAction):
        if isinstance(value, dict):  # fail-under = {rougeL = 0.3}, column_map = {question = "q"}
            value = [f"{k}={_text(v)}" for k, v in value.items()]
        items = value if isinstance(value, list) else [value]
        return [_one(action, item, fail) for item in items]
    return _one(action, value, fail)


def _text(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


def _one(action: argparse.Action, value: Any, fail: Callable[[str], RunFileError]) -> Any:
    kind = action.type
    if getattr(kind, "declared", None) is not None:  # a declared setting: TOML's typed value, the one checker
        from genevals.settings import check

        setting = kind.declared()
        try:
            return check(setting, value)
        except ValueError as exc:
            raise fail(str(exc).removeprefix(f"{setting.name}: ")) from None
    if isinstance(value, (dict, list)) and not (isinstance(value, list) and kind not in (None, int, float)):
        raise fail(f"expected {_expected(action)}, got {type_name(value)}")
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail(f"expected an integer, got {type_name(value)}")
        converted: Any = value
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(f"expected a number, got {type_name(value)}")
        converted = float(value)
    elif kind is None:
        if not isinstance(value, str):
            raise fail(f"expected a string, got {type_name(value)}")
        converted = value
    else:
        listed = getattr(kind, "__name__", "") in _LISTS
        if isinstance(value, bool) or (listed and not isinstance(value, (str, list))):
            raise fail(f"expected {_expected(action)}, got {type_name(value)}")
        text = ",".join(_text(v) for v in value) if isinstance(value, list) else _text(value)
        try:
            converted = kind(text)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
            raise fail(str(exc) or f"expected {_expected(action)}") from None
    if action.choices is not None and converted not in action.choices:
        from genevals.suggest import did_you_mean

        shown = ", ".join(map(str, action.choices))
        raise fail(f"'{converted}' is not one of: {shown}{did_you_mean(str(converted), map(str, action.choices))}")
    return converted


#: option types that read a comma-separated list: the file may give an array instead
_LISTS = {"csv_list": "an array of names or a comma-separated string",
          "whole_numbers": "an array of whole numbers"}


def _expected(action: argparse.Action) -> str:
    return _LISTS.get(getattr(action.type, "__name__", ""), "a string")
