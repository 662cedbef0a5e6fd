"""Cases: agreement_labels (issue 39): ``genevals run --require-agreement LABELS [--min-kappa K]``: labels files
that are no JSONL of labelled answers (bad bytes, wrong shapes), one bad row of every kind (each field with the
wrong type, spans out of range, no label, no id), paths that are no file, ``--min-kappa`` outside [-1, 1] or not a
number, the options in a run file, and the gate on a real offline judge with too few labels (exit 3). The labels
are read before anything is scored: a refusal names the file, the line and the field (or the option)."""
from __future__ import annotations

import json

from hostile.cases import ANY, REFUSED, Case, good_jsonl, jsonl

CLS = "agreement_labels"
NAME = "labels.jsonl"
GOOD = {"id": "q1", "context": "Paris is the capital and largest city of France.",
        "response": "Paris is the capital of France.", "hallucinated": False}
GOOD2 = {"id": "q2", "context": ["Hamlet is a tragedy written by William Shakespeare."],
         "response": "Shakespeare wrote Hamlet.", "hallucinated": False, "spans": []}
RUN = ("run", "{in}", "--out", "{out}", "--metrics", "faithfulness", "--no-history")
BAD_BYTES = {
    "empty": b"", "nul": b'{"id": "q1\x00"}\n', "invalid-utf8": b'{"id": "\xff"}\n', "bom-only": b"\xef\xbb\xbf",
    "binary": bytes(range(256)) * 16, "huge-line": b'{"id": "' + b"x" * 2_000_000 + b'"}\n',
    "numbers": b"[1, 2, 3]\n", "scalar": b"5\n", "deep": b"[" * 5000 + b"]" * 5000 + b"\n",
    "blank-lines": b"\n\n  \n", "json-array-of-rows": json.dumps([GOOD, GOOD2]).encode() + b"\n",
    "cut-short": json.dumps(GOOD).encode()[:30],
}
_OUT = object()
#: one bad value in line 2: (field set to value, or removed with _OUT; what the message names)
BAD_ROWS = {
    "response-missing": ("response", _OUT, "response"), "response-number": ("response", 5, "response"),
    "response-null": ("response", None, "response"), "context-missing": ("context", _OUT, "context"),
    "context-number": ("context", 1, "context"), "context-numbers": ("context", [1, 2], "context"),
    "context-object": ("context", {"a": "b"}, "context"), "question-number": ("question", 3, "question"),
    "question-list": ("question", ["q"], "question"), "spans-string": ("spans", "0-5", "spans"),
    "spans-past-end": ("spans", [{"start": 0, "end": 10_000}], "spans"),
    "spans-reversed": ("spans", [{"start": 5, "end": 2}], "spans"),
    "spans-negative": ("spans", [{"start": -1, "end": 2}], "spans"),
    "spans-bool": ("spans", [{"start": True, "end": 2}], "spans"),
    "spans-float": ("spans", [{"start": 0.5, "end": 2}], "spans"),
    "spans-item-list": ("spans", [[0, 2]], "spans"),
    "history-string": ("history", "earlier", "history"),
    "history-bad-role": ("history", [{"role": "bot", "content": "x"}], "history[0].role"),
    "history-item-string": ("history", ["x"], "history[0]"),
    "hallucinated-string": ("hallucinated", "true", "hallucinated"),
    "hallucinated-number": ("hallucinated", 1, "hallucinated"),
    "hallucinated-list": ("hallucinated", [True], "hallucinated"),
    "no-label": ("hallucinated", _OUT, "hallucinated"),
    "id-missing": ("id", _OUT, "id"), "id-bool": ("id", True, "id"), "id-list": ("id", ["q2"], "id"),
    "id-float": ("id", 2.5, "id"), "id-null": ("id", None, "id"), "id-object": ("id", {"q": 2}, "id"),
}
#: --min-kappa VALUE
#: (ANY: a value either way; accepted, the run is refused for its metrics, naming them)
KAPPAS = {"below": ("-1.5", REFUSED), "above": ("1.5", REFUSED), "two": ("2", REFUSED), "nan": ("nan", REFUSED),
          "inf": ("inf", REFUSED), "minus-inf": ("-inf", REFUSED), "word": ("high", REFUSED), "empty": ("", REFUSED),
          "percent": ("60%", REFUSED), "comma": ("0,6", REFUSED), "hex": ("0x1", REFUSED),
          "lowest": ("-1", ANY), "highest": ("1", ANY), "tiny": ("1e-400", ANY), "spaced": (" 0.5 ", ANY)}


def _row_text(field: str, value) -> str:
    # spans are a label too: a row without hallucinated has none only without them
    row = {k: v for k, v in GOOD2.items() if k != field and (field, k) != ("hallucinated", "spans")}
    if value is not _OUT:
        row[field] = value
    return json.dumps(row)


def _case(slug: str, expect: str, labels: bytes | None, where=(), extra=(), argv=RUN, setup: str = "",
          name: str = NAME, limit: float = 20.0) -> Case:
    files = (("in.jsonl", good_jsonl()),) + (((name, labels),) if labels is not None else ())
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=tuple(where), files=files,
                argv=(*argv, *extra), setup=setup, limit=limit)


