"""Cases: issue52a (issue 52, points 11, 12 and 15).

* **Outputs over inputs**: ``label --qrels-out`` naming its run, topics or docs file (as given, through ``.`` or
  ``..``), its sidecar ``FILE.json`` being one of them, or a ``FILE.json`` genevals did not write (text, an empty
  file, JSON that is no sidecar, a folder, a link to nothing); ``report -o``, ``review export -o`` and ``fuse -o``
  naming a file they read. Refused with exit 2 naming the option; nothing replaced (the runner checks the
  previous run in ``{out}`` keeps its files). A sidecar genevals wrote is replaced (ok).
* **Secrets printed**: ``--print-config`` with a judge URL's password, query and fragment and an OpenTelemetry
  URL's query (``secrets``: in no output); ``api_key_env`` given a key (refused, naming the setting).
* **Blind review**: :func:`blind_same` serves a blind review over an annotated run whose answers are half flagged,
  half supported, decides one of each on two servers and raises unless the replies are the same.
"""
from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

from hostile.cases import CHEAP, OK, REFUSED, Case

CLS = "issue52a"
MOD = '__import__("hostile.cases_issue52a", fromlist=["_"])'
RUN = b"q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\n"
TOPICS = b"q1\twhere is the ferry\n"
DOCS = (json.dumps({"id": "d1", "text": "The ferry leaves from the north pier."}) + "\n"
        + json.dumps({"id": "d2", "text": "The library opens at ten."}) + "\n").encode()
PASSWORD, QUERY, FRAGMENT = "pw-hostile-52a-0123456789", "q-hostile-52a-98765", "f-hostile-52a-4242"
KEY = "sk-proj-hostile52aPasted0123456789"
#: what may be where genevals label puts its sidecar
FOREIGN = {"text": b"my notes\n", "empty": b"", "json-object": b'{"notes": 1}\n', "json-array": b"[1, 2]\n",
           "other-tool": b'{"tool": "someone else"}\n', "binary": bytes(range(256)), "invalid-utf8": b'{"tool": "\xff"}'}


def _label(slug: str, expect: str, out: str, where=(), docs_name: str = "docs.jsonl", extra_files=()) -> Case:
    argv = ("label", "{in}", "--topics", "{tmp}/topics.tsv", "--docs", "{tmp}/" + docs_name, "--offline",
            "--qrels-out", out)
    return Case(id=f"{CLS}-label-{slug}", cls=CLS, expect=expect, where=tuple(where), argv=argv, limit=40.0,
                files=(("run.trec", RUN), ("topics.tsv", TOPICS), (docs_name, DOCS), *extra_files),
                env=(("HF_HUB_OFFLINE", "1"),))


def _outputs() -> list[Case]:
    found = [
        _label("out-is-run", REFUSED, "{tmp}/run.trec", where=("--qrels-out", "run.trec")),
        _label("out-is-topics", REFUSED, "{tmp}/topics.tsv", where=("--qrels-out", "topics.tsv")),
        _label("out-is-docs", REFUSED, "{tmp}/docs.jsonl", where=("--qrels-out", "docs.jsonl")),
        _label("out-is-run-dot", REFUSED, "{tmp}/./run.trec", where=("--qrels-out",)),
        _label("out-is-docs-dotdot", REFUSED, "{tmp}/nowhere/../docs.jsonl", where=("--qrels-out",)),
        _label("sidecar-is-docs", REFUSED, "{tmp}/labels", docs_name="labels.json",
               where=("--qrels-out", "labels.json")),
        _label("sidecar-own", OK, "{tmp}/q", extra_files=(("q.json", b'{"tool": "genevals label"}\n'),)),
    ]
    for slug, content in FOREIGN.items():
        found.append(_label(f"sidecar-foreign-{slug}", REFUSED, "{tmp}/q", extra_files=(("q.json", content),),
                            where=("--qrels-out", "q.json")))
    for slug, args, where in (
            ("report-over-results", ("report", "{out}", "-o", "{out}/results.jsonl"), ("-o",)),
            ("report-over-summary", ("report", "{out}", "-o", "{out}/./summary.json"), ("-o",)),
            ("export-over-results", ("review", "export", "{out}", "-o", "{out}/results.jsonl"), ("-o",)),
            ("export-citations-over-manifest", ("review", "export", "{out}", "-o", "{tmp}/l.jsonl",
                                                "--citations-out", "{out}/manifest.json"), ("--citations-out",)),
            ("fuse-over-run", ("fuse", "{in}", "{in}", "-o", "{in}"), ("-o",))):
        files = (("run.trec", RUN),) if args[0] == "fuse" else (("in.jsonl", b""),)
        found.append(Case(id=f"{CLS}-{slug}", cls=CLS, expect=REFUSED, where=where, argv=args, files=files))
    return found


