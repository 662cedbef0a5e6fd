"""Text from data, made safe to print on a terminal: a system name, an id or a metric name can hold ESC
sequences (which recolour, retitle or rewrite the screen), NUL, other C0 and C1 controls, line breaks and bidi
overrides (which reorder what is shown). :func:`visible` shows each such character as its escape (``\\x1b``,
``\\u202e``), so what the terminal prints is what the data holds; everything else is left as it is."""
from __future__ import annotations

import re
from typing import Any

# C0, DEL and C1 controls; the line and paragraph separators; the bidi marks, embeddings, overrides and
# isolates; lone surrogates (a file name's undecodable bytes, which a UTF-8 stream cannot even encode)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff\ufeff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(value: Any) -> str:
    """``str(value)`` with every control, separator and bidi-formatting character written as its escape."""
    return _UNSAFE.sub(_escape, value if isinstance(value, str) else str(value))
