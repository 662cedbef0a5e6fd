"""``genevals run --judge-batch`` (issue 51, point 4): the judge's requests through the OpenAI Batch API, in real
processes against the local batch server (:mod:`support.batch_server`, answering as the scripted honest judge),
with its faults: partial failures, an expired batch, a run killed between the create and the download."""
import json
import os
import signal
import subprocess
import sys
import time

from support.batch_server import BatchServer

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
ANSWERS = ["Marie Curie was born in Warsaw.", "Marie Curie discovered polonium. She was born in Paris.",
           "Marie Curie discovered polonium.", "Marie Curie was born in Warsaw. Marie Curie was a chemist."]
FAST = ("--judge-option", "batch_poll=0.02", "--judge-option", "batch_poll_max=0.1")


def rows(path, answers=ANSWERS):
    path.write_text("".join(json.dumps({"id": str(i), "answer": a, "contexts": [CONTEXT]}) + "\n"
                            for i, a in enumerate(answers)))
    return str(path)


def command(data, out, url, cache, *extra):
    return [sys.executable, "-m", "genevals", "run", data, "--out", str(out), "--metrics", "faithfulness", "-q",
            "--judge-base-url", url, "--judge-model", "judge", "--judge-cache", str(cache), *extra]


def run(*args):
    return subprocess.run(command(*args), capture_output=True, text=True, timeout=300)


