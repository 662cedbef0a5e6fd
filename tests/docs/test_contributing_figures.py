"""CONTRIBUTING.md's figures about the test suite (issue 52, point 9): the hostile corpus's case count is the
corpus's own (within 5%; the test counts are tests/test_slow_marker.py's), and every time it gives for the suite
is a dated measurement on a named machine, the one its benchmarks/RESULTS.md section records."""
import re

from support.docs_blocks import REPO

CONTRIBUTING = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
RESULTS = (REPO / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
_TIME = re.compile(r"\b\d+ min \d+ s\b")


def _sentences(text: str) -> list[str]:
    """The prose's sentences, each on one line (a full stop followed by a space or a line's end ends one; code
    spans and quotations stay whole enough for what is looked for here)."""
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`(])", " ".join(text.split())) if s]


def test_the_corpus_case_counts_are_the_corpus():
    from hostile.cases import all_cases

    n = len(all_cases())
    [stated] = re.findall(r"`tests/hostile`, ([\d,]+) cases", CONTRIBUTING)
    stated = int(stated.replace(",", ""))
    assert abs(stated - n) <= 0.05 * n, f"CONTRIBUTING.md says {stated:,} hostile cases, the corpus has {n:,}"
    [floor] = re.findall(r"a corpus of over ([\d,]+) hostile inputs", CONTRIBUTING)
    assert int(floor.replace(",", "")) <= n


def test_every_suite_time_is_dated_on_a_named_machine_and_recorded():
    timed = [s for s in _sentences(CONTRIBUTING) if _TIME.search(s)]
    assert len(timed) >= 2, timed  # the whole suite, the quick loop
    for sentence in timed:
        date = re.search(r"measured on (\d{4}-\d{2}-\d{2})", sentence)
        assert date, f"CONTRIBUTING.md: a time without 'measured on YYYY-MM-DD': {sentence}"
        assert re.search(r"on \d+ (idle )?cores", sentence), f"CONTRIBUTING.md: a time without its machine: {sentence}"
        cited = re.search(r'benchmarks/RESULTS\.md, "([^"]+)"', sentence)
        assert cited, f"CONTRIBUTING.md: a time that cites no RESULTS.md section: {sentence}"
        heading = next((line for line in RESULTS.splitlines() if line.startswith("#") and cited[1] in line), None)
        assert heading is not None, f"benchmarks/RESULTS.md has no section {cited[1]!r}"
        assert date[1] in heading, f"RESULTS.md's {heading!r} is not dated {date[1]}"
        start = RESULTS.index(heading)
        following = re.search(r"^#{1,3} ", RESULTS[start + len(heading):], re.M)
        section = RESULTS[start:start + len(heading) + (following.start() if following else len(RESULTS))]
        for time in _TIME.findall(sentence):
            assert time in section, f"{time} (CONTRIBUTING.md) is not in RESULTS.md's {heading!r}"
