"""Cases: jury (issue 39): hostile ``--jury FILE`` files for ``genevals run`` and ``genevals validate`` (bad bytes
in each format, wrong shapes, every judge key with a bad value, names, weights, keys in the file, missing
environment variables, too few or too many judges) and ``judge=[...]`` in the API. Whatever the input: no
traceback, no hang, and a refusal names the file (or ``judge``), the entry and the key."""
from __future__ import annotations

import json

from hostile.cases import ANY, REFUSED, Case, good_jsonl

CLS = "jury"
GOOD = {"model": "a", "base_url": "{judge}"}
#: bytes no jury file of any format may be
BAD_BYTES = {
    "empty": b"",
    "nul": b"[{\"model\": \"a\x00\"}]",
    "invalid-utf8": b"[{\"model\": \"\xff\"}]",
    "bom-only": b"\xef\xbb\xbf",
    "binary": bytes(range(256)) * 16,
    "huge-line": b"x" * 2_000_000,
    "numbers": b"[1, 2, 3]",
    "scalar": b"5",
    "deep": b"[" * 5000 + b"]" * 5000,
}
#: one bad value per judge key, in the second entry: (key, value, what the message names)
BAD_KEYS = {
    "temperature-negative": ("temperature", -1, "temperature"),
    "temperature-string": ("temperature", "hot", "temperature"),
    "concurrency-zero": ("concurrency", 0, "concurrency"),
    "concurrency-float": ("concurrency", 2.5, "concurrency"),
    "timeout-zero": ("timeout", 0, "timeout"),
    "repeats-zero": ("repeats", 0, "repeats"),
    "repeats-huge": ("repeats", 10**6, "repeats"),
    "backend-bogus": ("backend", "bogus", "backend"),
    "base-url-empty": ("base_url", "", "base_url"),
    "model-empty": ("model", " ", "model"),
    "max-tokens-zero": ("max_tokens", 0, "max_tokens"),
    "retries-negative": ("max_retries", -1, "max_retries"),
    "prices-malformed": ("prices", {"a": 5}, "prices"),
    "prices-string": ("prices", "cheap", "prices"),
    "cache-string": ("cache", "yes please", "cache"),
    "seed-float": ("seed", 1.5, "seed"),
    "n-ctx-on-openai": ("n_ctx", 4096, "n_ctx"),
    "unknown-key": ("modle", "b", "modle"),
    "weight-zero": ("weight", 0, "weight"),
    "weight-negative": ("weight", -2, "weight"),
    "weight-string": ("weight", "heavy", "weight"),
    "weight-bool": ("weight", True, "weight"),
    "name-empty": ("name", "", "name"),
    "name-pipe": ("name", "a|b", "name"),
    "name-number": ("name", 5, "name"),
    "api-key-in-file": ("api_key", "sk-in-the-file", "api_key"),
    "api-key-env-missing": ("api_key_env", "GENEVALS_HOSTILE_NO_SUCH_VAR", "GENEVALS_HOSTILE_NO_SUCH_VAR"),
    "api-key-env-empty": ("api_key_env", "", "api_key_env"),
    "api-key-env-number": ("api_key_env", 7, "api_key_env"),
}
#: wrong shapes of a whole file (JSON): (text, what the message names)
SHAPES = {
    "one-judge": ([GOOD], "at least 2 judges"),
    "no-judges": ([], "at least 2 judges"),
    "seventeen": ([dict(GOOD, name=f"j{i}") for i in range(17)], "at most 16"),
    "same-names": ([GOOD, GOOD], "already judge 1's name"),
    "entry-string": ([GOOD, "gpt-4o"], "judge 2"),
    "entry-null": ([GOOD, None], "judge 2"),
    "entry-list": ([GOOD, [1, 2]], "judge 2"),
    "object-unknown-key": ({"jurors": [GOOD, GOOD]}, "jurors"),
    "object-judges-not-list": ({"judges": {"model": "a"}}, "expected a list of judges"),
}


def _run(slug: str, name: str, data: bytes, expect: str, where: tuple[str, ...], extra=()) -> Case:
    argv = ("run", "{in}", "--metrics", "faithfulness", "--jury", "{tmp}/" + name, "--no-history", "--out", "{out}",
            *extra)
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=where, argv=argv,
                files=(("in.jsonl", good_jsonl()), (name, data)))


