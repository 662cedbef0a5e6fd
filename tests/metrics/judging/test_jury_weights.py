"""A jury's weights are relative: weights (1, 2) and (1e-300, 2e-300) give the same verdicts and values, and
(1, 1) the same as two weights of 5e-324, the smallest positive float (issue 52, 16b). Before, the weighted sums
used the raw weights: 0.5 x 5e-324 rounds to 0, so a judge's 0.5 counted as 0 (the mean 0.75 became 0.5), and
the tie test's absolute 1e-12 called 2e-300 against 1e-300 a tie (unverifiable). Real processes: two real judge
servers on 127.0.0.1 that disagree on planted claims (the honest one says unverifiable, the lenient supported),
and two scripted judges for answer_relevance's weighted mean."""
import json
import subprocess
import sys

from support.fault_server import FaultServer

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
ANSWERS = ["Marie Curie was born in Warsaw. The PLANTED prize came in 1950.",
           "Marie Curie discovered polonium. She PLANTED roses in Lyon.",
           "Marie Curie was born in Warsaw. Marie Curie discovered polonium."]


def lenient(claim, label):
    return "supported" if "PLANTED" in claim else label


def _run(tmp_path, name, honest, dissent, weights):
    rows = tmp_path / "d.jsonl"
    rows.write_text("".join(json.dumps({"id": str(i), "question": "Who was Marie Curie?", "answer": a,
                                        "contexts": [CONTEXT]}) + "\n" for i, a in enumerate(ANSWERS)))
    jury = tmp_path / f"{name}.json"
    jury.write_text(json.dumps([{"name": "honest", "base_url": honest.base_url, "model": "judge",
                                 "weight": weights[0]},
                                {"name": "lenient", "base_url": dissent.base_url, "model": "judge",
                                 "weight": weights[1]}]))
    out = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(rows), "--out", str(out), "--metrics",
                           "faithfulness", "--jury", str(jury), "--no-history", "--no-judge-cache"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    text = (out / "results.jsonl").read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text
    found = {}
    for line in text.splitlines():
        row = json.loads(line)
        metric = row["metrics"]["faithfulness"]
        found[row["id"]] = (metric["value"], [(v["label"], v["agreement"]) for v in metric["details"]["verdicts"]])
    return found


def test_a_heavier_judge_wins_at_any_scale(tmp_path):
    with FaultServer() as honest, FaultServer(verdict=lenient) as dissent:
        plain = _run(tmp_path, "plain", honest, dissent, (1, 1))
        one_to_two = _run(tmp_path, "two", honest, dissent, (1, 2))
        small = _run(tmp_path, "small", honest, dissent, (1e-300, 2e-300))
    # the honest judge supports 1 of the 2 claims of answers 0 and 1, the lenient both
    assert plain["0"] == (0.5, [("supported", 1.0), ("unverifiable", 0.5)])  # a tie is unverifiable
    assert one_to_two["0"] == (1.0, [("supported", 1.0), ("supported", 2 / 3)])  # the lenient judge outweighs
    assert small == one_to_two


def _scripted(tmp_path, weights):
    """answer_relevance judged by two scripted judges: one finds half the question answered, the other all."""
    tmp_path.mkdir()
    rows = tmp_path / "r.jsonl"
    rows.write_text(json.dumps({"id": "s", "question": "When does the library open, and is there a fine?",
                                "answer": "It opens at 10 am on Saturdays."}) + "\n")
    jury = []
    for n, (answered, weight) in enumerate(zip((False, True), weights)):
        script = tmp_path / f"judge{n}.json"
        script.write_text(json.dumps({"answer_relevance": {
            "parts": [{"part": "opening", "answered": True}, {"part": "fine", "answered": answered}],
            "off_topic": [], "reason": "r"}}))
        jury.append({"name": f"j{n}", "backend": "scripted", "model": str(script), "weight": weight})
    (tmp_path / "jury.json").write_text(json.dumps(jury))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(rows), "--out", str(out), "--metrics",
                           "answer_relevance", "--jury", str(tmp_path / "jury.json"), "--no-history",
                           "--no-judge-cache"], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    row = json.loads((out / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return row["metrics"]["answer_relevance"]["value"]


def test_the_weighted_mean_is_the_same_for_the_smallest_weights(tmp_path):
    # judges' values 0.5 and 1.0: (1, 1) -> 0.75; 5e-324 each is the same weight (0.5 x 5e-324 rounded to 0 before)
    assert _scripted(tmp_path / "a", (1, 1)) == 0.75
    assert _scripted(tmp_path / "b", (5e-324, 5e-324)) == 0.75
    assert _scripted(tmp_path / "c", (1e6, 1e-300)) == 0.5