def _accepted(slug: str, labels: bytes) -> Case:
    return _case(f"accepted-{slug}", REFUSED, labels, ("--require-agreement", "this run does not compute"),
                 ("--metrics", "exact_match", *_labels_option()))


def _labels_option(path: str = "{tmp}/" + NAME) -> tuple[str, ...]:
    return ("--require-agreement", path)


def cases() -> list[Case]:
    found = []
    good = jsonl(json.dumps(GOOD), json.dumps(GOOD2))
    for slug, data in BAD_BYTES.items():
        found.append(_case(f"bytes-{slug}", REFUSED, data, ("--require-agreement", NAME), _labels_option()))
    for slug, (field, value, named) in BAD_ROWS.items():
        found.append(_case(f"row-{slug}", REFUSED, jsonl(json.dumps(GOOD), _row_text(field, value)),
                           ("--require-agreement", f"{NAME}:2", named), _labels_option()))
    found += [
        _case("row-not-object", REFUSED, jsonl(json.dumps(GOOD), '"q2"'), (f"{NAME}:2",), _labels_option()),
        _case("row-malformed", REFUSED, jsonl(json.dumps(GOOD), '{"id": "q2",'), (f"{NAME}:2",), _labels_option()),
        _case("row-nan-label", REFUSED, jsonl(json.dumps(GOOD), _row_text("hallucinated", "@@").replace('"@@"', "NaN")),
              (f"{NAME}:2", "hallucinated"), _labels_option()),
        _case("many-bad-rows", REFUSED, jsonl(*(["{}"] * 500)), ("500 bad row(s)", f"{NAME}:1"), _labels_option()),
        # accepted labels: read, then the run is refused for computing no verdict to compare them with (so
        # nothing is scored); a refusal of the labels would name their file instead
        _accepted("good", good),
        _accepted("crlf", good.replace(b"\n", b"\r\n")),
        _accepted("bom", b"\xef\xbb\xbf" + good),
        _accepted("duplicate-ids", jsonl(json.dumps(GOOD), json.dumps(GOOD))),
        _accepted("unknown-field", jsonl(json.dumps({**GOOD, "mood": 1}))),
        _accepted("id-number", jsonl(json.dumps({**GOOD, "id": 1}))),
        _accepted("blank-line-between", jsonl(json.dumps(GOOD), "", json.dumps(GOOD2))),
        _accepted("history", jsonl(json.dumps({**GOOD, "history": [{"role": "user", "content": "Hi"}]}))),
        # the gate on a real offline judge: two labels are too few to tell (exit 3, results written first)
        _case("grounding-too-few", "exit:3", good, (),
              ("--metrics", "grounding", *_labels_option(), "--fail-under", "faithfulness=0.5"), limit=40.0),
    ]
    paths = {"missing": ("{tmp}/nowhere.jsonl", "", ("nowhere.jsonl",)), "folder": ("{tmp}", "", ()),
             "dev-null": ("/dev/null", "", ("/dev/null",)), "fifo": ("{tmp}/fifo.jsonl", "fifo", ("fifo.jsonl",)),
             "dangling": ("{tmp}/dangling.jsonl", "dangling_symlink", ("dangling.jsonl",)),
             "empty-path": ("", "", ()), "proc": ("/proc/self/mem", "", ())}
    for slug, (path, setup, named) in paths.items():
        found.append(_case(f"path-{slug}", REFUSED, None, ("--require-agreement", *named), _labels_option(path),
                           setup=setup))
    # as root the file is read all the same, and the run is refused for its metrics (see _accepted)
    found.append(_case("path-unreadable", REFUSED, good, ("--require-agreement",),
                       ("--metrics", "exact_match", *_labels_option()), setup="unreadable_labels"))
    for slug, (value, expect) in KAPPAS.items():
        found.append(_case(f"min-kappa-{slug}", expect, good,
                           ("--min-kappa",) if expect == REFUSED else ("this run does not compute",),
                           ("--metrics", "exact_match", *_labels_option(), "--min-kappa", value)))
    found += [
        _case("min-kappa-alone", REFUSED, None, ("--min-kappa", "--require-agreement"), ("--min-kappa", "0.5")),
        _case("no-judged-metric", REFUSED, good, ("--require-agreement", "faithfulness"),
              ("--metrics", "exact_match", *_labels_option())),
        _case("runfile-min-kappa-string", REFUSED, b'min_kappa = "high"\n', ("g.toml:1", "min_kappa"),
              ("-c", "{tmp}/g.toml"), name="g.toml"),
        _case("runfile-min-kappa-above", REFUSED, b"min-kappa = 2.0\n", ("g.toml:1", "min-kappa"),
              ("-c", "{tmp}/g.toml"), name="g.toml"),
        _case("runfile-require-number", REFUSED, b"require_agreement = 5\n", ("g.toml:1", "require_agreement"),
              ("-c", "{tmp}/g.toml"), name="g.toml"),
    ]
    return found


def unreadable_labels(folder, out, inp) -> None:
    (folder / NAME).chmod(0)


SETUPS = {"unreadable_labels": unreadable_labels}
