"""benchmarks/data/xquad_ro_subset.json is XQuAD's Romanian text as taken: SQuAD v1.1's structure, five whole
articles, and every answer's ``answer_start`` locating its text in its own paragraph (a character changed in a
paragraph before an answer moves it)."""
from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUBSET = REPO / "benchmarks" / "data" / "xquad_ro_subset.json"


def test_every_answer_start_locates_its_text_in_its_paragraph():
    data = json.loads(SUBSET.read_text(encoding="utf-8"))["data"]
    located = []
    for article in data:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                for answer in qa["answers"]:
                    start = answer["answer_start"]
                    assert para["context"][start:start + len(answer["text"])] == answer["text"], qa["id"]
                    located.append(qa["id"])
    assert len(located) == 153


def test_the_subset_is_five_whole_articles_in_squad_structure():
    squad = json.loads(SUBSET.read_text(encoding="utf-8"))
    assert list(squad) == ["data"]
    titles = [a["title"] for a in squad["data"]]
    assert titles == ["Super_Bowl_50", "Warsaw", "Normans", "Nikola_Tesla", "Computational_complexity_theory"]
    counts = [sum(len(p["qas"]) for p in a["paragraphs"]) for a in squad["data"]]
    assert counts == [74, 23, 8, 30, 18]
    assert all(len(a["paragraphs"]) == 5 for a in squad["data"])
    ids = [qa["id"] for a in squad["data"] for p in a["paragraphs"] for qa in p["qas"]]
    assert len(set(ids)) == len(ids)
    # a hand-read corner: the first question and its span, as the source file has them
    first = squad["data"][0]["paragraphs"][0]
    assert first["qas"][0]["question"] == "Câte puncte a cedat apărarea echipei Panthers?"
    assert first["context"][31:34] == "308"


def test_the_readme_names_source_commit_and_licence():
    text = (SUBSET.parent / "README.md").read_text(encoding="utf-8")
    for needed in ("google-deepmind/xquad", "60cac411649156efb6aab9dd4c9cde787a2c0345", "CC BY-SA 4.0"):
        assert needed in text
