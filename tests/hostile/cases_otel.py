"""Cases: otel (issue 39): ``--otel-endpoint URL`` on ``genevals run`` and ``genevals export otel`` (schemes,
credentials in the URL, ports, hosts, empty, invisible characters), the SDK's own variables
(``OTEL_EXPORTER_OTLP_ENDPOINT``, ``..._LOGS_ENDPOINT``, ``..._HEADERS``, ``..._TIMEOUT``), and ``export otel``
on folders that are no run or a run whose files were damaged. No receiver listens: an accepted URL is sent to a
closed port on 127.0.0.1 (``run`` keeps its exit code and warns; ``export otel`` exits 1), a refused one is exit 2
naming the option (or variable) and the URL. Credentials, in the URL or in ``OTEL_EXPORTER_OTLP_HEADERS``, are
never shown or written, in any encoding."""
from __future__ import annotations

import json
import os
from pathlib import Path

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, good_jsonl

CLS = "otel"
CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens, the connection is refused at once
SECRET = "s3cr3t-otel-7f2"
#: the SDK retries a refused connection until its timeout (10 s by default): one second keeps the corpus quick
QUICK = (("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5"),)
#: --otel-endpoint VALUE: (expect for `run`, for `export otel`)
URLS = {
    "closed-port": (CLOSED, OK, "exit:1"),
    "https": ("https://127.0.0.1:9", OK, "exit:1"),
    "upper-scheme": ("HTTP://127.0.0.1:9", OK, "exit:1"),
    "padded": ("  http://127.0.0.1:9  ", OK, "exit:1"),
    "ipv6": ("http://[::1]:9", OK, "exit:1"),
    "full-logs-path": ("http://127.0.0.1:9/v1/logs", OK, "exit:1"),
    "traces-path": ("http://127.0.0.1:9/v1/traces", OK, "exit:1"),
    "long-path": ("http://127.0.0.1:9/" + "a" * 50_000, OK, "exit:1"),
    "ftp": ("ftp://127.0.0.1:4318", REFUSED, REFUSED),
    "grpc": ("grpc://127.0.0.1:4317", REFUSED, REFUSED),
    "file": ("file:///etc/passwd", REFUSED, REFUSED),
    "javascript": ("javascript:alert(1)", REFUSED, REFUSED),
    "no-scheme": ("127.0.0.1:4318", REFUSED, REFUSED),
    "host-port-only": ("localhost:4318", REFUSED, REFUSED),
    "scheme-only": ("http://", REFUSED, REFUSED),
    "no-host": ("http://:4318", REFUSED, REFUSED),
    "port-too-big": ("http://127.0.0.1:99999", REFUSED, REFUSED),
    "port-word": ("http://127.0.0.1:abc", REFUSED, REFUSED),
    "port-negative": ("http://127.0.0.1:-1", REFUSED, REFUSED),
    "port-zero": ("http://127.0.0.1:0", REFUSED, REFUSED),
    "ipv6-open": ("http://[::1", REFUSED, REFUSED),
    "ipv6-garbage": ("http://[zz::1]:9", REFUSED, REFUSED),
    "space-in-host": ("http://127.0.0 .1:9", REFUSED, REFUSED),
    "rtl-in-host": ("http://\u202e127.0.0.1:9", REFUSED, REFUSED),
    "zero-width-in-host": ("http://127.0.0.1\u200b:9", REFUSED, REFUSED),
    "tab-in-host": ("http://127.0.0.1\t:9", ANY, ANY),
    "newline-after": ("http://127.0.0.1:9\n", ANY, ANY),
    "words": ("not a url", REFUSED, REFUSED),
    "dash": ("-", REFUSED, REFUSED),
}
#: URLs holding SECRET: (where it hides, what `run` and `export otel` must end with)
SECRET_URLS = {
    "password": (f"http://user:{SECRET}@127.0.0.1:9", OK, "exit:1"),
    "user": (f"http://{SECRET}@127.0.0.1:9", OK, "exit:1"),
    "query": (f"http://127.0.0.1:9/?token={SECRET}", OK, "exit:1"),
    "fragment": (f"http://127.0.0.1:9/#{SECRET}", OK, "exit:1"),
    "password-bad-port": (f"http://user:{SECRET}@127.0.0.1:abc", REFUSED, REFUSED),
    "password-ftp": (f"ftp://user:{SECRET}@127.0.0.1:21", REFUSED, REFUSED),
    "password-open-bracket": (f"http://user:{SECRET}@[::1", REFUSED, REFUSED),
    "query-open-bracket": (f"http://[::1?token={SECRET}", REFUSED, REFUSED),
    "fragment-open-bracket": (f"http://[::1#{SECRET}", REFUSED, REFUSED),
}


