"""Cases: surfaces37 (issues 37 and 40): hostile input to what those issues added: ``genevals label``'s run,
topics and documents files (bad bytes, wrong shapes, duplicates, huge lines, empty files, unknown ids) and its
--depth; ``--ignore-fields`` values; ``genevals compare`` given paths that are no run folder. Whatever the input:
no traceback, no hang, a located message when refused."""
from __future__ import annotations

import json

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, good_jsonl

CLS = "surfaces37"
RUN = b"q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\nq2 Q0 d2 1 3.0 sys\n"
TOPICS = b"q1\twhere is the ferry\nq2\twhen does the library open\n"
DOCS = (json.dumps({"id": "d1", "text": "The ferry leaves from the north pier."}) + "\n"
        + json.dumps({"id": "d2", "text": "The library opens at ten."}) + "\n").encode()
#: what each label input may be made of, besides the good bytes
BAD = {
    "empty": b"",
    "nul": b"q1\x00 Q0 d1 1 2.0 sys\n",
    "invalid-utf8": b"q1 Q0 d\xff1 1 2.0 sys\n",
    "bom": b"\xef\xbb\xbf",
    "crlf": None,  # the good bytes with CRLF line ends
    "huge-line": b"q1 Q0 " + b"d" * 2_000_000 + b" 1 2.0 sys\n",
    "one-column": b"q1\n",
    "binary": bytes(range(256)) * 64,
    "json-array": b"[1, 2, 3]\n",
    "blank-lines": b"\n\n\n",
}


def _label(slug: str, expect: str, run: bytes = RUN, topics: bytes = TOPICS, docs: bytes = DOCS, extra=(),
           where=(), docs_name: str = "docs.jsonl") -> Case:
    argv = ("label", "{in}", "--qrels-out", "{tmp}/labels.qrels", "--topics", "{tmp}/topics.tsv", "--docs",
            "{tmp}/" + docs_name, "--offline", "--depth", "2", *extra)
    return Case(id=f"{CLS}-label-{slug}", cls=CLS, expect=expect, where=tuple(where), argv=argv, limit=40.0,
                files=(("run.trec", run), ("topics.tsv", topics), (docs_name, docs)), env=(("HF_HUB_OFFLINE", "1"),))


def _variants(good: bytes, bad: bytes | None) -> bytes:
    return good.replace(b"\n", b"\r\n") if bad is None else bad


def _labels() -> list[Case]:
    found = [_label("good", OK)]
    for name, bad in BAD.items():
        found.append(_label(f"run-{name}", ANY, run=_variants(RUN, bad)))
        found.append(_label(f"topics-{name}", ANY, topics=_variants(TOPICS, bad)))
        found.append(_label(f"docs-{name}", ANY, docs=_variants(DOCS, bad)))
    found += [
        _label("unknown-doc", REFUSED, run=RUN + b"q2 Q0 nowhere 2 1.0 sys\n", where=("nowhere",)),
        _label("unknown-doc-skipped", OK, run=RUN + b"q2 Q0 nowhere 2 1.0 sys\n", extra=("--skip-unknown-docs",)),
        _label("topic-missing", ANY, topics=b"q1\twhere is the ferry\n"),
        _label("duplicate-topic", ANY, topics=TOPICS + b"q1\tagain\n"),
        _label("duplicate-doc", ANY, docs=DOCS + DOCS),
        _label("docs-not-objects", REFUSED, docs=b"[1]\n2\n"),
        _label("docs-id-number", ANY, docs=b'{"id": 1, "text": "x"}\n'),
        _label("docs-text-null", ANY, docs=b'{"id": "d1", "text": null}\n{"id": "d2", "text": "y"}\n'),
        _label("docs-tsv", OK, docs=b"d1\tThe ferry leaves.\nd2\tThe library opens.\n", docs_name="docs.tsv"),
        _label("run-score-nan", ANY, run=b"q1 Q0 d1 1 nan sys\n"),
        _label("run-score-word", REFUSED, run=b"q1 Q0 d1 1 high sys\n"),
        _label("run-rank-huge", ANY, run=b"q1 Q0 d1 " + b"9" * 400 + b" 1.0 sys\n"),
        _label("run-control-chars", ANY, run=b"q1 Q0 d1\x1b[2J 1 1.0 sys\n"),
    ]
    for value in ("0", "-1", "1.5", "", "none", "nan"):
        found.append(_label(f"depth-{value or 'empty'}", REFUSED, extra=("--depth", value), where=("--depth",)))
    # deeper than any run: every retrieved document is pooled
    found.append(_label("depth-huge", OK, extra=("--depth", "99999999999999999999999")))
    return found


def _ignored() -> list[Case]:
    found = []
    for slug, value, expect in (("empty", "", ANY), ("commas", ",,,", ANY), ("known-field", "answer", REFUSED),
                                ("unknown", "nosuch", OK), ("control", "a\x1b[2Jb", ANY),
                                ("huge", "x" * 100_000, ANY), ("many", ",".join(f"c{i}" for i in range(5000)), ANY),
                                ("unicode", "\u202eevil", ANY)):
        found.append(Case(id=f"{CLS}-ignore-{slug}", cls=CLS, expect=expect, files=(("in.jsonl", good_jsonl()),),
                          argv=("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--no-history",
                                "--ignore-fields", value)))
    return found


def _compare() -> list[Case]:
    found = []
    for slug, argv, expect in (
            ("good-run", ("compare", "{out}"), ANY),
            ("missing", ("compare", "{tmp}/nowhere"), REFUSED),
            ("a-file", ("compare", "{in}"), REFUSED),
            ("dev-null", ("compare", "/dev/null"), REFUSED),
            ("proc", ("compare", "/proc/self"), REFUSED),
            ("two-missing", ("compare", "{out}", "{tmp}/nowhere"), REFUSED),
            ("same-twice", ("compare", "{out}", "{out}"), ANY),
            ("unknown-system", ("compare", "{out}", "--fail-if-worse", "nosuch"), REFUSED),
            ("unknown-metric", ("compare", "{out}", "-m", "nosuch"), REFUSED),
            ("empty-metric", ("compare", "{out}", "-m", ""), ANY),
            ("control-system", ("compare", "{out}", "--fail-if-worse", "s\x1b[2J"), REFUSED)):
        found.append(Case(id=f"{CLS}-compare-{slug}", cls=CLS, expect=expect, files=(("in.jsonl", good_jsonl()),),
                          argv=argv))
    return found


def cases() -> list[Case]:
    return [*_labels(), *_ignored(), *_compare()]
