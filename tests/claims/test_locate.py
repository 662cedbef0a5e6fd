"""Finding judge-quoted text in its source: exact, normalised, fuzzy; spans always index the original text."""
from __future__ import annotations

import pytest

from genevals.claims.locate import Match, grounded_fraction, locate, locate_parts, normalize, normalize_with_map

ANSWER = ("Marie Curie was born in Warsaw. She won the Nobel Prize in Physics in 1903. "
          "She discovered polonium. She lived to be 120 years old.")


def test_exact():
    # "Marie was " is 10 characters
    assert locate("born in Warsaw", "Marie was born in Warsaw.") == Match(10, 24, "exact", 100.0)
    # quotes and spaces around the excerpt are not part of it
    assert locate(' "born in Warsaw" ', "Marie was born in Warsaw.") == Match(10, 24, "exact", 100.0)
    assert locate("\u201cborn in Warsaw\u201d", "Marie was born in Warsaw.") == Match(10, 24, "exact", 100.0)


def test_normalize_keeps_a_map_to_the_original():
    text = "  She  was\nborn \u2013 in \u201cWarsaw\u201d"
    norm, index = normalize_with_map(text)
    assert norm == 'she was born - in "warsaw"'
    assert len(index) == len(norm)
    assert [text[i] for i in index[:3]] == ["S", "h", "e"] and index[0] == 2  # leading spaces dropped
    assert text[index[norm.index("-")]] == "\u2013" and text[index[-1]] == "\u201d"
    assert normalize("A\u00a0B\u2019s") == "a b's"


def test_normalised_match_spans_the_original_characters():
    # S0 h1 e2 _3 _4 w5 a6 s7 \n8 b9 ... "17 W18 ... w23 "24 .25
    text = "She  was\nborn in \u201cWarsaw\u201d."
    match = locate('was born in "warsaw".', text)
    assert match == Match(5, 25, "normalized", 100.0)
    assert text[5:25] == "was\nborn in \u201cWarsaw\u201d"
    # a final full stop the text does not have is ignored
    assert locate("born in Warsaw.", "born in Warsaw, Poland") == Match(0, 14, "normalized", 100.0)
    assert locate("SHE WON THE NOBEL PRIZE", ANSWER) == Match(32, 55, "normalized", 100.0)


def test_fuzzy_match_and_its_threshold():
    text = "Marie Curie lived to be 66 years old and worked in Paris."
    excerpt = "Marie Curie lived to be 66 yeras old"  # 36 characters, "yeras" for "years"
    # "yeras" vs "years": longest common subsequence 4 of 5, so the Indel distance is 2 over 36 + 36 characters
    expected = 100 * (1 - 2 / 72)
    match = locate(excerpt, text)
    assert (match.start, match.end, match.method) == (0, 36, "fuzzy")
    assert match.score == pytest.approx(expected)
    assert locate(excerpt, text, threshold=97.0) is not None
    assert locate(excerpt, text, threshold=97.5) is None
    assert locate(excerpt, text, fuzzy=False) is None


def test_fuzzy_spans_map_back_through_normalisation():
    text = "Intro.  Marie   Curie lived to be 66 years old."
    match = locate("Marie Curie lived to be 66 yeras old", text)
    assert match.method == "fuzzy" and text[match.start:match.end] == "Marie   Curie lived to be 66 years old"


@pytest.mark.parametrize("excerpt,text", [
    ("Warsw", "born in Warsaw"),  # under 12 characters: exact or normalised only
    ("", "text"),
    ('""', "text"),
    ("text", ""),
    ("a much longer excerpt than the text", "short text here"),
    ("The Eiffel Tower is in Rome", ANSWER),
])
def test_not_found(excerpt, text):
    assert locate(excerpt, text) is None


def test_locate_parts_joined_by_ellipses():
    assert locate_parts("born in Warsaw ... discovered polonium", ANSWER) == [
        Match(16, 30, "exact", 100.0), Match(80, 99, "exact", 100.0)]
    # the unicode ellipsis too, and parts are returned in text order
    assert [(m.start, m.end) for m in locate_parts("discovered polonium\u2026born in Warsaw", ANSWER)] == [
        (16, 30), (80, 99)]
    assert locate_parts("born in Warsaw", ANSWER) == [Match(16, 30, "exact", 100.0)]
    assert locate_parts("born in Warsaw ... invented the telephone", ANSWER) is None  # every part or nothing
    assert locate_parts(" ... ", ANSWER) is None


def test_grounded_fraction():
    # content words: marie, curie, discovered, radium; 3 of 4 are in the source
    assert grounded_fraction("Marie Curie discovered radium", "Marie Curie discovered polonium.") == 0.75
    # stopwords do not count ("they", "were", "there", "with"); "company" matches "companies" by its 5-letter stem
    assert grounded_fraction("They were there with the company", "Three companies") == 1.0
    # numbers count, however short: "aged" is found, "66" is not
    assert grounded_fraction("aged 66", "aged 67") == 0.5
    # any of several sources
    assert grounded_fraction("Warsaw polonium", "born in Warsaw", "discovered polonium") == 1.0
    # words compare without their apostrophe ending, on both sides: a verbatim claim is always grounded
    assert grounded_fraction("It's Bob's.", "It's Bob's.") == 1.0
    assert grounded_fraction("They don't sell bread", "They don't sell bread.") == 1.0
    assert grounded_fraction("Anna's cat sleeps", "Anna has a cat") == 0.5  # "anna" found, "sleeps" not
    # no content words at all: nothing to be missing
    assert grounded_fraction("It is so.", "unrelated") == 1.0
    assert grounded_fraction("Quantum chromodynamics governs gluon confinement.", ANSWER) == 0.0