def _run(slug: str, url: str, expect: str, env=QUICK, secrets=(), where=("--otel-endpoint",)) -> Case:
    argv = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--no-history", "--otel-endpoint", url)
    return Case(id=f"{CLS}-run-{slug}", cls=CLS, expect=expect, where=where if expect == REFUSED else (),
                files=(("in.jsonl", good_jsonl()),), argv=argv, env=env, secrets=secrets)


def _export(slug: str, expect: str, url: str | None = CLOSED, folder: str = "{out}", env=QUICK, secrets=(),
            where=(), setup: str = "") -> Case:
    argv = ("export", "otel", folder) + (("--otel-endpoint", url) if url is not None else ())
    return Case(id=f"{CLS}-export-{slug}", cls=CLS, expect=expect, where=tuple(where) if expect == REFUSED else (),
                files=(("in.jsonl", good_jsonl()),), argv=argv, env=env, secrets=secrets, setup=setup)


def _urls() -> list[Case]:
    found = []
    for slug, (url, on_run, on_export) in URLS.items():
        found.append(_run(slug, url, on_run))
        found.append(_export(slug, on_export, url, where=("--otel-endpoint",)))
    for slug, (url, on_run, on_export) in SECRET_URLS.items():
        found.append(_run(f"secret-{slug}", url, on_run, secrets=(SECRET,)))
        found.append(_export(f"secret-{slug}", on_export, url, secrets=(SECRET,), where=("--otel-endpoint",)))
    headers = (("OTEL_EXPORTER_OTLP_HEADERS", f"authorization=Bearer {SECRET}"),
               ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", f"x-api-key={SECRET}"))
    found += [
        _run("empty", "", ANY),
        _run("headers-secret", CLOSED, OK, env=QUICK + headers, secrets=(SECRET,)),
        _export("headers-secret", "exit:1", env=QUICK + headers, secrets=(SECRET,)),
        _export("headers-malformed", "exit:1", env=QUICK + (("OTEL_EXPORTER_OTLP_HEADERS", f"{SECRET}"),),
                secrets=(SECRET,)),
        _export("timeout-word", "exit:1", env=(("OTEL_EXPORTER_OTLP_TIMEOUT", "abc"),)),
        _export("env-endpoint-ftp", REFUSED, None, env=QUICK + (("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://x"),),
                where=("OTEL_EXPORTER_OTLP_ENDPOINT",)),
        _export("env-logs-endpoint-words", REFUSED, None,
                env=QUICK + (("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "not a url"),),
                where=("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",)),
        _export("env-endpoint-secret", REFUSED, None,
                env=QUICK + (("OTEL_EXPORTER_OTLP_ENDPOINT", f"ftp://u:{SECRET}@x"),), secrets=(SECRET,),
                where=("OTEL_EXPORTER_OTLP_ENDPOINT",)),
        _export("env-endpoint-closed", "exit:1", None, env=QUICK + (("OTEL_EXPORTER_OTLP_ENDPOINT", CLOSED),)),
        _export("flag-over-bad-env", "exit:1", env=QUICK + (("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://x"),)),
    ]
    return found


def _folders() -> list[Case]:
    found = [
        _export("folder-missing", REFUSED, folder="{tmp}/nowhere", where=("nowhere",)),
        _export("folder-is-a-file", REFUSED, folder="{in}", where=("in.jsonl",)),
        _export("folder-empty", REFUSED, folder="{tmp}/empty", setup="empty_folder", where=("empty",)),
        _export("folder-dev-null", REFUSED, folder="/dev/null", where=("/dev/null",)),
        _export("folder-proc", REFUSED, folder="/proc/self", where=("/proc/self",)),
        _export("folder-empty-name", REFUSED, folder="", where=()),
        _export("folder-out-link", "exit:1", folder="{tmp}/out-link", setup="out_symlink"),
        _export("folder-link-loop", REFUSED, folder="{tmp}/out-a", setup="out_symlink_loop", where=("out-a",)),
    ]
    # the run's own files, damaged (the runner's setups, and this class's below)
    for setup, expect in (("results_garbage_line", ANY), ("results_cut_last_line", ANY),
                          ("results_folder", REFUSED), ("results_empty", ANY), ("summary_garbage", ANY),
                          ("summary_list", ANY), ("manifest_missing", "exit:1"), ("manifest_garbage", ANY),
                          ("manifest_list", ANY), ("manifest_folder", ANY), *((name, ANY) for name in ROWS)):
        found.append(_export(f"damaged-{setup.replace('_', '-')}", expect, setup=setup, where=("results.jsonl",)))
    return found


def _rewrite_results(rows) -> callable:
    def step(folder: Path, out: Path, inp: Path) -> None:
        (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return step


_GOOD_ROW = {"id": "q1", "system": "default", "answer": "Paris.",
             "metrics": {"exact_match": {"value": 1.0, "status": "ok", "reason": None}}}
#: results.jsonl rows of every odd kind: export must send what it can, never fall over
ROWS = {
    "otel_rows_metrics_list": _rewrite_results([{**_GOOD_ROW, "metrics": [1, 2]}]),
    "otel_rows_metric_string": _rewrite_results([{**_GOOD_ROW, "metrics": {"exact_match": "1.0"}}]),
    "otel_rows_value_string": _rewrite_results([{**_GOOD_ROW, "metrics": {"exact_match": {"value": "x"}}}]),
    "otel_rows_value_huge": _rewrite_results([{**_GOOD_ROW, "metrics": {"exact_match": {"value": 10**400,
                                                                                         "status": "ok"}}}]),
    "otel_rows_status_list": _rewrite_results([{**_GOOD_ROW, "metrics": {"exact_match": {"status": [1]}}}]),
    "otel_rows_reason_object": _rewrite_results([{**_GOOD_ROW, "metrics": {"exact_match": {"value": 1,
                                                                                          "reason": {"a": 1}}}}]),
    "otel_rows_trace_garbage": _rewrite_results([{**_GOOD_ROW, "trace": {"trace_id": "zz", "span_id": [1]}}]),
    "otel_rows_trace_huge": _rewrite_results([{**_GOOD_ROW, "trace": {"trace_id": "f" * 64, "span_id": "1"}}]),
    "otel_rows_trace_string": _rewrite_results([{**_GOOD_ROW, "trace": "abc"}]),
    "otel_rows_id_object": _rewrite_results([{**_GOOD_ROW, "id": {"a": 1}, "system": None}]),
    "otel_rows_no_metrics": _rewrite_results([{"id": "q1"}]),
    "otel_rows_scalar_line": _rewrite_results([5, "x", None]),
    "otel_rows_many_metrics": _rewrite_results([{**_GOOD_ROW, "metrics": {
        f"m{i}": {"value": i, "status": "ok"} for i in range(2000)}}]),
}


def otel_json_folder(folder: Path, out: Path, inp: Path) -> None:
    (out / "otel.json").mkdir()


def results_fifo(folder: Path, out: Path, inp: Path) -> None:
    (out / "results.jsonl").rename(out / "results.moved.jsonl")
    os.mkfifo(out / "results.jsonl")


SETUPS = {**ROWS, "otel_json_folder": otel_json_folder, "results_fifo": results_fifo}


def cases() -> list[Case]:
    return [*_urls(), *_folders(),
            _export("otel-json-is-a-folder", "exit:1", setup="otel_json_folder"),
            _export("results-fifo", REFUSED, setup="results_fifo", where=("results.jsonl",))]
