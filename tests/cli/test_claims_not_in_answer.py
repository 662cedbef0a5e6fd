"""A claim whose numbers or names are not the answer's is invented, never counted against the answer (issue 52,
point 1): the demo's q03, where the judge turned "Adults pay 18 crowns" into claims about 20, 30 ... 120 crowns
and a correct answer scored 0.083. A real `python -m genevals run` against the fault server playing that judge,
in English (digits, number words, names), Chinese and Thai."""
import json
import subprocess
import sys

import pytest

from support.fault_server import FaultServer

FARE = "An adult return ticket costs 18 crowns. In summer the ferry makes four return sailings a day."
ANSWERS = {
    "q03": ("Adults pay 18 crowns for a return.",
            ["Adults pay 18 crowns for a return"] + [f"Adults pay {n} crowns for a return" for n in range(20, 130, 10)]),
    "q02": ("In summer the ferry makes four return sailings a day.",
            ["In summer the ferry makes four return sailings a day", "In summer the ferry makes three return sailings a day",
             "In summer the ferry makes 2 return sailings a day"]),
    "name": ("Marie Curie was born in Warsaw.", ["Marie Curie was born in Warsaw", "Pierre Curie was born in Warsaw"]),
    "zh": ("成人往返票价为18克朗。", ["成人往返票价为18克朗", "成人往返票价为２５克朗"]),
    "th": ("ตั๋วไปกลับราคา 18 โครน", ["ตั๋วไปกลับราคา 18 โครน", "ตั๋วไปกลับราคา ๒๐ โครน"]),
    "all": ("Adults pay 18 crowns.", ["Adults pay 30 crowns", "Adults pay sixty crowns"]),
}
CONTEXTS = {"q03": "Adults pay 18 crowns for a return.", "zh": "成人往返票价为18克朗。", "th": "ตั๋วไปกลับราคา 18 โครน", "name": "Marie Curie was born in Warsaw."}


def _claims(answer):
    claims = next(c for a, c in ANSWERS.values() if a == answer)
    return [{"claim": c, "source": answer} for c in claims]


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("not_in_answer")
    data = tmp / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "answer": a, "contexts": [CONTEXTS.get(i, FARE)]},
                                       ensure_ascii=False) + "\n" for i, (a, _) in ANSWERS.items()), encoding="utf-8")
    with FaultServer(claims=_claims) as server:
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp / "out"), "-q",
                               "--metrics", "faithfulness", "--judge-base-url", server.base_url, "--judge-model",
                               "judge", "--no-judge-cache"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = (tmp / "out" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: r["metrics"] for r in map(json.loads, lines)}


@pytest.mark.parametrize("sample, invented", [("q03", 11), ("q02", 2), ("name", 1), ("zh", 1), ("th", 1)])
def test_claims_with_numbers_or_names_not_in_the_answer_are_invented(rows, sample, invented):
    faith = rows[sample]["faithfulness"]
    assert faith["status"] == "ok" and faith["value"] == 1.0  # the answer's one claim, supported
    assert [c["text"] for c in faith["details"]["claims"]] == [ANSWERS[sample][1][0]]
    assert rows[sample]["invented_claims"]["value"] == invented
    kept = faith["details"]["invented_claims"]
    assert [c["text"] for c in kept] == ANSWERS[sample][1][1:]
    assert all(c["status"] == "invented" and not c["located"] and "not in the answer" in c["note"] for c in kept)


def test_an_answer_whose_claims_are_all_invented_is_not_scored(rows):
    faith = rows["all"]["faithfulness"]
    assert faith["status"] == "no_claims" and faith.get("value") is None
    assert "none could be located in the answer" in faith["reason"]
    assert rows["all"]["invented_claims"]["value"] == 2
