"""``--alert``: rules checked on the summary.json of a real ``genevals run`` window (means worked by hand below),
no alert where coverage is under --min-coverage, and delivery to a real HTTP server on 127.0.0.1 and to a real
command (a ``python -c`` program writing what it got to a file), recorded in alerts.jsonl without secrets."""
from __future__ import annotations

import json
import shlex
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from support.cli import genevals, write_jsonl

from genevals.watch.alerts import Alert, Firing, Skipped, check, deliver, record, shown_url

pytestmark = pytest.mark.slow  # a real `genevals run` makes the window


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    """Two systems. a: 10 rows, 3 without a reference (no_reference, unscored: coverage 0.7), of the 7 others the
    4 odd ids answer the reference exactly (token F1 1) and 3 do not share a token (0): mean 4/7. b: 6 rows, 5
    exact and one sharing no token: mean 5/6, coverage 1."""
    where = tmp_path_factory.mktemp("window")
    rows = [{"id": f"q{i}", "system": "a", "answer": "the cat sat on the mat" if i % 2 else "a dog ran",
             **({"references": ["the cat sat on the mat"]} if i >= 3 else {})} for i in range(10)]
    rows += [{"id": f"q{i}", "system": "b", "answer": "the cat sat on the mat" if i < 5 else "no",
              "references": ["the cat sat on the mat"]} for i in range(6)]
    done = genevals("run", write_jsonl(where / "in.jsonl", rows), "-o", where / "windows" / "0001", "-m",
                    "token_f1", "-q")
    assert done.returncode == 0, done.stderr
    found = json.loads((where / "windows" / "0001" / "summary.json").read_text())
    a, b = found["systems"]["a"]["token_f1"], found["systems"]["b"]["token_f1"]
    assert (a["mean"], a["coverage"], b["mean"], b["coverage"]) == (pytest.approx(4 / 7), 0.7, pytest.approx(5 / 6), 1.0)
    return found


def test_parse():
    assert Alert.parse("faithfulness<0.8") == Alert("faithfulness", "<", 0.8)
    assert Alert.parse(" recall@20 >= 0.5 ") == Alert("recall@20", ">=", 0.5)
    assert Alert.parse("gpt-4o mini:contradiction_rate>.1") == Alert("contradiction_rate", ">", 0.1, "gpt-4o mini")
    assert str(Alert.parse("b:token_f1<=1e-1")) == "b:token_f1<=0.1"
    for bad in ("faithfulness", "faithfulness<", "<0.8", "faithfulness=0.8", "faithfulness<nan", "f<inf",
                "f<0.8x", "a:b:c<1", ""):
        with pytest.raises(ValueError, match="alert"):
            Alert.parse(bad)


def test_fires_on_the_systems_whose_mean_crosses_and_skips_those_under_min_coverage(summary):
    fired = check(Alert.parse("token_f1<0.9"), summary, 0.8, window="0001")
    assert isinstance(fired, Firing)
    [breach] = fired.breaches  # b's 5/6 is below 0.9; a's 4/7 is too, but a covers 0.7 < 0.8 of its answers
    assert (breach.system, breach.mean, breach.coverage, breach.scored) == ("b", pytest.approx(5 / 6), 1.0, 6)
    assert breach.ci95 == tuple(summary["systems"]["b"]["token_f1"]["ci95"])
    assert fired.skipped == (("a", "coverage 0.700 (7 of 10 scored) is below --min-coverage 0.8"),)
    body = fired.to_dict()
    assert body["alert"] == "token_f1<0.9" and body["window"] == "0001" and body["breaches"][0]["system"] == "b"


def test_no_alert_when_the_only_breach_is_under_min_coverage(summary):
    out = check(Alert.parse("token_f1<0.6"), summary, 0.8)
    assert isinstance(out, Skipped) and "a: coverage 0.700" in out.reason
    fired = check(Alert.parse("token_f1<0.6"), summary, 0.5)  # the same rule once 0.7 coverage is enough
    assert isinstance(fired, Firing) and [b.system for b in fired.breaches] == ["a"]
    assert fired.breaches[0].mean == pytest.approx(4 / 7)
    assert isinstance(check(Alert.parse("a:token_f1<0.6"), summary, 0.8), Skipped)
    assert isinstance(check(Alert.parse("a:token_f1<0.6"), summary, None), Skipped)  # None: the run's 0.8


@pytest.mark.parametrize("rule,fires", [
    ("b:token_f1<0.8333", False), ("b:token_f1<0.8334", True),
    ("b:token_f1<=0.8333333333333334", True), ("b:token_f1>0.8333333333333334", False),
    ("b:token_f1>=0.8333333333333334", True), ("b:token_f1>0.5", True),
])
def test_each_operator_at_its_edge(summary, rule, fires):
    out = check(Alert.parse(rule), summary, 0.8)
    assert isinstance(out, Firing) if fires else out is None


