"""Cases: curate (issue 50, point 9): hostile run folders, rules and options for ``genevals curate``.

Every case starts from the corpus's base run folder (``{out}``: the good rows scored with the cheap metrics).

* **Refused, named, nothing written**: every malformed rule (empty, unknown, a bound that is no finite number, a
  metric no result has, ``sample:N`` out of range), ``--near`` out of range or not a number, a ``--band-metric``
  no result has, ``--review`` with two run folders or naming a file that is no review store, a folder that is no
  run folder (empty, missing, a file), a damaged results line, a trace export in the wrong format or broken, a
  huge seed.
* **Written**: a seeded sample, a low rule on the run's metric, the same folder given twice (its duplicates
  removed), Unicode in the output path, a results file whose last line a crash cut (passed over, as every
  reader of a run folder does); a rule that chose nothing says why and an empty set exits 1.
"""
from __future__ import annotations

import json

from hostile.cases import OK, REFUSED, Case

CLS = "curate"


def _curate(id: str, expect: str, *args: str, where=(), setup: str = "", files=(), limit: float = 20.0) -> Case:
    return Case(id=f"{CLS}-{id}", cls=CLS, expect=expect, where=tuple(where), setup=setup, files=tuple(files),
                argv=("curate", *args), limit=limit)


def _set(*rules: str) -> tuple[str, ...]:
    return ("{out}", "--out", "{tmp}/set", *(a for r in rules for a in ("--rule", r)))


def cases() -> list[Case]:
    langfuse_broken = ("traces.json", b'[{"id": "t1", "input": "q"')
    openinference_not = ("traces.json", json.dumps({"resourceSpans": "nope"}).encode())
    refused = [
        _curate("rule-empty", REFUSED, *_set(""), where=("--rule",)),
        _curate("rule-unknown", REFUSED, *_set("bogus"), where=("--rule 'bogus'",)),
        _curate("rule-low-nan", REFUSED, *_set("low:token_f1<nan"), where=("finite number",)),
        _curate("rule-low-inf", REFUSED, *_set("low:token_f1<inf"), where=("finite number",)),
        _curate("rule-low-text", REFUSED, *_set("low:token_f1<abc"), where=("finite number",)),
        _curate("rule-low-no-metric", REFUSED, *_set("low:nosuch<0.5"), where=("'nosuch'",)),
        _curate("rule-low-escape", REFUSED, *_set("low:\x1b[31mred<0.5"), where=("--rule",)),
        _curate("rule-sample-zero", REFUSED, *_set("sample:0"), where=("sample:N",)),
        _curate("rule-sample-negative", REFUSED, *_set("sample:-3"), where=("sample:N",)),
        _curate("rule-sample-huge", REFUSED, *_set("sample:" + "9" * 40), where=("sample:N",)),
        _curate("rule-sample-unicode-digits", REFUSED, *_set("sample:\u0663"), where=("sample:N",)),
        _curate("near-zero", REFUSED, *_set("sample:1"), "--near", "0", where=("--near",)),
        _curate("near-over", REFUSED, *_set("sample:1"), "--near", "101", where=("--near",)),
        _curate("near-nan", REFUSED, *_set("sample:1"), "--near", "nan", where=("--near",)),
        _curate("near-text", REFUSED, *_set("sample:1"), "--near", "close", where=("--near",)),
        _curate("band-metric-unknown", REFUSED, *_set("sample:1"), "--band-metric", "nosuch",
                where=("--band-metric",)),
        _curate("review-two-runs", REFUSED, "{out}", "{out}", "--out", "{tmp}/set", "--rule", "disputed",
                "--review", "{out}/results.jsonl", where=("--review",)),
        _curate("review-not-a-store", REFUSED, *_set("disputed"), "--review", "{out}/summary.json",
                where=("summary.json",)),
        _curate("review-missing", REFUSED, *_set("disputed"), "--review", "{tmp}/nothing.sqlite",
                where=("nothing.sqlite",)),
        _curate("run-missing", REFUSED, "{tmp}/nothing", "--out", "{tmp}/set", "--rule", "sample:1",
                where=("nothing",)),
        _curate("run-empty-folder", REFUSED, "{tmp}/empty", "--out", "{tmp}/set", "--rule", "sample:1",
                setup="empty_folder", where=("results.jsonl",)),
        _curate("rule-low-unicode-digits", REFUSED, *_set("low:token_f1<\u0660.\u0665"), where=("--rule",)),
        _curate("results-garbage-line", REFUSED, *_set("sample:1"), setup="results_garbage_line",
                where=("results.jsonl:",)),
        _curate("results-folder", REFUSED, *_set("sample:1"), setup="results_folder", where=("results.jsonl",)),
        _curate("trace-broken", REFUSED, "{in}", "--from", "langfuse", "--out", "{tmp}/set", "--rule", "sample:1",
                files=(langfuse_broken,), where=("traces.json",)),
        _curate("trace-wrong-shape", REFUSED, "{in}", "--from", "openinference", "--out", "{tmp}/set", "--rule",
                "sample:1", files=(openinference_not,), where=("traces.json",)),
        _curate("trace-format-unknown", REFUSED, "{out}", "--from", "zipkin", "--out", "{tmp}/set", "--rule",
                "sample:1", where=("--from",)),
        _curate("seed-huge", REFUSED, *_set("sample:1"), "--seed", "9" * 5000, where=("--seed",)),
        _curate("out-is-a-file", REFUSED, "{out}", "--out", "{out}/summary.json", "--rule", "sample:1",
                where=("summary.json",)),
    ]
    written = [
        _curate("sample-one", OK, *_set("sample:1")),
        _curate("low-token-f1", OK, *_set("low:token_f1<0.5", "sample:1")),
        _curate("same-run-twice", OK, "{out}", "{out}", "--out", "{tmp}/set", "--rule", "sample:50"),
        _curate("unicode-out", OK, "{out}", "--out", "{tmp}/s\u00e9t \u6570\u636e", "--rule", "sample:2"),
        _curate("seed-negative", OK, *_set("sample:2"), "--seed", "-7"),
        # a last line cut by a crash is passed over, as every reader of a run folder does
        _curate("results-cut-mid-line", OK, *_set("sample:1"), setup="results_cut_last_line"),
        _curate("nothing-chosen", "exit:1", *_set("disputed"), where=("rule disputed chose nothing",)),
    ]
    return refused + written
