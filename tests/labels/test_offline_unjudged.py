"""The offline grader leaves a pair it cannot read unjudged, with a status, never a grade 0: a topic or document
confidently in a language other than English (MiniLM knows English only) or an empty document (issue 40,
"no silent number"); real `genevals label` processes."""
import json

from support.label_data import genevals

TOPICS = "q1\twhere does the ferry leave from\nq2\tOù se trouve la bibliothèque municipale de la ville ?\n"
DOCS = [{"id": "d1", "text": "The ferry leaves from the north pier every morning at seven."},
        {"id": "d2", "text": "La bibliothèque municipale se trouve sur la place du marché, près de la mairie."},
        {"id": "d3", "text": "   "}]
RUN = "q1 Q0 d1 1 3.0 s\nq1 Q0 d2 2 2.0 s\nq1 Q0 d3 3 1.0 s\nq2 Q0 d2 1 3.0 s\nq2 Q0 d1 2 2.0 s\n"


def test_pairs_the_model_cannot_read_are_unjudged_with_a_status(tmp_path):
    (tmp_path / "topics.tsv").write_text(TOPICS, encoding="utf-8")
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    (tmp_path / "run.trec").write_text(RUN)
    out = tmp_path / "labels.qrels"
    done = genevals("label", "--qrels-out", out, tmp_path / "run.trec", "--topics", tmp_path / "topics.tsv",
                    "--docs", tmp_path / "docs.jsonl", "--offline", "--depth", "3")
    assert done.returncode == 0, done.stderr
    judged = {tuple(line.split()[::2][:2]) for line in out.read_text().splitlines() if not line.startswith("#")}
    assert judged == {("q1", "d1")}  # q2 is French; d2 is French; d3 is empty
    side = json.loads((tmp_path / "labels.qrels.json").read_text())
    assert (side["unsupported_language"], side["empty_document"], side["graded"]) == (3, 1, 1)
    assert "3 pair(s) left unjudged (unsupported_language" in done.stderr
    assert "1 pair(s) left unjudged (empty_document" in done.stderr
