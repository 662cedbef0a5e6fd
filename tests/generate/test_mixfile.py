"""``--types mix.toml``: read into a frozen MixFile; type targets apportioned by the largest remainder (checked
by hand); every bad file a MixFileError naming the file, the line and the key."""
from __future__ import annotations

import dataclasses

import pytest

from genevals.generate.mixfile import MixFile, MixFileError, read_mix

MIX = """\
lengths = ["short", "long"]

[types]
fact = 0.4
multi_hop = 0.2
unanswerable = 0.1
summary = 0.3

[personas]
"new employee" = 2
"domain expert" = 1

[styles]
"plain question" = 1.5
"""


def write(tmp_path, text: str | bytes, name: str = "mix.toml"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_a_mix_file_is_read_in_its_order_into_a_frozen_config(tmp_path):
    mix = read_mix(write(tmp_path, MIX))
    assert dict(mix.types) == {"fact": 0.4, "multi_hop": 0.2, "unanswerable": 0.1, "summary": 0.3}
    assert not mix.counts
    assert mix.personas == (("new employee", 2.0), ("domain expert", 1.0))
    assert mix.styles == (("plain question", 1.5),) and mix.lengths == (("short", 1.0), ("long", 1.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        mix.counts = True


@pytest.mark.parametrize("n, expected", [
    # n x shares = 4, 2, 1, 3: whole
    (10, {"fact": 4, "multi_hop": 2, "unanswerable": 1, "summary": 3}),
    # 2.8, 1.4, 0.7, 2.1 -> floors 2, 1, 0, 2 (5); the 2 left go to the largest remainders .8 (fact), .7
    (7, {"fact": 3, "multi_hop": 1, "unanswerable": 1, "summary": 2}),
    # 0.4, 0.2, 0.1, 0.3 -> floors 0; the 1 left to the largest remainder, .4 (fact)
    (1, {"fact": 1, "multi_hop": 0, "unanswerable": 0, "summary": 0}),
    # 1.2, 0.6, 0.3, 0.9 -> floors 1, 0, 0, 0; the 2 left to .9 (summary) and .6 (multi_hop)
    (3, {"fact": 1, "multi_hop": 1, "unanswerable": 0, "summary": 1}),
])
def test_shares_are_apportioned_by_the_largest_remainder(tmp_path, n, expected):
    targets = read_mix(write(tmp_path, MIX)).targets(n)
    assert targets == expected and sum(targets.values()) == n


def test_shares_are_exact_decimals_and_ties_go_to_the_type_written_first():
    # in floats 100 x 0.29 is 28.999...: floored to 28 it would take the 1 left from nobody's remainder
    assert MixFile({"fact": 0.29, "summary": 0.71}).targets(100) == {"fact": 29, "summary": 71}
    # 0.333 x 3 sums to 0.999 (allowed): normalised, each is 1/3; 10 -> 3.33 each, the 1 left to the first
    assert MixFile({"fact": 0.333, "summary": 0.333, "reasoning": 0.333}).targets(10) == {
        "fact": 4, "summary": 3, "reasoning": 3}
    assert MixFile({"summary": 0.5, "fact": 0.5}).targets(3) == {"summary": 2, "fact": 1}


def test_counts_are_kept_as_written_and_must_match_n(tmp_path):
    mix = read_mix(write(tmp_path, "[types]\nfact = 40\nmulti_hop = 10\nsummary = 0\n"))
    assert mix.counts and mix.targets(50) == {"fact": 40, "multi_hop": 10, "summary": 0}
    with pytest.raises(MixFileError, match="asks for 50 items in all; -n asks for 60"):
        mix.targets(60)


def test_every_table_is_optional(tmp_path):
    mix = read_mix(write(tmp_path, 'styles = ["terse"]\n'))
    assert dict(mix.types) == {} and mix.styles == (("terse", 1.0),) and mix.personas == ()


@pytest.mark.parametrize("text, message", [
    ("[types]\nfact = 0.5\nfakt = 0.5\n", "mix.toml, line 3: [types] fakt: no such item type (did you mean 'fact'?)"),
    ("[types]\nfact = 0.5\nsummary = 0.4\n", "mix.toml, line 1: [types]: the shares sum to 0.9, not 1"),
    ("[types]\nfact = 1\nsummary = 0.5\n", "line 1: [types]: counts (whole numbers) and shares (decimals) mixed"),
    ("[types]\nfact = 0\n", "line 1: [types]: every type is 0"),
    ("[types]\nfact = -0.5\nsummary = 1.5\n", "line 2: [types] fact: the weight must be a number of 0 or more, "
                                               "got -0.5"),
    ("[types]\nfact = true\n", "line 2: [types] fact: the weight must be a number of 0 or more, got True"),
    ("[types]\nfact = nan\n", "line 2: [types] fact: the weight must be a number of 0 or more, got nan"),
    ('[types]\nfact = "half"\n', "line 2: [types] fact: the weight must be"),
    ("[types]\n", "line 1: [types]: a table of type = share or count, with at least one type"),
    ('[personas]\n"new hire" = 0\n', 'line 2: [personas] new hire: the weight must be a number above 0, got 0'),
    ('personas = ["a", 3]\n', "line 1: [personas]: entry 2 is int; a list of names is text"),
    ('personas = ["a", "a"]\n', "line 1: [personas] a: given twice"),
    ('personas = [" "]\n', "[personas]  : a name must not be blank"),
    ("personas = []\n", "line 1: [personas]: empty"),
    ('personas = "novice"\n', "line 1: [personas]: a table of name = weight, or a list of names; got str"),
    ("[typs]\nfact = 1\n", "mix.toml, line 1: [typs]: no such table (did you mean 'types'?)"),
    ("[types]\nfact = \n", "mix.toml, line 2: not TOML: Invalid value"),
    ("[types]\nfact = 1\n[types]\n", "mix.toml, line 3: not TOML"),
])
def test_a_bad_mix_names_the_file_the_line_and_the_key(tmp_path, text, message):
    with pytest.raises(MixFileError) as failed:
        read_mix(write(tmp_path, text))
    assert message in str(failed.value) and str(tmp_path / "mix.toml") in str(failed.value)


def test_a_file_that_is_not_text_or_not_there_is_named(tmp_path):
    with pytest.raises(MixFileError, match=r"mix\.toml, line 2: not UTF-8 text"):
        read_mix(write(tmp_path, b"[types]\n\xff\xfe = 1\n"))
    with pytest.raises(MixFileError, match="absent.toml"):
        read_mix(tmp_path / "absent.toml")
    with pytest.raises(MixFileError, match="too large for a mix file"):
        read_mix(write(tmp_path, b"#" * (1 << 20 | 1), "huge.toml"))
    with pytest.raises(MixFileError, match=str(tmp_path)):
        read_mix(tmp_path)  # a folder