def results(out):
    return {r["id"]: r["metrics"] for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def scores(out):
    return {i: (m["faithfulness"]["status"], m["faithfulness"].get("value")) for i, m in results(out).items()}


def test_a_batch_run_scores_as_the_direct_run_and_fills_the_cache(tmp_path):
    data = rows(tmp_path / "d.jsonl")
    with BatchServer() as server:
        direct = run(data, tmp_path / "direct", server.base_url, tmp_path / "cache-direct")
        assert direct.returncode == 0, direct.stderr
        server.reset_counts()
        batched = run(data, tmp_path / "batch", server.base_url, tmp_path / "cache", "--judge-batch", *FAST)
        assert batched.returncode == 0, batched.stderr
        # the preflight is the one direct call; the rest came in two batches: the decompositions, the verifications
        assert server.creates == 2 and [len(b) for b in server.batched] == [4, 4]
        assert server.total == 1 + 8
        polls, total = server.polls, server.total
        again = run(data, tmp_path / "again", server.base_url, tmp_path / "cache", "--judge-batch", *FAST)
        assert again.returncode == 0, again.stderr
        assert (server.creates, server.polls, server.total) == (2, polls, total)  # all from the cache: nothing sent
    assert scores(tmp_path / "batch") == scores(tmp_path / "direct") == scores(tmp_path / "again")
    assert {s for s, _ in scores(tmp_path / "batch").values()} == {"ok"}
    kept = json.loads((tmp_path / "batch" / "judge_batches.json").read_text())["batches"]
    assert [b["id"] for b in kept] == ["batch_1", "batch_2"] and len(kept[0]["custom_ids"]) == 4


def test_a_run_killed_between_create_and_download_resumes_the_same_batch(tmp_path):
    data, out = rows(tmp_path / "d.jsonl"), tmp_path / "out"
    with BatchServer(hold=True) as server:
        args = (data, out, server.base_url, tmp_path / "cache", "--judge-batch", *FAST)
        first = subprocess.Popen(command(*args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        state = out / "judge_batches.json"
        deadline = time.monotonic() + 120
        while not state.exists() and time.monotonic() < deadline and first.poll() is None:
            time.sleep(0.05)
        assert state.exists(), "the batch id never reached the run folder"
        time.sleep(0.3)  # polling: the batch is in progress
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
        assert server.creates == 1 and server.downloads == 0
        answered = server.total
        server.release()
        second = run(*args)
        assert second.returncode == 0, second.stderr
        # the decompositions' batch was created once and polled again: only the verifications' batch is new
        assert server.creates == 2 and not set(server.batched[0]) & set(server.batched[1])
        assert server.total - answered == 1 + 8  # the rerun's preflight, then each request answered (paid) once
    assert {s for s, _ in scores(out).values()} == {"ok"} and len(scores(out)) == 4


def test_a_partly_failed_batch_retries_what_may_pass_and_marks_what_cannot(tmp_path):
    answers = ["Marie Curie was born in Warsaw.", "Marie Curie discovered polonium. BATCHFAIL500.",
               "Marie Curie discovered polonium. BATCHFAIL400."]
    with BatchServer() as server:
        done = run(rows(tmp_path / "d.jsonl", answers), tmp_path / "out", server.base_url, tmp_path / "cache",
                   "--judge-batch", "--max-judge-errors", "1", *FAST)
        assert done.returncode == 0, done.stderr
        first = set(server.batched[0])
        later = set().union(*server.batched[1:])
    got = results(tmp_path / "out")
    assert got["0"]["faithfulness"]["status"] == "ok"
    assert got["1"]["faithfulness"]["status"] == "ok"  # its 500 was retried in a follow-up batch
    assert got["2"]["faithfulness"]["status"] == "judge_error"  # a 400 is not retried
    assert "HTTP 400: the request names a model feature it may not use" in got["2"]["faithfulness"]["reason"]
    assert len(first & later) == 1  # exactly the one 500 was sent again


def test_an_expired_batch_sends_its_unfinished_requests_again(tmp_path):
    with BatchServer(expire={1}) as server:
        done = run(rows(tmp_path / "d.jsonl"), tmp_path / "out", server.base_url, tmp_path / "cache",
                   "--judge-batch", *FAST)
        assert done.returncode == 0, done.stderr
        assert server.batches["batch_1"]["status"] == "expired"
        assert set(server.batched[0][2:]) <= set(server.batched[1])  # the half it did not do, in the next batch
    assert {s for s, _ in scores(tmp_path / "out").values()} == {"ok"}


def test_the_dry_run_prices_batch_calls_with_the_discount(tmp_path):
    data = rows(tmp_path / "d.jsonl")

    def cost(url, prices, *extra):
        (tmp_path / "p.json").write_text(json.dumps({"judge": prices}))
        out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
        argv = command(data, out, url, tmp_path / "cache", "--dry-run", "--judge-prices", str(tmp_path / "p.json"),
                       *extra)
        done = subprocess.run([a for a in argv if a != "-q"],  # the note on the price is not shown with -q
                              capture_output=True, text=True, timeout=300)
        assert done.returncode in (0, 1), done.stderr
        total = sum(m["faithfulness"]["details"]["usage"]["estimated_cost_usd"] for m in results(out).values())
        return round(total, 8), done.stderr

    price = {"input_per_1k": 1.0, "output_per_1k": 2.0}
    full, _ = cost("http://127.0.0.1:9/v1", price)
    assert full > 0
    unknown, said = cost("http://127.0.0.1:9/v1", price, "--judge-batch")
    assert unknown == full and "is unknown: costs are shown at the full price" in said
    quarter, said = cost("http://127.0.0.1:9/v1", {**price, "batch_discount": 0.25}, "--judge-batch")
    assert abs(quarter - 0.75 * full) < 1e-6 and "batch_discount 0.25" in said
    openai, said = cost("https://api.openai.com/v1", price, "--judge-batch")
    assert abs(openai - 0.5 * full) < 1e-6 and "api.openai.com's published batch discount, 50%" in said


def test_a_judge_without_a_batch_api_is_refused(tmp_path):
    done = subprocess.run([sys.executable, "-m", "genevals", "run", rows(tmp_path / "d.jsonl"), "--out",
                           str(tmp_path / "out"), "--metrics", "faithfulness", "--judge-backend", "llamacpp",
                           "--judge-batch"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "--judge-batch needs an OpenAI-compatible judge" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_batch_discount_outside_0_to_1_is_refused_naming_it(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps({"judge": {"input_per_1k": 1, "output_per_1k": 1,
                                                           "batch_discount": 1.5}}))
    done = subprocess.run(command(rows(tmp_path / "d.jsonl"), tmp_path / "out", "http://127.0.0.1:9/v1",
                                  tmp_path / "cache", "--dry-run", "--judge-batch", "--judge-prices",
                                  str(tmp_path / "p.json")), capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "batch_discount 1.5: expected a share from 0 to 1" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_an_unreadable_batch_record_is_set_aside_and_said(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "judge_batches.json").write_text('{"batches": [')
    with BatchServer() as server:
        argv = [a for a in command(rows(tmp_path / "d.jsonl"), out, server.base_url, tmp_path / "cache",
                                   "--judge-batch", *FAST) if a != "-q"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert server.creates == 2
    assert "judge_batches.json: unreadable" in done.stderr and "not resumed" in done.stderr
    assert (out / "judge_batches.json.unreadable").read_text() == '{"batches": ['
    assert len(json.loads((out / "judge_batches.json").read_text())["batches"]) == 2
