"""Cases: issue52k (issue 52, point 16b's leftovers): price tables nested thousands deep wherever one is read, jury
weights at the ends of the float range, credentials of 100 KB in a judge's URL, a 200 KB claim for the grounding
checker, and escape characters in what the report, history, review and fuse commands print.

* **Price tables**: ``--judge-prices FILE`` (run, label, validate), a run file's ``judge.prices``, a jury judge's
  ``prices`` and ``--judge-option prices=``, each an object or a list nested 5,000 deep (a RecursionError's
  traceback before, for the file), and 900 deep (read, then refused by the price table's own shape). Refused,
  naming the option or file and the field.
* **Jury weights**: the smallest positive float (5e-324) for both judges, and a million against 1e-300: scored
  (exit 0 or 1), nothing but finite numbers in results.jsonl and summary.json (the runner's strict JSON check).
* **Credentials**: a judge base URL whose password, user name or query value is 100 KB (as ``--judge-base-url``
  and ``OPENAI_BASE_URL``): refused in well under the limit, naming where it came from, never shown; the
  redactor compiled a pattern of it for minutes, in a gigabyte. The same for an OpenTelemetry endpoint's URL and
  a 100 KB value in ``OTEL_EXPORTER_OTLP_HEADERS`` (sent as it was, for the server to refuse).
* **A 200 KB claim**: one sentence of 30,000 words for ``grounding``: finished inside the limit (quadratic in the
  claim's tokens before).
* **Escapes**: a path or a file's line holding ESC, a bidi override or a carriage return, named by the report,
  history, review and fuse commands' errors: the terminal shows each as its escape (``\\x1b``), never the raw one.
"""
from __future__ import annotations

import json

from hostile.cases import CHEAP, OK, REFUSED, Case, cli_case, good_jsonl, jsonl, line, run_case

CLS = "issue52k"
DEPTH = 5000
NESTED = {"object": '{"a": ' * DEPTH + "1" + "}" * DEPTH, "list": "[" * DEPTH + "]" * DEPTH,
          "object-900": '{"a": ' * 900 + "1" + "}" * 900}
TOML_NESTED = {"object": "{a = " * DEPTH + "1" + "}" * DEPTH, "list": "[" * DEPTH + "]" * DEPTH}
#: an ESC sequence that recolours the terminal, a right-to-left override, a carriage return
ESCAPES = "\x1b[31mred\u202e\r"
SHOWN = "\\x1b[31mred"
RUN = b"q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\n"


def _judge(script: bool = False) -> tuple[str, ...]:
    if script:
        return ("--judge-backend", "scripted", "--judge-model", "{tmp}/script.json", "--no-judge-cache")
    return ("--judge-base-url", "http://127.0.0.1:9/v1", "--judge-model", "m")


