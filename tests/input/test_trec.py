"""TREC qrels and run files (genevals.input.trec): trec_eval's order, exact round trips, located errors."""
import subprocess
import sys

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


def test_a_grade_out_of_range_is_named_at_its_qrels_line_not_at_the_run(tmp_path):
    """Issue 34, point 17: the grade was checked in the run's rows, so the message named the run's line."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.trec"
    qrels.write_text("q1 0 A 1\nq1 0 B 1000\nq1 0 C -1\n")
    run.write_text("q1 Q0 A 1 1.0 t\n")
    found, errors = read_qrels(qrels)
    assert [str(e) for e in errors] == [
        f"{qrels}:2: field 'RELEVANCE': relevance grade 1000 is outside the supported range [-100, 100]"]
    assert found == {"q1": {"A": 1.0, "C": -1.0}}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", "--qrels", str(qrels), "--run", str(run), "-o",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and f"{qrels}:2: field 'RELEVANCE'" in done.stderr, done.stderr
    assert f"{run}:1" not in done.stderr and "Traceback" not in done.stderr


def test_what_a_file_holds_comes_back_the_same_from_its_columns(tmp_path):
    """Columns, not objects per line: the same topics in order of first appearance, the same judgements (the
    last of a document judged twice, in its first place), the same rankings, first lines and tags."""
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"\xef\xbb\xbft2 0 x 1\r\nt1 0 y 2\nt2 0 \xc3\xa9 0.5\n\nt2\t0\tx\t3\n")
    assert list(read_qrels(qrels)[0].items()) == [("t2", {"x": 3.0, "é": 0.5}), ("t1", {"y": 2.0})]
    run = tmp_path / "r.trec"
    run.write_text("t2 Q0 b 1 1.5 s\nt1 Q0 a 1 -0.0 s\nt2 Q0 c 9 1.5 u\nt2 Q0 a 3 1e308 s\nt1 Q0 é 2 5e-324 s\n")
    found = read_run(run)
    assert list(found.rankings.items()) == [("t2", [("a", 1e308), ("c", 1.5), ("b", 1.5)]),
                                            ("t1", [("é", 5e-324), ("a", -0.0)])]
    assert found.first_line == {"t2": 1, "t1": 2} and found.tags == ["s", "u"] and found.errors == []


def test_a_line_past_a_mebibyte_is_refused_unread_and_errors_are_bounded(tmp_path):
    run = tmp_path / "r.trec"
    run.write_bytes(b"1 Q0 A 1 1.0 t\n" + b"x" * (3 << 20) + b"\n1 Q0 B 1 1.0 t\n" + b"bad\n" * 5000
                    + b"y" * (2 << 20))
    found = read_run(run)
    assert [doc for doc, _ in found.rankings["1"]] == ["B", "A"]
    messages = [str(e) for e in found.errors]
    assert messages[0] == f"{run}:2: the line is longer than 1048576 bytes"
    assert messages[1] == f"{run}:4: expected 6 columns (TOPIC Q0 DOCNO RANK SCORE TAG), got 1"
    assert len(messages) == 1001 and messages[-1] == f"{run}: ... and 4002 more bad lines (the first 1000 are listed)"
    words = tmp_path / "w.trec"
    words.write_bytes(b"1 Q0 A 1 1.0 t\n" + b"ab " * 100_000 + b"\n")
    assert [str(e) for e in read_run(words).errors] == [
        f"{words}:2: expected 6 columns (TOPIC Q0 DOCNO RANK SCORE TAG), got more than 6"]


MEMORY_PROBE = """
import sys
from genevals.input.trec import read_qrels, read_run

def status(name):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(name))

with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak so far (the imports') is forgotten: VmHWM is the reading's own from here
before = status("VmRSS")
qrels, _ = read_qrels(sys.argv[1])
run = read_run(sys.argv[2])
n = sum(len(ranking) for ranking in run.rankings.values()) + sum(len(qrels[t]) for t in qrels)
print(n, (status("VmHWM") - before) // 1024)
"""


def test_reading_a_large_run_holds_columns_not_an_object_per_line(tmp_path):
    """Issue 34, point 18: a 300,000-line run and 100,000 judgements grew the reader by 65 MB as dicts of
    Python objects; as columns, by a fraction of it (the file is 11 MB)."""
    run, qrels = tmp_path / "r.trec", tmp_path / "q.txt"
    with open(run, "w") as out:
        for topic in range(300):
            out.writelines(f"{topic} Q0 doc{(topic * 7 + d) % 5000:06d} {d} {d * 0.37 % 11:.6f} tag\n"
                           for d in range(1000))
    with open(qrels, "w") as out:
        out.writelines(f"{t} 0 doc{d:06d} {d % 3}\n" for t in range(300) for d in range(0, 5000, 15))
    done = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(qrels), str(run)], capture_output=True,
                          text=True, timeout=300, check=True)
    n, grown_mb = map(int, done.stdout.split())
    assert n == 300_000 + 300 * 334
    assert grown_mb < 45, f"reading grew memory by {grown_mb} MB"  # 65 MB as dicts of objects, 26 MB as columns
