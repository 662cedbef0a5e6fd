"""Per-window caps on judge calls and cost (``--max-judge-calls``, ``--max-cost``) through real ``genevals watch``
processes and the fault-injecting judge server: a window stops admitting at its cap, the decision log says
``over_budget`` with the cap, the estimate and its basis, and the next window admits again. The figures are checked
by hand: the dry-run basis against ``genevals run --dry-run``'s token estimates of the same traces priced with the
price table, the measured basis against the scored window's own token usage priced the same way."""
import json
import re

import pytest
from support.cli import genevals
from support.fault_server import FaultServer
from support.watch_process import Watch, wait_for
from support.watch_traces import json_body, post, request, spans, trace_id

from genevals.watch import decisions

pytest.importorskip("genevals.watch.sampling")
pytestmark = pytest.mark.slow  # real watch processes and a judge server

DOC = "Paris is the capital of France."
#: four sentences, so four claims: a longer decompose reply and verify prompt than DOC's
LONG = f"{DOC} It has nine million people. It lies on the Seine. Its mayor is elected."
PRICE = {"input_per_1k": 0.5, "output_per_1k": 2.0}  # dollars per 1000 tokens, large so the figures are readable


def _judge(url, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"judge": PRICE}))
    return ("--judge-backend", "openai", "--judge-base-url", url, "--judge-model", "judge", "--no-judge-cache",
            "--judge-prices", prices)


def _cost(prompt, completion):
    """The price table's cost of these tokens, by hand: p/1000 * input_per_1k + q/1000 * output_per_1k."""
    return prompt / 1000 * PRICE["input_per_1k"] + completion / 1000 * PRICE["output_per_1k"]


def _dry_run(tmp_path, answers, judge):
    """trace -> (requests, cost) that ``genevals run --dry-run`` estimates for these traces (trace -> answer),
    priced by hand."""
    export = tmp_path / "export.jsonl"
    export.write_bytes(b"".join(json_body(request(spans(t, answer=a, docs=(DOC,)))) + b"\n"
                                for t, a in answers.items()))
    done = genevals("run", export, "--from", "openinference", "--out", tmp_path / "dry", "-m", "faithfulness",
                    "--dry-run", "--no-history", *judge)
    assert done.returncode == 0, done.stderr
    out = {}
    for row in map(json.loads, (tmp_path / "dry" / "results.jsonl").read_text().splitlines()):
        usage = row["metrics"]["faithfulness"]["details"]["usage"]
        out[row["id"]] = (usage["estimated_requests"],
                          _cost(usage["estimated_prompt_tokens"], usage["estimated_completion_tokens"]))
    return out


def _batch(ids, answers):
    """One OTLP request of these traces: they arrive together, so one tick decides them, in trace id order
    (the queue's order for roots that arrived at the same time)."""
    return request([s for t in ids for s in spans(t, answer=answers[t], docs=(DOC,))]).SerializeToString()


def _dollars(text, label):
    found = re.search(label + r" \$([0-9.]+)", text)
    assert found, (label, text)
    return float(found.group(1))


def test_the_cost_cap_stops_a_window_and_the_next_admits_again_with_figures_checked_by_hand(tmp_path):
    # decided in trace id order: in the first window short, long, short; in the second three short
    first, second = sorted(map(trace_id, range(3))), sorted(map(trace_id, range(3, 6)))
    answers = {t: LONG if t == first[1] else DOC for t in first + second}
    ids = first + second
    out = tmp_path / "w"
    with FaultServer() as server:
        judge = _judge(server.base_url, tmp_path)
        dry = _dry_run(tmp_path, answers, judge)
        short, long_ = dry[first[0]][1], dry[first[1]][1]
        assert dry[first[0]][0] == dry[first[1]][0] == 2  # faithfulness: decompose and verify
        assert long_ > short and all(dry[t][1] == short for t in ids if answers[t] == DOC)
        cap = round(2 * short + (long_ - short) / 2, 6)  # two short traces fit; a short and the long one do not
        watch = Watch(out, "-m", "faithfulness", "--window", "2s", "--grace", "0s", "--max-cost", cap,
                      "--no-history", *judge)
        try:
            assert post(watch.port, _batch(first, answers))[0] == 200
            wait_for(lambda: (out / "windows" / "0001" / "summary.json").exists()
                     and len(decisions.read(out)) == 3, limit=120, step=0.1)
            assert post(watch.port, _batch(second, answers))[0] == 200
            wait_for(lambda: len(decisions.read(out)) >= 4, limit=120, step=0.1)  # the one left out, at once
            code, _, stderr = watch.stop()
        finally:
            if watch.proc.poll() is None:
                watch.kill()
    assert code == 0 and "Traceback" not in stderr, stderr
    log = {line["trace_id"]: line for line in decisions.read(out)}
    assert [log[t]["decision"] for t in ids] == ["scored", "over_budget", "scored", "scored", "scored",
                                                 "over_budget"], log
    assert [log[t]["window"] for t in ids] == [1, None, 1, 2, 2, None]
    # window 1, on the dry-run basis: the long trace would pass the cap after the first short one
    reason = log[ids[1]]["reason"]
    assert f"--max-cost ${cap:g}" in reason and "dry-run" in reason and "price table" in reason, reason
    assert _dollars(reason, "window 1 has") == pytest.approx(short, abs=1e-6)
    assert _dollars(reason, "would add") == pytest.approx(long_, abs=1e-6)
    # window 2, on the measured basis: window 1's tokens priced by hand, per trace it scored
    rows = [json.loads(r) for r in (out / "windows" / "0001" / "results.jsonl").read_text().splitlines()]
    used = [r["metrics"]["faithfulness"]["details"]["usage"] for r in rows]
    measured = sum(_cost(u["prompt_tokens"], u["completion_tokens"]) for u in used) / len(rows)
    assert 2 * measured <= cap < 3 * measured  # what makes the third trace of window 2 the one left out
    reason = log[ids[5]]["reason"]
    assert "measured" in reason and "over 2 traces of the scored windows" in reason, reason
    assert _dollars(reason, "window 2 has") == pytest.approx(2 * measured, abs=1e-5)
    assert _dollars(reason, "would add") == pytest.approx(measured, abs=1e-6)
    summary = json.loads((out / "windows" / "0002" / "summary.json").read_text())
    assert summary["corpus"]["default"]["judge_cost_usd"] <= cap  # what window 2 really spent


