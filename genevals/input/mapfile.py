"""A mapping file's data (TOML, YAML or JSON), read within bounds: what :func:`genevals.input.mapping.read_file`
interprets.

A mapping is a dozen short lines, so anything far beyond that is refused before it costs anything: a file over
:data:`MAX_BYTES`; nesting deeper than :data:`MAX_DEPTH` (the parsers recurse, and 20,000 levels end in a
RecursionError), found for JSON and TOML by a linear scan of the brackets outside strings before parsing; YAML
aliases (``*name``), whose expansion turns 300 bytes into gigabytes (a "billion laughs"); and a key given twice
(which value was meant?). YAML is read by PyYAML's safe loader: plain data, never objects (``!!python/...`` tags
are refused). Each refusal is a :class:`Refused` with the line where the parser or the scan knows it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from genevals.quote import clip, quoted

#: a mapping file's largest size: a mapping is a dozen lines (and PyYAML reads some 50 KB a second)
MAX_BYTES = 64 << 10
#: the deepest nesting of lists and tables: a mapping needs two levels (the file, its contexts table)
MAX_DEPTH = 32
#: the characters of a parser's message shown (it may quote the file's text)
MESSAGE_LIMIT = 300
FORMATS = {".toml": "TOML", ".json": "JSON", ".yaml": "YAML", ".yml": "YAML"}


class Refused(ValueError):
    """What is wrong with the file's text, at ``line`` when known."""

    def __init__(self, line: int | None, message: str) -> None:
        self.line, self.message = line, message
        super().__init__(message if line is None else f"line {line}: {message}")


# a string (so its brackets do not count), a comment (TOML), or a bracket; a string left open runs to the end
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)
_TOML_TOKENS = re.compile(r'"""[\s\S]*?(?:"""|$)|\'\'\'[\s\S]*?(?:\'\'\'|$)|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?'
                          r'|#[^\n]*|[\[\]{}]')


def _check_depth(text: str, tokens: re.Pattern) -> None:
    """Refused at the first bracket deeper than MAX_DEPTH; one pass, no recursion."""
    depth = 0
    for token in tokens.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise Refused(text.count("\n", 0, token.start()) + 1,
                              f"nested more than {MAX_DEPTH} levels deep; a mapping is field = \"column\" pairs")
        elif char in "]}":
            depth -= 1


def _json(text: str) -> Any:
    def pairs(items: list) -> dict:
        found: dict = {}
        for key, value in items:
            if key in found:
                raise Refused(None, f"the key {quoted(key)} is given twice")
            found[key] = value
        return found

    _check_depth(text, _JSON_TOKENS)
    try:
        return json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise Refused(exc.lineno, f"malformed JSON: {exc.msg} (column {exc.colno})") from None


def _toml(text: str) -> Any:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        raise Refused(None, "reading TOML needs Python 3.11 or later; use a .json or .yaml file") from None
    _check_depth(text, _TOML_TOKENS)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        raise Refused(int(found.group(1)) if found else None, f"malformed TOML: {clip(str(exc), MESSAGE_LIMIT)}") \
            from None


def _yaml_loader() -> Any:
    import yaml

    class Loader(yaml.SafeLoader):
        """The safe loader, refusing aliases, nesting beyond MAX_DEPTH and a key given twice (PyYAML keeps the
        last silently). The depth is counted as nodes are composed, before the composer recurses deeper."""

        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            line = event.start_mark.line + 1
            if isinstance(event, yaml.AliasEvent):
                raise Refused(line, f"a YAML alias (*{clip(str(event.anchor), 40)}) repeats a part of the file; "
                                    "aliases are not read in a mapping file, write each column out")
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise Refused(line, f"nested more than {MAX_DEPTH} levels deep; a mapping is field: column pairs")
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict = {}
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key = self.construct_object(key_node)
                    line = key_node.start_mark.line + 1
                    if key in seen:
                        raise Refused(line, f"the key {quoted(key)} is given twice (first on line {seen[key]})")
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

    return Loader


def _yaml(text: str) -> Any:
    import yaml

    loader = _yaml_loader()(text)
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(part) for part in (exc.context, exc.problem) if part)
        raise Refused(mark.line + 1 if mark else None, f"malformed YAML: {clip(problem, MESSAGE_LIMIT)}") from None
    except yaml.YAMLError as exc:
        raise Refused(None, f"malformed YAML: {clip(str(exc).replace(chr(10), ' '), MESSAGE_LIMIT)}") from None
    finally:
        loader.dispose()


_PARSERS = {"TOML": _toml, "JSON": _json, "YAML": _yaml}


def parse(raw: bytes, kind: str) -> Any:
    """The data of a mapping file's bytes in format ``kind`` (TOML, JSON or YAML); Refused for text that is not
    UTF-8, empty, too deep, malformed, or (YAML) holding aliases or objects, and for a key given twice."""
    try:
        text = raw.decode("utf-8-sig")  # a byte order mark, as Windows editors write it, is allowed
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise Refused(line, f"invalid UTF-8 at byte {exc.start}") from None
    if "\x00" in text:
        raise Refused(text.count("\n", 0, text.index("\x00")) + 1, "a NUL character; a mapping file is text")
    if not text.strip():
        raise Refused(None, "the file is empty; expected field = \"column\" pairs")
    try:
        return _PARSERS[kind](text)
    except Refused:
        raise
    except RecursionError:  # the scans keep nesting far below the limit; this is a second guard
        raise Refused(None, "nested too deeply; a mapping is field = \"column\" pairs") from None
    except ValueError as exc:  # an integer past sys.get_int_max_str_digits(), in any of the three
        raise Refused(None, f"malformed {kind}: {clip(str(exc), MESSAGE_LIMIT)}") from None


def kind_of(path: Path) -> str | None:
    """TOML, JSON or YAML by the file's suffix; None for another."""
    return FORMATS.get(path.suffix.lower())
