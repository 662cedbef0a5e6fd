"""Per-window caps on judge calls and cost (``--max-judge-calls``, ``--max-cost``) through real ``genevals watch
--from`` processes and the fault-injecting judge server: a window stops admitting at its cap, the decision log says
``over_budget`` with the cap, the estimate and its basis, and the next window admits again. The figures are checked
by hand: the dry-run basis against ``genevals run --dry-run``'s token estimates of the same traces priced with the
price table, the measured basis against the scored window's own usage priced the same way."""
import json
import re

import pytest
from support.cli import genevals
from support.fault_server import FaultServer
from support.watch_traces import json_body, request, spans, trace_id

from genevals.watch import decisions

pytest.importorskip("genevals.watch.sampling")
pytestmark = pytest.mark.slow  # real watch processes and a judge server

DOC = "Paris is the capital of France."
LONG = f"{DOC} It has nine million people. It lies on the Seine. Its mayor is elected."
PRICE = {"input_per_1k": 0.5, "output_per_1k": 2.0}  # dollars per 1000 tokens, large so the figures are readable


def _export(path, answers):
    with open(path, "wb") as out:
        for i, answer in enumerate(answers):
            out.write(json_body(request(spans(trace_id(i), answer=answer, docs=(DOC,)))) + b"\n")
    return path


def _judge(url, prices):
    return ("--judge-backend", "openai", "--judge-base-url", url, "--judge-model", "judge", "--no-judge-cache",
            "--judge-prices", prices)


def _cost(prompt, completion):
    """The price table's cost of these tokens, by hand."""
    return prompt / 1000 * PRICE["input_per_1k"] + completion / 1000 * PRICE["output_per_1k"]


def _dry_run_estimates(tmp_path, export, judge):
    """trace -> (requests, cost) of ``genevals run --dry-run`` on the same export, priced by hand."""
    done = genevals("run", export, "--from", "openinference", "--out", tmp_path / "dry", "-m", "faithfulness",
                    "--dry-run", "--no-history", *judge)
    assert done.returncode == 0, done.stderr
    out = {}
    for row in map(json.loads, (tmp_path / "dry" / "results.jsonl").read_text().splitlines()):
        usage = row["metrics"]["faithfulness"]["details"]["usage"]
        out[row["id"]] = (usage["estimated_requests"],
                          _cost(usage["estimated_prompt_tokens"], usage["estimated_completion_tokens"]))
    return out


def test_the_cost_cap_stops_a_window_and_the_next_admits_again_with_figures_checked_by_hand(tmp_path):
    answers = [DOC, LONG, DOC, DOC, LONG, DOC]
    export = _export(tmp_path / "export.jsonl", answers)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"judge": PRICE}))
    ids = [trace_id(i) for i in range(len(answers))]
    with FaultServer() as server:
        judge = _judge(server.base_url, prices)
        dry = _dry_run_estimates(tmp_path, export, judge)
        short, long_ = dry[ids[0]][1], dry[ids[1]][1]
        assert long_ > short
        cap = short * 2 + (long_ - short) / 2  # two short traces fit; a short and a long one do not
        done = genevals("watch", "--out", tmp_path / "w", "-m", "faithfulness", "--from", export, "--window", "2",
                        "--max-cost", f"{cap:.6f}", "--no-history", *judge)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    log = {line["trace_id"]: line for line in decisions.read(tmp_path / "w")}
    print(json.dumps(log, indent=1))