def _prices() -> list[Case]:
    found = []
    for slug, text in NESTED.items():
        # too deep to read names the file; read, the price table's shape names the option and the model
        expect_where = ("--judge-prices", "prices.json") if slug != "object-900" else ("--judge-prices", "model 'a'")
        files = (("in.jsonl", good_jsonl()), ("prices.json", text.encode()))
        found.append(Case(id=f"{CLS}-prices-file-{slug}", cls=CLS, expect=REFUSED, where=expect_where, files=files,
                          argv=("run", "{in}", "--out", "{out}", "--metrics", "faithfulness", "--no-history",
                                *_judge(), "--judge-prices", "{tmp}/prices.json", "--dry-run")))
        found.append(Case(id=f"{CLS}-prices-file-label-{slug}", cls=CLS, expect=REFUSED, where=expect_where,
                          files=files, argv=("label", "--qrels-out", "{tmp}/q.qrels", "{in}", "--depth", "1",
                                             *_judge(), "--judge-prices", "{tmp}/prices.json")))
        found.append(run_case(f"{CLS}-prices-option-{slug}", CLS, REFUSED, good_jsonl(), metrics="faithfulness",
                              where=("--judge-option", "prices") if slug != "object-900" else ("prices", "model 'a'"),
                              extra=(*_judge(), "--no-history", "--dry-run", "--judge-option", "prices=" + text)))
        jury = '{"judges": [{"model": "a", "base_url": "http://127.0.0.1:9/v1", "prices": ' + text + \
               '}, {"model": "b", "base_url": "http://127.0.0.1:9/v1"}]}'
        found.append(Case(id=f"{CLS}-prices-jury-{slug}", cls=CLS, expect=REFUSED, where=("jury.json",),
                          files=(("in.jsonl", good_jsonl()), ("jury.json", jury.encode())),
                          argv=("run", "{in}", "--out", "{out}", "--metrics", "faithfulness", "--no-history",
                                "--jury", "{tmp}/jury.json", "--dry-run")))
    for slug, text in TOML_NESTED.items():
        toml = f'[judge]\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\nprices = {text}\n'
        found.append(Case(id=f"{CLS}-prices-runfile-{slug}", cls=CLS, expect=REFUSED, where=("run.toml",),
                          files=(("in.jsonl", good_jsonl()), ("run.toml", toml.encode())),
                          argv=("run", "{in}", "--out", "{out}", "--metrics", "faithfulness", "--no-history",
                                "--config", "{tmp}/run.toml", "--dry-run")))
    return found


def _jury() -> list[Case]:
    """Weights at the ends of the float range, judged by two scripted judges (one script)."""
    script = {"decompose": {"claims": [{"claim": "Paris is the capital of France.",
                                        "source": "Paris is the capital of France."}]},
              "verify": {"verdicts": [{"id": 1, "context": 1, "quote": "Paris is the capital and largest city of "
                                       "France.", "label": "supported", "reason": "stated"}]}}
    found = []
    for slug, weights in (("subnormal", (5e-324, 5e-324)), ("million-to-tiny", (1e6, 1e-300)),
                          ("tiny-to-million", (5e-324, 1e6))):
        jury = [{"name": f"j{n}", "backend": "scripted", "model": "script.json", "weight": w}
                for n, w in enumerate(weights)]
        found.append(Case(id=f"{CLS}-jury-weights-{slug}", cls=CLS, expect=OK,
                          files=(("in.jsonl", good_jsonl()), ("jury.json", json.dumps(jury).encode()),
                                 ("script.json", json.dumps(script).encode())),
                          argv=("run", "{in}", "--out", "{out}", "--metrics", "faithfulness", "--no-history",
                                "--no-judge-cache", "--jury", "{tmp}/jury.json")))
    return found


def _credentials() -> list[Case]:
    """100 KB where a judge URL keeps its credentials: refused quickly, naming where, never shown."""
    big = "p" * 100_000
    urls = {"password": f"http://alice:{big}@127.0.0.1:9/v1", "user": f"http://{big}@127.0.0.1:9/v1",
            "query": f"http://127.0.0.1:9/v1?api-key={big}"}
    found = []
    for slug, url in urls.items():
        found.append(run_case(f"{CLS}-url-{slug}-100k", CLS, REFUSED, good_jsonl(), metrics="faithfulness",
                              where=("--judge-base-url", "100,000"), secrets=(big,), limit=15.0,
                              extra=("--judge-base-url", url, "--judge-model", "m", "--no-history")))
        found.append(run_case(f"{CLS}-env-url-{slug}-100k", CLS, REFUSED, good_jsonl(), metrics="faithfulness",
                              where=("OPENAI_BASE_URL", "100,000"), secrets=(big,), limit=15.0,
                              env=(("OPENAI_BASE_URL", url),), extra=("--judge-model", "m", "--no-history")))
    found.append(Case(id=f"{CLS}-otel-header-100k", cls=CLS, expect=REFUSED, limit=15.0, secrets=(big,),
                      where=("OTEL_EXPORTER_OTLP_HEADERS", "100,000"),
                      env=(("OTEL_EXPORTER_OTLP_HEADERS", f"authorization={big}"),),
                      argv=("export", "otel", "{out}", "--otel-endpoint", "http://127.0.0.1:9")))
    for slug, url in (("password", f"http://alice:{big}@127.0.0.1:9"), ("query", f"http://127.0.0.1:9/v1/logs?t={big}")):
        found.append(run_case(f"{CLS}-otel-url-{slug}-100k", CLS, REFUSED, good_jsonl(), secrets=(big,), limit=15.0,
                              where=("--otel-endpoint", "100,000"), extra=("--otel-endpoint", url, "--no-history")))
    return found