def test_what_the_summary_lacks_is_a_named_skip(summary):
    assert "metric 'faithfulness' is not" in check(Alert.parse("faithfulness<0.8"), summary, 0.8).reason
    assert "system 'c' is not" in check(Alert.parse("c:token_f1<0.8"), summary, 0.8).reason
    assert "no systems" in check(Alert.parse("token_f1<0.8"), {}, 0.8).reason
    empty = {"systems": {"a": {"token_f1": {"mean": None, "ci95": None, "scored": 0, "total": 3, "coverage": 0.0}}}}
    assert "no answer was scored" in check(Alert.parse("token_f1<0.8"), empty, 0.0).reason


class Receiver:
    """A real HTTP server on 127.0.0.1 that keeps each POST (path, headers, body) and answers ``status``."""

    def __init__(self, status: int = 200) -> None:
        got = self.got = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                got.append((self.path, dict(self.headers), body))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_posted_to_a_receiver_and_recorded_without_the_urls_secrets(summary, receiver, tmp_path):
    fired = check(Alert.parse("token_f1<0.9"), summary, 0.8, window="0001")
    url = receiver.url.replace("http://", "http://user:hunter2@") + "/hook?token=s3cret#frag"
    [sent] = deliver(fired, url=url, log=tmp_path)
    assert sent.ok and sent.detail == "HTTP 200" and sent.target == receiver.url + "/hook"
    [(path, headers, body)] = receiver.got
    assert path == "/hook?token=s3cret" and headers["Content-Type"] == "application/json"
    assert headers["Authorization"] == "Basic dXNlcjpodW50ZXIy"  # base64 of user:hunter2
    assert json.loads(body) == fired.to_dict()
    log = (tmp_path / "alerts.jsonl").read_text()
    assert "hunter2" not in log and "s3cret" not in log
    [line] = map(json.loads, log.splitlines())
    assert line["event"] == "firing" and line["deliveries"] == [
        {"kind": "url", "target": receiver.url + "/hook", "ok": True, "detail": "HTTP 200"}]


def test_run_as_a_command_with_the_firing_on_stdin_and_in_the_environment(summary, tmp_path):
    fired = check(Alert.parse("token_f1<0.9"), summary, 0.8, window="0001")
    out = tmp_path / "got.json"
    program = ("import json, os, sys; json.dump({'stdin': sys.stdin.read(), 'env': os.environ['GENEVALS_ALERT'], "
               "'argv': sys.argv[1:]}, open(sys.argv[1], 'w'))")
    command = shlex.join([sys.executable, "-c", program, str(out), "--token=s3cret"])
    [done] = deliver(fired, command=command, log=tmp_path / "alerts.jsonl")
    assert done.ok and done.detail == "exit status 0"
    got = json.loads(out.read_text())
    assert json.loads(got["stdin"]) == json.loads(got["env"]) == fired.to_dict()
    assert got["argv"] == [str(out), "--token=s3cret"]  # argv split as a shell would, no shell run
    log = (tmp_path / "alerts.jsonl").read_text()
    assert "s3cret" not in log and json.loads(log)["deliveries"][0]["target"] == sys.executable.rsplit("/", 1)[-1]


def test_failed_deliveries_are_recorded_not_raised(summary, tmp_path):
    fired = check(Alert.parse("token_f1<0.9"), summary, 0.8)
    failing = Receiver(status=500)
    try:
        assert deliver(fired, url=failing.url)[0].detail == "HTTP 500"
    finally:
        failing.close()
    closed = failing.url  # nothing listens there now
    [refused] = deliver(fired, url=closed, timeout=5)
    assert not refused.ok and refused.detail.startswith("not delivered")
    assert deliver(fired, url="file:///etc/passwd")[0].detail == "only http and https URLs are posted to"
    assert deliver(fired, command=shlex.join([sys.executable, "-c", "raise SystemExit(3)"]))[0].detail == \
        "exit status 3"
    assert deliver(fired, command="/no/such/program x")[0].detail.startswith("could not start")
    slow = deliver(fired, command=shlex.join([sys.executable, "-c", "import time; time.sleep(30)"]), timeout=0.5)
    assert slow[0].detail == "still running after 0.5 s: stopped"
    assert deliver(fired, command="'unclosed")[0].detail.startswith("the command line cannot be split")


def test_a_skip_is_recorded_with_its_reason(summary, tmp_path):
    skipped = check(Alert.parse("token_f1<0.6"), summary, 0.8, window="0002")
    record(tmp_path, skipped)
    [line] = map(json.loads, (tmp_path / "alerts.jsonl").read_text().splitlines())
    assert (line["event"], line["window"], line["deliveries"]) == ("skipped", "0002", [])
    assert "coverage 0.700" in line["reason"]


def test_shown_url():
    assert shown_url("https://u:p@hooks.example.com:8443/a/b?key=1#x") == "https://hooks.example.com:8443/a/b"
    assert shown_url("http://[::1]:9/x") == "http://[::1]:9/x"
