"""The one checker: a value as its declaration says, or a ValueError naming the setting, the value and the limit;
command-line text parsed by the declared type."""
import pytest

from genevals.settings import Setting, check, check_all, find, parse, table

STEM = Setting("use_stemmer", bool, False, "Porter stemming")
CUTS = Setting("cutoffs", list, (1, 3), "cutoffs", minimum=1, maximum=10_000)
LEVEL = Setting("level", str, "auto", "level", choices=("auto", "chunk", "doc"))
CLAIMS = Setting("max_claims", int, 12, "claims", minimum=1)
SHARE = Setting("threshold", float, None, "share", minimum=0, maximum=1)
CRITERIA = Setting("criteria", dict, None, "criteria")


@pytest.mark.parametrize("setting,value,message", [
    (STEM, "no", "use_stemmer: expected true or false, got 'no'"),
    (STEM, 0, "use_stemmer: expected true or false, got 0"),
    (CLAIMS, 0, "max_claims: expected a whole number 1 or more, got 0"),
    (CLAIMS, 2.5, "max_claims: expected a whole number, got 2.5"),
    (CLAIMS, True, "max_claims: expected a whole number, got True"),
    (CUTS, [10**30], "cutoffs: expected a whole number from 1 to 10,000, got a larger number"),
    (CUTS, "5", "cutoffs: expected a list of whole numbers, got str"),
    (CUTS, [], "cutoffs: expected a list of whole numbers, got an empty list"),
    (SHARE, 2, "threshold: expected a number in [0, 1], got 2"),
    (SHARE, float("nan"), "threshold: expected a finite number, got nan"),
    (LEVEL, "pag", "level: unknown value 'pag'"),
    (LEVEL, "chnk", "(did you mean 'chunk'?) (one of auto, chunk, doc)"),
    (CRITERIA, {"a": 1}, "criteria: expected a mapping of text to text"),
])
def test_a_bad_value_names_the_setting_the_value_and_the_limit(setting, value, message):
    with pytest.raises(ValueError) as err:
        check(setting, value)
    assert message in str(err.value)


def test_good_values_pass_and_none_is_unset_only_where_the_default_is():
    assert check(CUTS, [5, 1]) == (5, 1) and check(STEM, True) is True and check(SHARE, None) is None
    assert check(SHARE, 1) == 1.0 and isinstance(check(SHARE, 1), float)
    with pytest.raises(ValueError, match="max_claims: expected a whole number, got None"):
        check(CLAIMS, None)


@pytest.mark.parametrize("setting,text,value", [
    (STEM, "true", True), (STEM, "no", False), (CLAIMS, "8", 8), (SHARE, "0.5", 0.5), (SHARE, "none", None),
    (CUTS, "1, 5,20", (1, 5, 20)), (LEVEL, "doc", "doc"), (CRITERIA, "tone=polite,brevity=short",
                                                           {"tone": "polite", "brevity": "short"}),
])
def test_command_line_text_is_parsed_by_the_declared_type(setting, text, value):
    assert parse(setting, text) == value


@pytest.mark.parametrize("setting,text,message", [
    (STEM, "maybe", "use_stemmer: expected true or false, got 'maybe'"),
    (CLAIMS, "1.5", "max_claims: expected a whole number 1 or more, got '1.5'"),
    (CLAIMS, "0", "max_claims: expected a whole number 1 or more, got 0"),
    (SHARE, "half", "threshold: expected a number from 0 to 1, got 'half'"),
    (CUTS, "1,x", "cutoffs: expected a whole number from 1 to 10,000, got 'x'"),
    (CRITERIA, "tone", "criteria: expected NAME=TEXT pairs"),
    (Setting("grounding", object, None, "a mapping"), "{}", "grounding: cannot be set from the command line"),
])
def test_bad_command_line_text_names_the_setting(setting, text, message):
    with pytest.raises(ValueError) as err:
        parse(setting, text)
    assert message in str(err.value)


def test_unknown_keys_get_a_did_you_mean_and_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown setting 'use_stemer' \(did you mean 'use_stemmer'\?\) "
                                         r"\(settings: use_stemmer\)"):
        check_all([STEM], {"use_stemer": True})
    with pytest.raises(ValueError, match=r"rouge.stem: unknown setting \(did you mean 'use_stemmer'\?\)"):
        find([STEM, CUTS], "stem", "rouge")


def test_the_table_lists_name_type_default_limits_and_help():
    [line] = table([CUTS])
    assert line.split()[:2] == ["cutoffs", "list[int]"] and "default (1, 3)" in line and "[from 1 to 10,000]" in line


def test_a_declaration_of_an_unknown_type_is_refused():
    with pytest.raises(TypeError, match="type must be one of"):
        Setting("x", complex, 0, "")
