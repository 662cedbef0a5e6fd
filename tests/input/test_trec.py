"""TREC qrels and run files (genevals.input.trec): trec_eval's order, exact round trips, located errors."""
from genevals.input.readers import InputError, iter_samples
from genevals.input.trec import TrecSource, read_qrels, read_run, trec_order, write_run


def test_a_run_is_ranked_as_trec_eval_ranks_it_not_by_its_rank_column(tmp_path):
    path = tmp_path / "run.trec"
    path.write_text("1 Q0 A 1 1.0 t\n1 Q0 C 2 1.0 t\n1 Q0 B 9 2.0 t\n1 Q0 B2 3 1.0 t\n")
    run = read_run(path)
    assert [doc for doc, _ in run.rankings["1"]] == ["B", "C", "B2", "A"]  # score desc, ties by id descending
    assert run.tags == ["t"] and run.errors == []


def test_a_written_run_reads_back_with_the_same_scores_and_order(tmp_path):
    ranking = trec_order([("d1", 1 / 61 + 1 / 62), ("d2", 1 / 62), ("d3", 1 / 61 + 1 / 63), ("d0", 1 / 62)])
    path = tmp_path / "out.trec"
    write_run(path, {"q": ranking}, "rrf")
    assert read_run(path).rankings == {"q": ranking}
    assert path.read_text().splitlines()[0] == f"q Q0 d1 1 {1 / 61 + 1 / 62!r} rrf"


def test_bad_lines_are_located_by_file_line_and_column(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 A 1\n1 0 B\n1 0 C high\n")
    found, errors = read_qrels(qrels)
    assert found == {"1": {"A": 1.0}}
    assert [str(e) for e in errors] == [
        f"{qrels}:2: expected 4 columns (TOPIC ITERATION DOCNO RELEVANCE), got 3",
        f"{qrels}:3: field 'RELEVANCE': expected a number, got 'high'"]
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 A 1 2.0 t\n1 Q0 A 2 1.0 t\n1 Q0 B 3 nan t\n")
    assert [str(e) for e in read_run(run).errors] == [
        f"{run}:2: field 'DOCNO': document 'A' is listed twice for topic '1'",
        f"{run}:3: field 'SCORE': expected a finite number, got 'nan'"]


def test_each_topic_of_each_run_is_a_sample_of_that_run(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 A 1\n1 0 B 0\n2 0 C 2\n")
    dense, sparse = tmp_path / "dense.trec", tmp_path / "sparse.run"
    dense.write_text("1 Q0 B 1 0.9 d\n1 Q0 A 2 0.5 d\n3 Q0 X 1 1.0 d\n")
    sparse.write_text("2 Q0 C 1 3.0 s\n")
    samples = list(iter_samples(TrecSource(qrels, (dense, sparse))))
    assert [(s.system, s.id, [c.id for c in s.contexts], s.relevant, s.origin) for s in samples] == [
        ("dense", "1", ["B", "A"], {"A": 1.0, "B": 0.0}, f"{dense}:1"),
        ("dense", "3", ["X"], None, f"{dense}:3"),  # not judged: unscored, as trec_eval leaves it out
        ("sparse", "2", ["C"], {"C": 2.0}, f"{sparse}:1")]


def test_two_runs_with_one_name_are_refused(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 A 1\n")
    (tmp_path / "a").mkdir()
    for path in (tmp_path / "bm25.trec", tmp_path / "a" / "bm25.trec"):
        path.write_text("1 Q0 A 1 1.0 t\n")
    try:
        list(iter_samples(TrecSource(qrels, (tmp_path / "bm25.trec", tmp_path / "a" / "bm25.trec"))))
    except InputError as exc:
        assert "system name 'bm25' (its file name) is also that of" in str(exc)
    else:
        raise AssertionError("two runs named bm25 were accepted")
