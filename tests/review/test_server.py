"""``genevals review`` as a real process: what it refuses (no token, another host or origin, other content, big
bodies, files outside the run folder or hidden, a non-loopback address without the flag), malformed requests
answered 4xx, slow clients cut off while others are served, --verbose and a port clash, and a store that survives
two writers at once and a SIGKILL in the middle of writes."""
from __future__ import annotations

import dataclasses
import http.client
import itertools
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest
from support.review_server import REPO, ReviewProcess
from support.runs import add_judge, make_run

from genevals.review.claims import load_samples
from genevals.review.server import MAX_BODY
from genevals.review.store import ReviewStore, read_decisions


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    return add_judge(make_run(tmp_path_factory.mktemp("base") / "judged"))


@pytest.fixture
def run(judged, tmp_path):
    return shutil.copytree(judged, tmp_path / "run")


def flagged(run):
    return [(s, c) for s in load_samples(run).values() for c in s.claims if c.flagged]


def body(sample, claim, reviewer="ann", decision="confirmed", note=""):
    return {"reviewer": reviewer, "system": sample.system, "sample_id": sample.id, "claim": claim.index,
            "decision": decision, "note": note}


def test_writes_need_the_token_a_loopback_host_and_json(run):
    server = ReviewProcess(run)
    try:
        assert "127.0.0.1" in server.banner and "loopback only" in server.banner
        sample, claim = flagged(run)[0]
        good = body(sample, claim)
        assert server.call("POST", "/api/decisions", good, token=None)[0] == 403
        assert server.call("POST", "/api/decisions", good, token="wrong")[0] == 403
        assert server.call("GET", "/api/state", token=None)[0] == 403
        assert server.call("POST", "/api/decisions", good, headers={"Host": "evil.example:80"})[0] == 421
        assert server.call("GET", "/", headers={"Host": "rebound.example"}, raw=True)[0] == 421
        assert server.call("POST", "/api/decisions", good, headers={"Origin": "http://evil.example"})[0] == 403
        assert server.call("POST", "/api/decisions", good, headers={"Content-Type": "text/plain"})[0] == 415
        big = {**good, "note": "x" * MAX_BODY}
        assert server.call("POST", "/api/decisions", big)[0] == 413
        assert server.call("POST", "/api/decisions", data=b"{not json")[0] == 400
        assert server.call("POST", "/api/decisions", {**good, "decision": "maybe"})[0] == 400
        assert server.call("POST", "/api/decisions", {**good, "sample_id": "nope"})[0] == 404
        assert server.call("POST", "/api/decisions", {**good, "claim": 999})[0] == 404
        assert server.call("POST", "/api/decisions", {**good, "reviewer": ""})[0] == 400
        assert read_decisions(run) == []
        status, state = server.call("POST", "/api/decisions", good, headers={"Origin": server.url.rstrip("/")})
        assert status == 201 and state["progress"]["reviewed"] == 1
        assert state["progress"]["flagged"] == len(flagged(run))
        [stored] = read_decisions(run)
        assert (stored.reviewer, stored.sample_id, stored.claim_index) == ("ann", sample.id, claim.index)
    finally:
        server.stop()


def test_only_files_of_the_run_folder_are_served(run, tmp_path):
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", run / "link.txt")
    (run / ".hidden").write_text("hidden")
    server = ReviewProcess(run)
    try:
        status, text = server.call("GET", "/files/summary.json", raw=True)
        assert status == 200 and '"systems"' in text
        for path in ("/files/../secret.txt", "/files/%2e%2e/secret.txt", "/files/..%2fsecret.txt", "/files/link.txt",
                     "/files/.hidden", "/files//etc/passwd", "/files/%2fetc%2fpasswd", "/files/", "/../secret.txt",
                     "/files/review.sqlite/../../secret.txt"):
            status, text = server.call("GET", path, raw=True)
            assert status == 404 and "secret" not in text and "hidden" not in text, path
    finally:
        server.stop()


