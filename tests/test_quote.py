"""genevals.quote: a user's value as a message quotes it, bounded whatever the value."""
from genevals.quote import LIMIT, clip, quoted


def test_text_is_quoted_whole_when_short_and_cut_saying_its_length_when_long():
    assert quoted("answer") == "'answer'" and clip("answer") == "answer"
    long = "z" * 5000
    assert quoted(long) == "'" + "z" * LIMIT + "'... (5,000 characters)"
    assert clip(long, 10) == "zzzzzzzzzz... (5,000 characters)"


def test_control_characters_and_lone_surrogates_are_escaped_never_raw():
    assert quoted("\x1b[2Jgone") == "'\\x1b[2Jgone'"
    assert quoted("a\ud800") == "'a\\ud800'"
    assert quoted("it's") == '"it\'s"'


def test_values_are_bounded_however_large_or_shared():
    shared = ["x"] * 9
    for _ in range(10):  # 3.5 billion strings in full
        shared = [shared] * 9
    assert len(quoted(shared)) <= LIMIT + 3
    assert quoted(5) == "5" and quoted(None) == "None" and quoted({"a": 1}) == "{'a': 1}"
    assert len(quoted(10 ** 4000)) <= LIMIT + 3  # more digits than int() may print

    class Broken:
        def __repr__(self):
            raise RuntimeError("no")

    assert "Broken" in quoted(Broken())  # reprlib names an object whose repr fails
