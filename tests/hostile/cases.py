"""The hostile-input corpus: every case as data, generated deterministically from the compact tables of the
``cases_*`` modules.

A case is one run of genevals in its own process: ``genevals ARGV`` (``argv``), or one call through the Python
API (``api``, a Python expression the API driver evaluates). Its expected outcome is one of

- ``ok``: exit 0 or 1 (1: a metric had nothing to score or a threshold was missed), with strict-JSON results;
- ``refused``: exit 2 before anything is scored, stderr saying ``error`` and naming each of ``where`` (the file
  and line, the field, or the option); through the API a ValueError or TypeError whose message names each;
- ``any``: either of the two, when a careful user could expect both (a NaN token in an optional field, say);
- ``exit:N``: that exit code (a judge that produced nothing usable: 3).

A case that names ``secrets`` (an API key, URL credentials) must not show them in stdout, stderr or any file
the run writes: not as they are, not base64-encoded, not URL-encoded.

Whatever the class: no traceback, no hang (``limit`` seconds), and the previous run already in the output
folder keeps its results, summary and report (in place, or moved to a backup that stderr names; ``--resume``
continues that run, so it keeps the results lines and rewrites the summary and report; ``report DIR`` rewrites
DIR's report: see ``runner.REWRITTEN``).

Placeholders in ``argv``, ``where`` and ``api``: ``{in}`` the first of ``files``, ``{out}`` the output folder
(holding a previous good run), ``{tmp}`` the case's own folder, ``{judge}`` a fault-injecting judge server's URL.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

OK, REFUSED, ANY = "ok", "refused", "any"
#: the classes of issue 34 (and issue 35's languages), each with its own module ``hostile.cases_<class>``
#: (``cases()``, and optionally ``SETUPS``: named setup steps of its own, merged into runner's)
NEW_CLASSES = ("history", "traces", "trec", "citations", "repeats", "mapfiles", "plugin", "review", "languages",
               "runfile", "surfaces37", "jury",
               # issues 38-40: conversations, their history budget, the agreement gate, OpenTelemetry, the review
               # queue and BEGIN files
               "conversations", "history_tokens", "agreement_labels", "otel", "review_queue", "begin_tsv")
#: issue 52's regressions, each class the causes one fix covered (a module each, as NEW_CLASSES): outputs over
#: inputs, secrets printed, blind review (a); special and damaged small files (b); long and odd inputs (d); a row's
#: declared metadata (i); review and history (j); language, jury sums, credentials, escapes (k); issue 51's batch
#: judge (51b: hostile batch-server replies)
ISSUE52_CLASSES = ("issue52a", "issue52b", "issue52d", "issue52i", "issue52j", "issue52k", "issue51b",
                   # issue 49: genevals generate's documents and options; issue 50: curate's folders and rules,
                   # and watch's receiver bodies, slow senders, followed files and hostile exports
                   "generate", "curate", "watch",
                   # issue 50, point 1: the OTLP reader's other conventions (Langfuse-OTel, GenAI, OpenLLMetry)
                   "otlp_conventions")
CLASSES = ("encodings", "sizes", "types", "paths", "options", "formats", "api", "runfolder", "judge",
           # issue 34: the surfaces added since the first corpus, one module each (hostile/cases_<class>.py)
           *NEW_CLASSES, *ISSUE52_CLASSES)
#: cheap metrics that need no model and no judge: every case uses them unless it names its own
CHEAP = "exact_match,token_f1,rouge,bleu,retrieval"
DEFAULT_LIMIT = 20.0


@dataclass(frozen=True)
class Case:
    id: str  # "<class>-<slug>": unique, and what `pytest -k` selects on
    cls: str
    expect: str
    where: tuple[str, ...] = ()
    files: tuple[tuple[str, bytes], ...] = ()
    argv: tuple[str, ...] = ()
    api: str = ""
    setup: str = ""  # a named step in runner.SETUPS, run after the files are written
    limit: float = DEFAULT_LIMIT
    env: tuple[tuple[str, str], ...] = ()  # environment variables the process gets
    secrets: tuple[str, ...] = ()  # never in stdout, stderr or any file written, in any encoding
    note: str = ""

    def __post_init__(self) -> None:
        assert self.cls in CLASSES, self.cls
        assert self.expect in (OK, REFUSED, ANY) or self.expect.startswith("exit:"), self.expect
        assert not (self.argv and self.api), self.id


# ------------------------------------------------------------------ the good rows every case starts from

GOOD_ROWS = (
    {"id": "q1", "question": "What is the capital of France?", "answer": "Paris is the capital of France.",
     "contexts": [{"id": "c1", "doc_id": "d1", "text": "Paris is the capital and largest city of France.",
                   "score": 0.9},
                  {"id": "c2", "doc_id": "d2", "text": "Lyon is a large city in France.", "score": 0.5}],
     "references": ["Paris"], "relevant": {"c1": 1}},
    {"id": "q2", "question": "Who wrote Hamlet?", "answer": "Shakespeare wrote Hamlet.",
     "contexts": [{"id": "c3", "text": "Hamlet is a tragedy written by William Shakespeare."}],
     "references": "William Shakespeare", "relevant": ["c3"]},
    {"id": "q3", "question": "How many legs does a spider have?", "answer": "A spider has eight legs.",
     "contexts": ["Spiders are arachnids with eight legs."], "references": ["Eight legs.", "8"],
     "relevant": {"c9": 2}},
)


def line(row: dict) -> str:
    return json.dumps(row, ensure_ascii=False)


def jsonl(*lines: str, end: str = "\n") -> bytes:
    """Lines (JSON text) joined into a JSONL file's bytes."""
    return "".join(text + end for text in lines).encode("utf-8")


