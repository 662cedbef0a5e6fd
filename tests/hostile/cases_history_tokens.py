"""Cases: history_tokens (issue 38): the history budget of a conversation's turns, as ``--history-tokens N``
(on a conversation and on single-turn rows), the run file's ``history_tokens`` (and in a profile),
``genevals.evaluate(history_tokens=...)``, and a ``--resume`` whose budget differs from the folder's manifest (or
whose manifest holds a bad one). Negative, fractional, textual, non-finite, overflowing values, budgets past
1,000,000 tokens (past any judge's context) and digits written as ``1_000`` or in another script are refused naming
the option or the file's line and key; zero keeps no history; a million keeps all of it."""
from __future__ import annotations

import json
from pathlib import Path

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, good_jsonl, jsonl
from hostile.cases_conversations import CONV

CLS = "history_tokens"
CONVERSATION = jsonl(json.dumps(CONV), json.dumps({**CONV, "id": "c2"}))
#: --history-tokens VALUE: how it must end
FLAG_VALUES = {
    "zero": ("0", OK), "one": ("1", OK), "default": ("2000", OK), "minus-zero": ("-0", ANY),
    "huge": ("9" * 30, REFUSED), "max": ("1000000", OK), "past-max": ("1000001", REFUSED),
    "negative": ("-1", REFUSED), "very-negative": ("-1000000", REFUSED),
    "fraction": ("1.5", REFUSED), "whole-float": ("5.0", REFUSED), "exponent": ("1e3", REFUSED),
    "word": ("abc", REFUSED), "empty": ("", REFUSED), "nan": ("nan", REFUSED), "inf": ("inf", REFUSED),
    "hex": ("0x10", REFUSED), "true": ("true", REFUSED), "none": ("None", REFUSED),
    "five-thousand-digits": ("9" * 5000, REFUSED), "spaced-digits": ("1 000", REFUSED),
    "plus": ("+5", OK), "padded": (" 5 ", OK), "underscore": ("1_000", REFUSED), "arabic-digit": ("\u0663", REFUSED),
    "full-width": ("\uff15", REFUSED), "underscore-max": ("1_000_000", REFUSED), "newline": ("5\n", ANY),
    "control": ("5\x1b[2J", REFUSED),
}
#: the run file's ``history_tokens = VALUE`` (TOML text)
FILE_VALUES = {
    "zero": ("0", OK), "hex": ("0x10", OK), "underscore": ("1_000", OK), "plus": ("+5", OK),
    "int64-max": ("9223372036854775807", REFUSED), "max": ("1000000", OK), "past-max": ("1000001", REFUSED),
    "underscore-max": ("1_000_000", OK), "string-underscore": ('"1_000"', REFUSED), "negative": ("-1", REFUSED),
    "fraction": ("1.5", REFUSED),
    "whole-float": ("5.0", REFUSED), "string": ('"2000"', REFUSED), "empty-string": ('""', REFUSED),
    "bool": ("true", REFUSED), "list": ("[5]", REFUSED), "table": ("{a = 1}", REFUSED), "nan": ("nan", REFUSED),
    "inf": ("inf", REFUSED), "minus-inf": ("-inf", REFUSED), "exponent": ("1e3", REFUSED),
    "date": ("1979-05-27", REFUSED),
}
#: evaluate(..., history_tokens=VALUE) (a Python expression)
API_VALUES = {
    "zero": ("0", OK), "numpy-int": ("np.int64(7)", OK), "huge": ("10**30", REFUSED), "max": ("10**6", OK),
    "past-max": ("10**6 + 1", REFUSED), "numpy-past-max": ("np.int64(10**6 + 1)", REFUSED), "negative": ("-1", REFUSED),
    "fraction": ("1.5", REFUSED), "string": ("'5'", REFUSED), "bool": ("True", REFUSED), "none": ("None", REFUSED),
    "nan": ("float('nan')", REFUSED), "list": ("[5]", REFUSED), "numpy-negative": ("np.int64(-1)", REFUSED),
    "numpy-float": ("np.float64(5.0)", REFUSED),
}


