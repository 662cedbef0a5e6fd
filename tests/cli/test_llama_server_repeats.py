"""``--judge-repeats 3`` end to end against llama.cpp's real server with the packaged Gemma 3 270M at temperature
0.8, through the CLI as a user runs it, with every request counted on its way to the server (a forwarding
proxy): one decomposition and three verifications per answer (seeds 0, 1, 2), exactly the requests the results
account for, and a re-run from the cache that sends none. (Failed repeats: tests/cli/test_judge_repeats.py, with
the fault-injecting server.)"""
import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from support.llama_server import llama_server  # noqa: F401  (fixture)

# one answer: every count below is per answer and per repeat (a second answer doubled the minutes of generation on
# two cores and checked nothing the first does not)
ROWS = [("curie", "Marie Curie was born in Warsaw.", "Marie Curie was born in Warsaw in 1867.")]


class CountingProxy:
    """Forwards every request to ``target`` and keeps the JSON body of each POST."""

    def __init__(self, target: str) -> None:
        self.target, self.posts, self.gets = target.rstrip("/"), [], 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _forward(self, data=None):
                request = urllib.request.Request(proxy.target + self.path.removeprefix("/v1"), data=data,
                                                 method=self.command, headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=600) as resp:
                        status, body = resp.status, resp.read()
                except urllib.error.HTTPError as exc:
                    status, body = exc.code, exc.read()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                proxy.gets += 1
                self._forward()

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                proxy.posts.append(json.loads(data))
                self._forward(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=900,
                          check=False)


def kind(body):
    content = body["messages"][0]["content"]
    if "Claims:" in content:
        return "verify-reask" if "An earlier reply gave no usable verdict" in content else "verify"
    return "decompose" if 'Answer: """' in content else "other"


def test_repeats_against_llama_server(llama_server, tmp_path):  # noqa: F811
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "question": "Where?", "answer": a, "contexts": [c]}) + "\n"
                            for i, a, c in ROWS))
    judge = ["--metrics", "faithfulness", "--judge-model", "gemma-3-270m", "--judge-max-claims", "2",
             "--judge-max-tokens", "192", "--judge-timeout", "300", "--judge-concurrency", "1", "--judge-repeats", "3",
             "--judge-temperature", "0.8", "--judge-cache", str(tmp_path / "cache"), "--max-judge-errors", "1", "-q"]
    with CountingProxy(llama_server) as proxy:
        done = genevals("run", str(data), "--out", str(tmp_path / "out"), "--judge-base-url", proxy.url, *judge)
        assert done.returncode == 0, done.stderr
        rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
        faith = [row["metrics"]["faithfulness"] for row in rows]
        # every request the server saw is one the results account for (plus the preflight's)
        accounted = sum(f["details"]["usage"]["requests"] for f in faith)
        counted = Counter((kind(b), b.get("seed"), b.get("temperature")) for b in proxy.posts)
        # the preflight: one request, or two where it steps down to the structured-output format the server
        # takes (issue 52, point 10: probed once for the run, so no request of the run is refused for it)
        preflight = counted[("other", 0, 0.0)]
        assert preflight in (1, 2) and len(proxy.posts) == accounted + preflight, (counted, [f["status"] for f in faith])
        decompose = sum(n for (k, _, _), n in counted.items() if k == "decompose")
        assert decompose >= len(ROWS) and all(s == 0 and t == 0.8 for k, s, t in counted if k == "decompose")
        verified = [f for f in faith if f["status"] == "ok" or "repeats" in f["details"]]
        for seed in (0, 1, 2):  # one first verify per judged answer and repeat, each with its own seed
            assert counted[("verify", seed, 0.8)] == len(verified), counted
        for f in verified:
            assert len(f["details"]["repeats"]["statuses"]) == 3
            for v in f["details"].get("verdicts", []):
                assert len(v["repeats"]) == 3 and v["label"] in ("supported", "contradicted", "unverifiable")
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        print(f"llama server, 3 repeats at 0.8: {len(proxy.posts)} requests {dict(counted)}; "
              f"statuses {[f['status'] for f in faith]}; repeats {summary['meta'].get('judge_repeats')}")

        proxy.posts.clear()
        again = genevals("run", str(data), "--out", str(tmp_path / "again"), "--judge-base-url", proxy.url, *judge)
        assert again.returncode == 0, again.stderr
        assert proxy.posts == []  # every repeat from the cache: no preflight, no request
        rerun = [json.loads(line)["metrics"]["faithfulness"]
                 for line in (tmp_path / "again" / "results.jsonl").read_text().splitlines()]
        assert [f.get("value") for f in rerun] == [f.get("value") for f in faith]
        assert all(f["details"]["usage"]["cached_requests"] == f["details"]["usage"]["requests"] +
                   f["details"]["usage"]["cached_requests"] for f in rerun)
