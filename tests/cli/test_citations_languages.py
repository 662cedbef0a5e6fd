"""Citations of a Chinese answer from the command line (issue 35): 【n】, ［n］, 【n†source】 and full-width digits
name the same contexts as [n], come out of the sentences the judge sees, and score as a hand calculation says,
with the LLM citations metric against the fault server's honest scripted judge (support/citation_judge.py)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.citation_judge import citation_judge
from support.fault_server import FaultServer

CONTEXTS = [{"id": "c1", "text": "北京是中国的首都。长城在北京附近。"},
            {"id": "c2", "text": "上海是中国最大的城市。上海在长江口。"},
            {"id": "c3", "text": "故宫在北京。"}]
# S1 cites 1 (supported), S2 cites 2 (supported), S3 cites 1 but only 3 says it (miscited), S4 cites 1 and 3
# (supported by 1 alone: 1 relevant, 3 not needed), S5 cites 2 (supported)
ANSWER = "北京是中国的首都【1】。上海是中国最大的城市［２］。故宫在北京【1†source】。长城在北京附近［１，３］。上海在长江口[２]。"


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=600)


def test_wide_markers_map_to_the_right_contexts_in_a_cli_run(tmp_path):
    data = tmp_path / "zh.jsonl"
    data.write_text(json.dumps({"id": "zh", "answer": ANSWER, "contexts": CONTEXTS}, ensure_ascii=False) + "\n")
    with FaultServer(replies=citation_judge) as server:
        done = genevals("run", str(data), "-m", "citations", "-o", str(tmp_path / "out"), "-q",
                        "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    metrics = result["metrics"]
    sentences = metrics["citation_recall"]["details"]["sentences"]
    assert [s["text"] for s in sentences] == ["北京是中国的首都。", "上海是中国最大的城市。", "故宫在北京。", "长城在北京附近。",
                                              "上海在长江口。"]
    assert [s["cited"] for s in sentences] == [[0], [1], [0], [0, 2], [1]]
    assert [s["refs"] for s in sentences] == [["1"], ["2"], ["1"], ["1", "3"], ["2"]]
    # each span is the sentence with its marker in the answer as written
    assert [ANSWER[slice(*s["span"])] for s in sentences] == [
        "北京是中国的首都【1】。", "上海是中国最大的城市［２］。", "故宫在北京【1†source】。", "长城在北京附近［１，３］。", "上海在长江口[２]。"]
    assert [ANSWER[a:b] for s in sentences for a, b in s["markers"]] == ["【1】", "［２］", "【1†source】", "［１，３］", "[２]"]
    assert [s["verdict"] for s in sentences] == ["supported", "supported", "miscited", "supported", "supported"]
    # by hand (ALCE): recall 4 supported of 5 factual; precision: 6 citations, relevant: S1 1, S2 2, S4 1, S5 2
    # (S3's 1 does not support it; S4's 3 neither supports it alone nor is needed) = 4/6; every sentence cites:
    # coverage 1; miscited 1 of 5 cited
    assert metrics["citation_recall"]["value"] == pytest.approx(4 / 5)
    assert metrics["citation_precision"]["value"] == pytest.approx(4 / 6)
    assert metrics["citation_coverage"]["value"] == 1.0
    assert metrics["miscited"]["value"] == pytest.approx(1 / 5)
    assert metrics["citation_recall"]["details"]["language"] == "zh"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "sentences:rules2+th-" in json.dumps(summary["signatures"])


def test_the_same_answer_with_ascii_markers_scores_the_same(tmp_path):
    ascii_answer = "北京是中国的首都[1]。上海是中国最大的城市[2]。故宫在北京[1]。长城在北京附近[1, 3]。上海在长江口[2]。"
    data = tmp_path / "zh.jsonl"
    data.write_text("".join(json.dumps({"id": i, "answer": a, "contexts": CONTEXTS}, ensure_ascii=False) + "\n"
                            for i, a in (("wide", ANSWER), ("ascii", ascii_answer))))
    with FaultServer(replies=citation_judge) as server:
        done = genevals("run", str(data), "-m", "citations", "-o", str(tmp_path / "out"), "-q",
                        "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache")
    assert done.returncode == 0, done.stderr
    rows = {json.loads(x)["id"]: json.loads(x)["metrics"] for x in (tmp_path / "out" / "results.jsonl").read_text()
            .splitlines()}
    for name in ("citation_recall", "citation_precision", "citation_coverage", "miscited"):
        assert rows["wide"][name]["value"] == rows["ascii"][name]["value"], name