def _long_claim() -> list[Case]:
    """One sentence of 100 KB: numbers, names and words the context holds, repeated (quadratic before: about 100 s
    at this size, 7 min at 200 KB; the corpus's limit is 40 s a case)."""
    words = " ".join(f"Paris {n % 97} capital France Lyon city large" for n in range(2000))
    row = {"id": "q1", "question": "What is the capital of France?", "answer": "Paris is " + words + ".",
           "contexts": ["Paris is the capital and largest city of France; Lyon is a large city with 12 bridges."]}
    return [run_case(f"{CLS}-grounding-claim-100k", CLS, OK, jsonl(line(row)), metrics="grounding", limit=40.0)]


def _escapes() -> list[Case]:
    """A name or a line holding escape characters, quoted by an error of report, history, review and fuse."""
    bad_dir = "{tmp}/run" + ESCAPES
    trec = f"q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 x{ESCAPES} sys\n".encode()
    return [
        Case(id=f"{CLS}-escape-report-folder", cls=CLS, expect=REFUSED, where=(SHOWN,), argv=("report", bad_dir)),
        Case(id=f"{CLS}-escape-report-output", cls=CLS, expect=REFUSED, where=(SHOWN,),
             argv=("report", "{out}", "-o", "{out}/summary.json/r" + ESCAPES + ".html")),
        Case(id=f"{CLS}-escape-report-history", cls=CLS, expect=REFUSED, where=(SHOWN,),
             files=(("h" + ESCAPES + ".sqlite", b"not a database\n"),),
             argv=("report", "{out}", "--history", "{tmp}/h" + ESCAPES + ".sqlite")),
        Case(id=f"{CLS}-escape-history", cls=CLS, expect=REFUSED, where=(SHOWN,),
             files=(("h" + ESCAPES + ".sqlite", b"not a database\n"),),
             argv=("history", "--history", "{tmp}/h" + ESCAPES + ".sqlite")),
        Case(id=f"{CLS}-escape-review-folder", cls=CLS, expect=REFUSED, where=(SHOWN,), argv=("review", bad_dir)),
        Case(id=f"{CLS}-escape-review-export", cls=CLS, expect=REFUSED, where=(SHOWN,),
             argv=("review", "export", bad_dir, "-o", "{tmp}/labels.jsonl")),
        Case(id=f"{CLS}-escape-fuse-line", cls=CLS, expect=REFUSED, where=(SHOWN,),
             files=(("run.trec", trec),), argv=("fuse", "{tmp}/run.trec", "{tmp}/run.trec", "-o", "{tmp}/f.trec")),
        Case(id=f"{CLS}-escape-fuse-output", cls=CLS, expect=REFUSED, where=(SHOWN,),
             files=(("run.trec", RUN),),
             argv=("fuse", "{tmp}/run.trec", "{tmp}/run.trec", "-o", "{tmp}/run.trec/f" + ESCAPES + ".trec")),
        cli_case(f"{CLS}-escape-run-config", CLS, REFUSED, "run", "{in}", "--out", "{out}", "--metrics", CHEAP,
                 "--config", "{tmp}/c" + ESCAPES + ".toml", where=(SHOWN,)),
    ]


def cases() -> list[Case]:
    return [*_prices(), *_jury(), *_credentials(), *_long_claim(), *_escapes()]


if __name__ == "__main__":
    print(json.dumps([c.id for c in cases()], indent=1))
