"""genevals.output.terminal.visible: what the data holds is what the terminal shows."""
from genevals.output.table import compact, detailed
from genevals.output.terminal import visible


def test_controls_separators_and_bidi_are_escaped_and_the_rest_kept():
    assert visible("a\x1b[31mb\x00c\x07\x9b\u202ed\u2066\u2028é日本\\") == \
        "a\\x1b[31mb\\x00c\\x07\\x9b\\u202ed\\u2066\\u2028é日本\\"
    assert visible("line\nnext\ttab\r") == "line\\x0anext\\x09tab\\x0d"
    assert visible("bad\udcffname") == "bad\\udcffname"
    assert visible(12) == "12"


def test_the_run_table_shows_system_and_metric_names_escaped():
    m = {"mean": 0.5, "ci95": [0.1, 0.9], "scored": 1, "unscored": 1, "statuses": {"ok": 1, "no\x1bref": 1}}
    summary = {"n_samples": 2, "systems": {"s\x1b]0;x\x07": {"m\u202e": m}}}
    for text in (compact(summary), detailed(summary)):
        assert not any(ch in text for ch in "\x1b\x07\u202e")
        assert "s\\x1b]0;x\\x07" in text and "m\\u202e" in text and "no\\x1bref" in text