#: the values refused for the limit (the message names it), and what the message says for others: what to write
#: instead, or (past int()'s 4,300-digit limit) the option's words rather than Python's
PAST_MAX = {"huge", "past-max"}
SAID = {"underscore": "write 1000", "arabic-digit": "write 3", "full-width": "write 5",
        "underscore-max": "write 1000000", "five-thousand-digits": "expected a whole number from 0 to 1,000,000"}


def _flag(slug: str, value: str, expect: str, content: bytes, extra=()) -> Case:
    argv = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--no-history", "--history-tokens", value, *extra)
    name = slug.removeprefix("flag-").removesuffix("-single-turn")
    where = ("--history-tokens",) + (("1,000,000",) if name in PAST_MAX else ()) + \
        ((SAID[name],) if name in SAID else ())
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=where,
                files=(("in.jsonl", content),), argv=argv)


def _file(slug: str, text: str, expect: str, where=("g.toml:1", "history_tokens"), extra=()) -> Case:
    argv = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--no-history", "-c", "{tmp}/g.toml", *extra)
    return Case(id=f"{CLS}-file-{slug}", cls=CLS, expect=expect, where=where, argv=argv,
                files=(("in.jsonl", CONVERSATION), ("g.toml", text.encode())))


def _manifest(value):
    def step(folder: Path, out: Path, inp: Path) -> None:
        manifest = json.loads((out / "manifest.json").read_text())
        manifest.setdefault("options", {})["history_tokens"] = value
        (out / "manifest.json").write_text(json.dumps(manifest))
    return step


#: a previous run's manifest with a history budget of each kind (a file edited by hand)
MANIFESTS = {"string": "abc", "negative": -1, "null": None, "list": [5], "fraction": 1.5, "huge": 10**30}
SETUPS = {f"history_tokens_manifest_{slug}": _manifest(value) for slug, value in MANIFESTS.items()}


def cases() -> list[Case]:
    found = []
    for slug, (value, expect) in FLAG_VALUES.items():
        found.append(_flag(f"flag-{slug}", value, expect, CONVERSATION))
        found.append(_flag(f"flag-{slug}-single-turn", value, expect, good_jsonl()))
    for slug, (value, expect) in FILE_VALUES.items():
        found.append(_file(slug, f"history_tokens = {value}\n", expect))
    found += [
        _file("dashes", "history-tokens = 5\n", OK),
        _file("twice", "history_tokens = 5\nhistory-tokens = 6\n", REFUSED, ("g.toml:1", "history-tokens")),
        # TOML's readers take any integer; a budget past a million tokens is refused naming the limit
        _file("past-int64", "history_tokens = 99999999999999999999\n", REFUSED,
              ("g.toml:1", "history_tokens", "1,000,000")),
        _file("profile-past-max", "[profiles.p]\nhistory_tokens = 1000001\n", REFUSED,
              ("g.toml:2", "history_tokens", "1,000,000"), extra=("--profile", "p")),
        _file("profile-negative", "[profiles.p]\nhistory_tokens = -1\n", REFUSED, ("g.toml:2", "history_tokens"),
              extra=("--profile", "p")),
        _file("flag-wins", "history_tokens = -1\n", ANY, ("g.toml:1", "history_tokens"),
              extra=("--history-tokens", "5")),
    ]
    found += [Case(id=f"{CLS}-api-{slug}", cls=CLS, expect=expect, where=("history_tokens",),
                   files=(("in.jsonl", CONVERSATION),), api=f"evaluate(IN, M, history_tokens={value})")
              for slug, (value, expect) in API_VALUES.items()]
    resume = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--no-history", "--resume")
    found.append(Case(id=f"{CLS}-resume-changed", cls=CLS, expect=REFUSED, where=("history_tokens", "5"),
                      files=(("in.jsonl", good_jsonl()),), argv=(*resume, "--history-tokens", "5")))
    found.append(Case(id=f"{CLS}-resume-same", cls=CLS, expect=OK, files=(("in.jsonl", good_jsonl()),),
                      argv=(*resume, "--history-tokens", "2000")))
    for slug in MANIFESTS:
        found.append(Case(id=f"{CLS}-resume-manifest-{slug}", cls=CLS, expect=ANY, where=("history_tokens",),
                          files=(("in.jsonl", good_jsonl()),), argv=resume,
                          setup=f"history_tokens_manifest_{slug}"))
    return found
