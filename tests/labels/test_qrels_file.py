"""The labelled qrels file: a ``# genevals label`` header genevals' qrels reader skips, the TREC lines, and the
sidecar; ``judged_by`` finds who judged it (for ``genevals run``'s summary)."""
import json

from genevals.input.trec import read_qrels
from genevals.labels import Labelled, judged_by, write_qrels
from genevals.labels.provenance import parse_header, run_meta


def _labelled():
    provenance = {"tool": "genevals label", "judge": "openai", "model": "gpt-x", "prompt_hash": "abc123",
                  "depth": 10, "runs": ["bm25", "dense"], "pairs": 3, "date": "2026-01-01T00:00:00Z",
                  "grades": {"0": 1, "1": 0, "2": 1, "3": 1}}
    return Labelled({"q1": {"d1": 3, "d2": 0}, "q2": {"d7": 2}}, provenance)


def test_the_qrels_file_starts_with_its_provenance_and_reads_back_without_it(tmp_path):
    path = tmp_path / "judged.qrels"
    write_qrels(path, _labelled())
    lines = path.read_text().splitlines()
    assert lines[1:] == ["q1 0 d1 3", "q1 0 d2 0", "q2 0 d7 2"]
    header = parse_header(lines[0])
    assert header == {"judge": "openai", "model": "gpt-x", "prompt_hash": "abc123", "depth": "10", "pairs": "3",
                      "date": "2026-01-01T00:00:00Z", "runs": "bm25,dense", "provenance": "judged.qrels.json"}
    assert json.loads((tmp_path / "judged.qrels.json").read_text())["grades"] == {"0": 1, "1": 0, "2": 1, "3": 1}
    qrels, errors = read_qrels(path)
    assert errors == [] and {t: dict(qrels[t]) for t in qrels} == {"q1": {"d1": 3.0, "d2": 0.0}, "q2": {"d7": 2.0}}
    assert not list(tmp_path.glob("*.part"))


def test_the_qrels_reader_skips_comment_lines_anywhere(tmp_path):
    """Regression: a '#' line was an error ("expected 4 columns")."""
    path = tmp_path / "q.txt"
    path.write_text("# genevals label judge=offline\nq1 0 d1 1\n  # a note\nq1 0 d2 0\n")
    qrels, errors = read_qrels(path)
    assert errors == [] and dict(qrels["q1"]) == {"d1": 1.0, "d2": 0.0}


def test_judged_by_reads_the_sidecar_else_the_header_and_nothing_for_human_qrels(tmp_path):
    path = tmp_path / "judged.qrels"
    write_qrels(path, _labelled())
    info = judged_by(path)
    assert info == {"judge": "openai", "model": "gpt-x", "prompt_hash": "abc123", "depth": 10,
                    "date": "2026-01-01T00:00:00Z", "provenance": f"{path}.json"}
    note = run_meta(path)["qrels_judged_by"]["note"]
    assert "openai judge gpt-x" in note and "prompt abc123" in note and "not by people" in note
    (tmp_path / "judged.qrels.json").unlink()  # the sidecar lost: the header still says who judged
    assert judged_by(path)["model"] == "gpt-x"
    human = tmp_path / "human.txt"
    human.write_text("q1 0 d1 1\n")
    assert judged_by(human) is None and run_meta(human) == {} and run_meta(None) == {}