def _json(entries) -> bytes:
    return json.dumps(entries).replace("{judge}", "http://127.0.0.1:9/v1").encode()


def cases() -> list[Case]:
    found = []
    for suffix in ("toml", "yaml", "json"):
        for slug, data in BAD_BYTES.items():
            found.append(_run(f"{suffix}-{slug}", f"jury.{suffix}", data, REFUSED, (f"jury.{suffix}",)))
    for slug, (key, value, named) in BAD_KEYS.items():
        found.append(_run(f"key-{slug}", "jury.json", _json([GOOD, {**GOOD, "model": "b", key: value}]), REFUSED,
                          ("jury.json", "judge 2", named)))
    for slug, (entries, named) in SHAPES.items():
        found.append(_run(f"shape-{slug}", "jury.json", _json(entries), REFUSED, ("jury.json", named)))
    toml = b'[[judge]]\nmodel = "a"\n\n[[judge]]\nmodel = "b"\ntemperature = -1\n'
    found += [
        _run("toml-line-named", "jury.toml", toml, REFUSED, ("jury.toml: line 4: judge 2", "temperature")),
        _run("yaml-line-named", "jury.yaml", b"- {model: a}\n- {model: b, weight: 0}\n", REFUSED,
             ("jury.yaml: line 2: judge 2", "weight")),
        _run("suffix-unknown", "jury.txt", _json([GOOD, GOOD]), REFUSED, ("jury.txt", ".txt")),
        _run("dry-run-good", "jury.json", _json([dict(GOOD, name="a"), dict(GOOD, name="b", model="b")]), ANY, (),
             extra=("--dry-run",)),
        _run("pairwise-refused", "jury.json", _json([dict(GOOD, name="a"), dict(GOOD, name="b", model="b")]),
             REFUSED, ("pairwise", "cannot be judged by a jury"), extra=("--metrics", "pairwise")),
        Case(id=f"{CLS}-validate-bad-key", cls=CLS, expect=REFUSED, where=("jury.json", "judge 2", "concurrency"),
             argv=("validate", "{tmp}/labelled.jsonl", "--judge", "llm", "--jury", "{tmp}/jury.json", "--out",
                   "{out}"),
             files=(("labelled.jsonl", b'{"context": "a", "response": "a", "hallucinated": false}\n'),
                    ("jury.json", _json([GOOD, {**GOOD, "model": "b", "concurrency": 0}])))),
        Case(id=f"{CLS}-validate-local", cls=CLS, expect=REFUSED, where=("--jury", "--judge llm"),
             argv=("validate", "{tmp}/labelled.jsonl", "--judge", "local", "--jury", "{tmp}/jury.json", "--out",
                   "{out}"),
             files=(("labelled.jsonl", b'{"context": "a", "response": "a", "hallucinated": false}\n'),
                    ("jury.json", _json([GOOD, dict(GOOD, model="b")])))),
    ]
    api = {
        "one": ("[{'model': 'a'}]", ("at least 2 judges",)),
        "bad-key": ("[{'model': 'a'}, {'model': 'b', 'concurrency': 0}]", ("judge 2", "concurrency")),
        "unknown-key": ("[{'model': 'a'}, {'modle': 'b'}]", ("judge 2", "modle")),
        "entry-int": ("[{'model': 'a'}, 5]", ("judge 2",)),
        "weight": ("[{'model': 'a', 'weight': -1}, {'model': 'b'}]", ("judge 1", "weight")),
        "config-and-bad": ("[JudgeConfig(model='a'), {'model': 'b', 'backend': 'bogus'}]", ("judge 2", "backend")),
        "tuple-of-strings": ("('a', 'b')", ("judge 1",)),
    }
    found += [Case(id=f"{CLS}-api-{slug}", cls=CLS, expect=REFUSED, where=where,
                   files=(("in.jsonl", good_jsonl()),), api=f"evaluate(ROWS, ['faithfulness'], judge={kw})")
              for slug, (kw, where) in api.items()]
    return found
