"""``genevals.evaluate(ignore_fields=[...])``, as ``--ignore-fields`` and a run file's ``ignore-fields``: the named
columns are skipped without a warning; anything but a list of names is refused naming the argument."""
import warnings

import pytest

import genevals

ROWS = [{"answer": "Paris", "references": ["Paris"], "notes": "checked by hand"}]


def test_ignored_columns_raise_no_warning_and_others_still_do():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        genevals.evaluate(ROWS, ["exact_match"])
    assert any("notes" in str(w.message) for w in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = genevals.evaluate(ROWS, ["exact_match"], ignore_fields=["notes"])
    assert not [w for w in caught if "notes" in str(w.message)]
    assert results.summary()["systems"]["default"]["exact_match"]["mean"] == 1.0


@pytest.mark.parametrize("bad", ["notes", [3], b"notes"])
def test_anything_but_a_list_of_names_is_refused(bad):
    with pytest.raises(ValueError, match="^ignore_fields: expected a list of column names"):
        genevals.evaluate(ROWS, ["exact_match"], ignore_fields=bad)
