"""Which runs are "this input": latest prefers the digest and falls back to the file name; a trend takes both."""
from genevals.history.inputs import Entry, latest, name_of, related, same

RUNS = [Entry(1, "data/a.csv", "d1"), Entry(2, "b.csv", "d2"), Entry(3, "./a.csv", "d3"), Entry(4, "copy.csv", "d1"),
        Entry(5, "b.csv", "d2")]


def test_name_is_the_file_name_without_its_folder():
    assert name_of("data/a.csv") == name_of("./a.csv") == name_of("/x/y/a.csv") == "a.csv"
    assert name_of(None) == name_of("") == ""


def test_latest_prefers_the_digest_then_the_name():
    assert latest(RUNS, "d1", "a.csv").id == 4  # the same rows under another name beat the same name
    assert latest(RUNS, "d1", "a.csv", back=1).id == 1
    assert latest(RUNS, "new", "a.csv").id == 3  # an edited file: the latest of its name
    assert latest(RUNS, "new", "a.csv", back=2) is None
    assert latest(RUNS, "new", "z.csv") is None and latest(RUNS, None, "") is None
    assert [e.id for e in same(RUNS, "d2", "a.csv")] == [2, 5]


def test_a_trend_holds_the_runs_of_either_key():
    assert [e.id for e in related(RUNS, "d1", "a.csv")] == [1, 3, 4]
    assert [e.id for e in related(RUNS, "zz", "none.csv")] == [1, 2, 3, 4, 5]  # nothing known: every run