def _secrets() -> list[Case]:
    url = f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={QUERY}#{FRAGMENT}"
    return [
        Case(id=f"{CLS}-print-config-urls", cls=CLS, expect=OK, secrets=(PASSWORD, QUERY, FRAGMENT),
             files=(("in.jsonl", b'{"id": "1", "answer": "a", "contexts": ["a"], "references": ["a"]}\n'),),
             argv=("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--judge-base-url", url, "--otel-endpoint",
                   f"http://127.0.0.1:4318/v1/logs?token={QUERY}", "--print-config")),
        Case(id=f"{CLS}-api-key-env-is-a-key", cls=CLS, expect=REFUSED, where=("judge.api_key_env",),
             files=(("in.jsonl", b'{"id": "1", "answer": "a", "contexts": ["a"]}\n'),
                    ("run.toml", f'[judge]\nmodel = "m"\napi_key_env = "{KEY}"\n'.encode())),
             argv=("run", "{in}", "--out", "{out}", "--config", "{tmp}/run.toml", "--print-config")),
    ]


def _split_verdicts(run: Path) -> list[tuple[str, str]]:
    """Every other answer of the annotated run judged supported; (system, id) of one flagged and one supported."""
    path = run / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for n, row in enumerate(rows):
        if n % 2:
            row["metrics"]["faithfulness"]["details"]["verdicts"][0]["label"] = "supported"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [(rows[n].get("system", "default"), rows[n]["id"]) for n in (0, 1)]


def blind_same(tmp: str) -> dict:
    """A blind review decides a flagged claim on one server and a supported one on another (two copies of one
    run): the replies must be the same but for the names of what was decided; RuntimeError otherwise."""
    from http.client import HTTPConnection

    from genevals.review.app import ReviewApp, ServeConfig
    from genevals.review.server import ReviewServer

    runs = [Path(shutil.copytree(Path(tmp) / "out", Path(tmp) / f"copy{n}")) for n in range(2)]  # out as it was
    keys = [_split_verdicts(run) for run in runs][0]
    replies = []
    for run, key in zip(runs, keys):
        app = ReviewApp(ServeConfig(run_dir=run, port=0, blind=True, request_timeout=3.0))
        server = ReviewServer(app)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        thread.start()
        try:
            body = json.dumps({"reviewer": "ann", "system": key[0], "sample_id": key[1], "claim": 0,
                               "decision": "confirmed"})
            conn = HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
            conn.request("POST", "/api/decisions", body, {"Content-Type": "application/json",
                                                           "X-Genevals-Token": app.token})
            reply = json.loads(conn.getresponse().read())
            conn.close()
        finally:
            server.shutdown()
            server.server_close()
            thread.join(10)
        for d in reply.get("decisions", []):
            for name in ("time", "system", "sample_id"):
                d.pop(name, None)
        replies.append(reply)
    if replies[0] != replies[1]:
        raise RuntimeError(f"a blind reply tells the verdict: {replies[0]} != {replies[1]}")
    return replies[0]


def _blind() -> list[Case]:
    return [Case(id=f"{CLS}-blind-flagged-vs-supported", cls=CLS, expect=OK, api=f"{MOD}.blind_same(TMP)",
                 setup="review_annotated", limit=20.0)]


def cases() -> list[Case]:
    return _outputs() + _secrets() + _blind()


if __name__ == "__main__":
    print(json.dumps([c.id for c in cases()], indent=1))
