"""``--judge-repeats N`` in real processes: requests counted at the fault-injecting server (one decomposition, N
verifications per answer, seed + r in repeat r), failed repeats kept as statuses and never counted as verdicts,
the cache answering every repeat that succeeded, the terminal's flip-rate lines, the dry run's estimate,
``validate --judge-repeats`` and a bad value named by its option."""
import json
import subprocess
import sys
from collections import Counter

from support.fault_server import FaultServer

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
ANSWERS = ["Marie Curie was born in Warsaw. Marie Curie discovered polonium.", "Marie Curie was born in Warsaw."]
CLAIM = {"claim": "Marie Curie was born in Warsaw.", "source": "Marie Curie was born in Warsaw."}


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300, check=False)


def data(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "answer": a, "contexts": [CONTEXT]}) + "\n"
                            for i, a in enumerate(ANSWERS)))
    return str(path)


def rows_of(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_repeats_counted_at_the_server_failed_repeats_kept_and_the_cache_rerun(tmp_path):
    source, out, cache = data(tmp_path), tmp_path / "out", tmp_path / "cache"
    args = ["run", source, "--out", str(out), "--metrics", "faithfulness", "--judge-model", "judge",
            "--judge-repeats", "3", "--judge-temperature", "0.8", "--judge-retries", "0", "--judge-cache", str(cache)]
    with FaultServer(fail_seeds={1}) as server:
        done = genevals(*args, "--judge-base-url", server.base_url)
        assert done.returncode == 0, done.stderr
        kinds = Counter((r["kind"], r["body"].get("seed")) for r in server.requests)
        # the preflight, one decompose per answer, one verify per answer and repeat (seed 1's answered 500)
        assert kinds == {("other", 0): 1, ("decompose", 0): 2, ("verify", 0): 2, ("verify", 1): 2, ("verify", 2): 2}
        for row in rows_of(out):
            f = row["metrics"]["faithfulness"]
            assert f["status"] == "ok" and f["value"] == 1.0
            assert f["details"]["repeats"]["statuses"] == ["ok", "judge_error", "ok"]
            assert f["details"]["repeats"]["values"] == [1.0, None, 1.0]
            for v in f["details"]["verdicts"]:  # the failed repeat is no vote: 2 of 2 agree
                assert v["repeats"] == ["supported", None, "supported"] and v["agreement"] == 1.0
        summary = json.loads((out / "summary.json").read_text())
        r = summary["meta"]["judge_repeats"]["default"]["faithfulness"]
        assert (r["flip_rate"], r["units"], r["failed_repeats"], r["repeats"]) == (0.0, 3, 2, 3)
        assert "default faithfulness: flip rate 0.000 (0/3 claims not unanimous)" in done.stdout
        assert "2 failed repeat(s)" in done.stdout

        server.reset_counts()
        again = genevals(*args, "--judge-base-url", server.base_url, "--out", str(tmp_path / "again"))
        assert again.returncode == 0, again.stderr
        # every repeat that answered comes from the cache; only the failed ones are asked again
        assert Counter((r["kind"], r["body"].get("seed")) for r in server.requests) == \
            {("other", 0): 1, ("verify", 1): 2}


def test_dry_run_estimates_the_repeats(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"decompose": {"claims": [CLAIM]}, "verify": {"verdicts": []}}))
    source = data(tmp_path)
    estimates = {}
    for n in ("1", "3"):
        out = tmp_path / f"dry{n}"
        done = genevals("run", source, "--out", str(out), "--metrics", "faithfulness", "--judge-backend", "scripted",
                        "--judge-model", str(script), "--judge-temperature", "0.5", "--judge-repeats", n, "--dry-run")
        assert done.returncode == 3 or "dry_run" in done.stdout, done.stderr
        estimates[n] = json.loads((out / "summary.json").read_text())["corpus"]["default"]["judge_estimated_requests"]
    assert estimates == {"1": 4, "3": 8}  # per answer: 1 decompose + 1 verify per repeat


def test_temperature_zero_with_a_scripted_judge_asks_once_and_says_why(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"decompose": {"claims": [CLAIM]},
                                  "verify": {"verdicts": [{"id": 1, "context": 1, "label": "supported"}]}}))
    done = genevals("run", data(tmp_path), "--out", str(tmp_path / "out"), "--metrics", "faithfulness",
                    "--judge-backend", "scripted", "--judge-model", str(script), "--judge-repeats", "3",
                    "--no-judge-cache")
    assert done.returncode == 0, done.stderr
    assert "--judge-repeats 3 asked once: at temperature 0 the scripted judge" in done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["corpus"]["default"]["judge_requests"] == 4 and "judge_repeats" not in summary["meta"]


def test_a_bad_repeat_count_is_named_by_its_option(tmp_path):
    done = genevals("run", data(tmp_path), "--out", str(tmp_path / "out"), "--metrics", "faithfulness",
                    "--judge-repeats", "0")
    assert done.returncode == 2 and "--judge-repeats: expected a whole number from 1 to 100, got 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_validate_reports_single_and_majority_agreement(tmp_path):
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps({"id": str(i), "context": CONTEXT, "response": ANSWERS[1],
                                            "hallucinated": i == 1}) + "\n" for i in range(4)))
    verdict = {"id": 1, "context": 1, "quote": "", "reason": "r"}
    script = tmp_path / "script.json"  # verify replies in turn: supported, contradicted, supported, ...
    script.write_text(json.dumps({"decompose": {"claims": [CLAIM]}, "verify": [
        {"verdicts": [{**verdict, "label": label}]} for label in ["supported", "contradicted", "supported"] * 4]}))
    done = genevals("validate", str(labelled), "--judge", "llm", "--judge-backend", "scripted", "--judge-model",
                    str(script), "--judge-repeats", "3", "--judge-temperature", "0.8", "--no-judge-cache",
                    "--out", str(tmp_path / "val"))
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "val" / "validation.json").read_text())["judge_repeats"]
    assert (report["repeats"], report["rows"], len(report["single"])) == (3, 4, 3)
    # 12 verify replies over 4 rows x 3 repeats: each row's repeats say 2 x supported, 1 x contradicted
    assert sum(s["confusion"]["fp"] + s["confusion"]["tp"] for s in report["single"]) == 4
    assert report["majority"]["confusion"] == {"tp": 0, "fp": 0, "fn": 1, "tn": 3}
    assert "one verdict" in done.stdout and "majority" in done.stdout