def test_headers_forbid_framing_and_the_page_may_only_call_its_own_server(run):
    import urllib.request

    server = ReviewProcess(run)
    try:
        with urllib.request.urlopen(server.url, timeout=30) as response:
            headers, html = response.headers, response.read().decode()
        assert headers["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["Cache-Control"] == "no-store"
        assert "connect-src 'self'" in html and "connect-src 'none'" not in html
        request = urllib.request.Request(server.url + "files/results.jsonl")
        with urllib.request.urlopen(request, timeout=30) as response:
            assert "sandbox" in response.headers["Content-Security-Policy"]
            assert response.headers["Content-Disposition"].startswith("attachment")
    finally:
        server.stop()


def test_other_addresses_need_an_explicit_flag(run):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    refused = subprocess.run([sys.executable, "-m", "genevals", "review", str(run), "--host", "0.0.0.0", "--port", "0"],
                             capture_output=True, text=True, env=env, timeout=120, check=False)
    assert refused.returncode == 2 and "--allow-remote" in refused.stderr
    server = ReviewProcess(run, "--host", "0.0.0.0", "--allow-remote")
    try:
        assert "REACHABLE FROM OTHER MACHINES" in server.banner
    finally:
        server.stop()
    assert "warning: binding 0.0.0.0" in server.stderr


def post_many(server, items, acked, errors, reviewer):
    for n, (sample, claim) in enumerate(items):
        try:
            status, _ = server.call("POST", "/api/decisions", body(sample, claim, reviewer, note=f"{reviewer} {n}"))
        except (OSError, http.client.HTTPException) as exc:  # the server was killed (mid-reply: IncompleteRead)
            errors.append(exc)
            return
        if status == 201:
            acked.append(f"{reviewer} {n}")
        else:
            errors.append(status)


def test_two_servers_writing_at_once_lose_nothing(run):
    items = flagged(run)[:30]
    servers = [ReviewProcess(run), ReviewProcess(run)]
    acked, errors = [], []
    try:
        threads = [threading.Thread(target=post_many, args=(servers[i % 2], items, acked, errors, f"r{i}"))
                   for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for s in servers:
            s.stop()
    assert errors == []
    stored = read_decisions(run)
    assert len(stored) == len(acked) == 4 * len(items)
    assert sorted(d.note for d in stored) == sorted(acked) and len({d.id for d in stored}) == len(stored)
    with ReviewStore(run) as store:
        assert store.integrity() == "ok"


def test_a_sigkill_during_writes_loses_at_most_the_writes_in_flight(run):
    items = flagged(run) * 20
    server = ReviewProcess(run)
    acked, errors = [], []
    threads = [threading.Thread(target=post_many, args=(server, items, acked, errors, f"k{i}")) for i in range(2)]
    for t in threads:
        t.start()
    deadline = time.time() + 30
    while len(acked) < 40 and time.time() < deadline:
        time.sleep(0.01)
    server.proc.send_signal(signal.SIGKILL)
    for t in threads:
        t.join(30)
    server.stop()
    with ReviewStore(run) as store:  # opening recovers the WAL; the file is sound and every acknowledged row is there
        assert store.integrity() == "ok"
        notes = {d.note for d in store.all()}
        assert set(acked) <= notes and len(notes) <= len(acked) + len(threads)
        first = store.all()[0]
        store.add(dataclasses.replace(first, id=None, note="after"))
        assert store.all()[-1].note == "after"
    assert len(acked) >= 40 and len(errors) == len(threads)


def test_a_run_folder_changing_under_the_server_gives_an_error_response_not_a_dead_server(run):
    server = ReviewProcess(run)
    try:
        results = run / "results.jsonl"
        results.rename(run / "moved.jsonl")
        status, reply = server.call("GET", "/api/state")
        assert status == 500 and "FileNotFoundError" in reply["error"]
        (run / "moved.jsonl").rename(results)
        status, reply = server.call("GET", "/api/state")
        assert status == 200 and reply["progress"]["flagged"] == len(flagged(run))
    finally:
        server.stop()
    assert "genevals review: error: FileNotFoundError" in server.stderr


def test_slow_clients_are_cut_off_at_the_timeout_while_others_are_served(run):
    server = ReviewProcess(run, "--request-timeout", "1")
    host, port = server.url.split("//")[1].rstrip("/").rsplit(":", 1)
    silent = [socket.create_connection((host, int(port))) for _ in range(20)]  # open, then send nothing
    trickle = socket.create_connection((host, int(port)))
    stop = threading.Event()

    def one_byte_at_a_time():  # a request line and headers that never end, a byte every 0.1 s
        for byte in itertools.cycle(b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 50):
            if stop.wait(0.1):
                return
            try:
                trickle.send(bytes([byte]))
            except OSError:
                return

    sender = threading.Thread(target=one_byte_at_a_time)
    try:
        sender.start()
        started = time.monotonic()
        status, state = server.call("GET", "/api/state")  # others are served meanwhile
        assert status == 200 and state["progress"]["flagged"] == len(flagged(run))
        assert time.monotonic() - started < 1
        for conn in [trickle, *silent]:
            conn.settimeout(5)
            assert conn.recv(1024) == b""  # closed by the server (on a server without a timeout: TimeoutError)
        assert time.monotonic() - started < 3
        for request in (b"GET / HTTP/1.1\r\nHost: 127", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"):
            reset = socket.create_connection((host, int(port)))  # gone mid-request, or before reading the page
            reset.sendall(request)
            time.sleep(0.2)
            reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            reset.close()
        time.sleep(0.3)
        status, _ = server.call("GET", "/api/state")
        assert status == 200
    finally:
        stop.set()
        sender.join()
        for conn in [trickle, *silent]:
            conn.close()
        server.stop()
    assert "Traceback" not in server.stderr and "BrokenPipe" not in server.stderr


NESTED = b"[" * 8000 + b"]" * 8000


def test_malformed_headers_bodies_text_and_names_get_4xx_not_500(run):
    sample, claim = flagged(run)[0]
    good = body(sample, claim)
    server = ReviewProcess(run)
    try:
        for origin in ("http://[::1", "http://[", "http://localhost:99999", "http://localhost:port", "http://[::1]x"):
            assert server.call("POST", "/api/decisions", good, headers={"Origin": origin})[0] == 403, origin
        for host in ("[", "[::1", "[127.0.0.1"):
            assert server.call("GET", "/api/state", headers={"Host": host})[0] == 421, host
        assert len(NESTED) <= MAX_BODY
        status, reply = server.call("POST", "/api/decisions", data=NESTED)
        assert status == 400 and "deep" in reply["error"]
        inner = json.dumps({**good, "note": "NOTE"}).encode().replace(b'"NOTE"', NESTED[:6000] + NESTED[-6000:])
        assert server.call("POST", "/api/decisions", data=inner)[0] == 400
        for field, text in (("reviewer", "a\x00b"), ("reviewer", "\x00"), ("reviewer", "ann\ud800"),
                            ("reviewer", "\udfff"), ("note", "n\x00te"), ("note", "\ud83d alone"),
                            ("reviewer", "line\nbreak")):
            status, reply = server.call("POST", "/api/decisions", {**good, field: text})
            assert status == 400 and reply["error"].startswith(field), (field, text, reply)
        status, _ = server.call("POST", "/api/decisions", {**good, "note": "two\nlines\tand 😀"})
        assert status == 201  # line breaks, tabs and whole characters outside the BMP stay allowed in notes
        for path in ("/files/" + "a" * 300, "/files/" + "a/" * 3000 + "b", "/files/" + "%C0" * 200,
                     "/files/summary.json/" + "x" * 300):
            status, reply = server.call("GET", path)
            assert status == 404 and reply["error"] == "not found", path[:40]
        assert [d.note for d in read_decisions(run)] == ["two\nlines\tand 😀"]
        assert server.call("GET", "/api/state")[0] == 200
    finally:
        server.stop()
    assert "error" not in server.stderr and "Traceback" not in server.stderr


def test_a_link_to_a_hidden_file_or_folder_inside_the_run_folder_is_not_served(run):
    (run / ".hidden").write_text("hidden")
    (run / ".git").mkdir()
    (run / ".git" / "config").write_text("hidden config")
    os.symlink(run / ".hidden", run / "peek.txt")
    os.symlink(".hidden", run / "relative.txt")
    os.symlink(run / ".git", run / "git")
    os.symlink(run / "summary.json", run / "summary-link.json")
    server = ReviewProcess(run)
    try:
        for path in ("/files/peek.txt", "/files/relative.txt", "/files/git/config"):
            status, text = server.call("GET", path, raw=True)
            assert status == 404 and "hidden" not in text, path
        status, text = server.call("GET", "/files/summary-link.json", raw=True)
        assert status == 200 and '"systems"' in text  # a link to a visible file of the run is still served
    finally:
        server.stop()


def test_verbose_logs_every_request_on_stderr(run):
    quiet, verbose = ReviewProcess(run), ReviewProcess(run, "--verbose")
    try:
        for server in (quiet, verbose):
            assert server.call("GET", "/api/state")[0] == 200
            assert server.call("GET", "/files/nothing-here")[0] == 404
    finally:
        quiet.stop()
        verbose.stop()
    assert '"GET /api/state HTTP/1.1" 200' in verbose.stderr
    assert '"GET /files/nothing-here HTTP/1.1" 404' in verbose.stderr
    assert "GET /" not in quiet.stderr


def test_a_port_in_use_is_named_with_the_way_out(run):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = ReviewProcess(run)
    try:
        port = server.url.rstrip("/").rsplit(":", 1)[1]
        clash = subprocess.run([sys.executable, "-m", "genevals", "review", str(run), "--port", port],
                               capture_output=True, text=True, env=env, timeout=120, check=False)
    finally:
        server.stop()
    assert clash.returncode == 2 and "Traceback" not in clash.stderr
    assert f"port {port}" in clash.stderr and "already in use" in clash.stderr and "--port 0" in clash.stderr
    for bad in ("70000", "-1"):  # 70000: an OverflowError traceback before
        refused = subprocess.run([sys.executable, "-m", "genevals", "review", str(run), "--port", bad],
                                 capture_output=True, text=True, env=env, timeout=120, check=False)
        assert refused.returncode == 2 and "--port" in refused.stderr and "Traceback" not in refused.stderr, bad