def test_the_call_cap_counts_the_calls_a_trace_makes_not_one_a_metric(tmp_path):
    """faithfulness makes 2 calls a trace: --max-judge-calls 3 admits one trace a window, where one call a judge
    metric would have admitted three; the judge server received no more than the cap."""
    export = tmp_path / "export.jsonl"
    export.write_bytes(b"".join(json_body(request(spans(trace_id(i), docs=(DOC,), answer=DOC))) + b"\n"
                                for i in range(4)))
    with FaultServer() as server:
        done = genevals("watch", "--out", tmp_path / "w", "-m", "faithfulness", "--from", export, "--window", "3",
                        "--max-judge-calls", "3", "--no-history", *_judge(server.base_url, tmp_path))
        received = server.total
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    log = {line["trace_id"]: line for line in decisions.read(tmp_path / "w")}
    decided = sorted(line["decision"] for line in log.values())
    assert decided == ["over_budget"] * 3 + ["scored"], log
    for line in log.values():
        if line["decision"] == "scored":
            continue
        reason = line["reason"]
        assert reason.startswith("window 1 has 2 of --max-judge-calls 3 estimated judge calls; this trace would "
                                 "add 2 (dry-run"), reason
    assert received == 2 <= 3


def test_max_cost_is_refused_at_start_when_the_model_has_no_price(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"other-model": PRICE}))
    base = ("watch", "--out", tmp_path / "w", "-m", "faithfulness", "--otlp-port", "0", "--judge-backend", "openai",
            "--judge-base-url", "http://127.0.0.1:9/v1", "--judge-model", "judge")
    for extra, words in ((("--max-cost", "1", "--judge-prices", prices), "no price for the judge's model 'judge'"),
                         (("--max-cost", "1"), "no price for the judge's model 'judge' (models priced: none)"),
                         (("--max-cost", "-1", "--judge-prices", prices), "--max-cost -1.0: expected US dollars"),
                         (("--max-cost", "nan", "--judge-prices", prices), "--max-cost nan: expected US dollars")):
        done = genevals(*base, *extra)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert words in done.stderr and "--max-cost" in done.stderr, done.stderr
        assert not (tmp_path / "w" / "watch.json").exists()  # refused before anything listened


def test_a_restart_estimates_on_the_windows_it_finds_measured(tmp_path):
    """A second watcher on the same folder starts on the measured basis of the windows the first one scored."""
    first, second = [trace_id(10), trace_id(11)], [trace_id(12 + i) for i in range(3)]
    for name, ids in (("a.jsonl", first), ("b.jsonl", second)):
        (tmp_path / name).write_bytes(b"".join(json_body(request(spans(t, answer=DOC, docs=(DOC,)))) + b"\n"
                                               for t in ids))
    out = tmp_path / "w"
    with FaultServer() as server:
        judge = _judge(server.base_url, tmp_path)
        done = genevals("watch", "--out", out, "-m", "faithfulness", "--from", tmp_path / "a.jsonl", "--window", "2",
                        "--max-cost", "100", "--no-history", *judge)
        assert done.returncode == 0, done.stderr
        rows = [json.loads(r) for r in (out / "windows" / "0001" / "results.jsonl").read_text().splitlines()]
        used = [r["metrics"]["faithfulness"]["details"]["usage"] for r in rows]
        measured = sum(_cost(u["prompt_tokens"], u["completion_tokens"]) for u in used) / 2
        calls = sum(u["requests"] for u in used)
        cap = round(2.5 * measured, 6)  # two traces a window fit, not three
        done = genevals("watch", "--out", out, "-m", "faithfulness", "--from", tmp_path / "b.jsonl", "--window", "3",
                        "--max-cost", cap, "--no-history", *judge)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    log = {line["trace_id"]: line for line in decisions.read(out)}
    assert sorted(log[t]["decision"] for t in second) == ["over_budget", "scored", "scored"], log
    left_out = next(log[t]["reason"] for t in second if log[t]["decision"] == "over_budget")
    assert f"(measured: {calls} judge calls and ${2 * measured:.6f} over 2 traces of the scored windows)" in left_out
    assert _dollars(left_out, "window 2 has") == pytest.approx(2 * measured, abs=1e-5)