def good_jsonl() -> bytes:
    return jsonl(*(line(r) for r in GOOD_ROWS))


def hostile_middle(text: str) -> bytes:
    """A three-line file whose line 2 is ``text`` (so a located message must say line 2)."""
    return jsonl(line(GOOD_ROWS[0]), text, line(GOOD_ROWS[2]))


_HOLE = "\u0000HOLE\u0000"


def with_raw(row: dict, path: tuple, literal: str) -> str:
    """``row`` as JSON text with the value at ``path`` (keys and list indexes) replaced by the JSON text
    ``literal`` (which may be anything: ``NaN``, ``1e400``, a 5,000-digit number, broken JSON)."""
    row = json.loads(json.dumps(row))
    target = row
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = _HOLE
    return json.dumps(row, ensure_ascii=False).replace(json.dumps(_HOLE), literal)


def run_case(id: str, cls: str, expect: str, content: bytes, *, where=(), name: str = "in.jsonl",
             extra=(), metrics: str | None = CHEAP, **kw) -> Case:
    """``genevals run {in} --out {out} [--metrics CHEAP] EXTRA...`` on a file named ``name`` holding ``content``."""
    argv = ("run", "{in}", "--out", "{out}") + (("--metrics", metrics) if metrics else ()) + tuple(extra)
    return Case(id=id, cls=cls, expect=expect, where=tuple(where), files=((name, content),), argv=argv, **kw)


def cli_case(id: str, cls: str, expect: str, *argv: str, where=(), content: bytes | None = None,
             name: str = "in.jsonl", **kw) -> Case:
    """``genevals ARGV`` with the good rows as ``{in}`` (or ``content``)."""
    files = ((name, good_jsonl() if content is None else content),)
    return Case(id=id, cls=cls, expect=expect, where=tuple(where), files=files, argv=tuple(argv), **kw)


def new_modules() -> list:
    import importlib

    return [importlib.import_module(f"hostile.cases_{name}") for name in (*NEW_CLASSES, *ISSUE52_CLASSES)]


def all_cases() -> list[Case]:
    from hostile import cases_api, cases_cli, cases_formats, cases_text, cases_types

    found = [*cases_text.cases(), *cases_types.cases(), *cases_formats.cases(), *cases_cli.cases(),
             *cases_api.cases()]
    for module in new_modules():
        found += module.cases()
    seen: set[str] = set()
    for case in found:
        assert case.id not in seen, f"duplicate case id {case.id}"
        seen.add(case.id)
    return found
