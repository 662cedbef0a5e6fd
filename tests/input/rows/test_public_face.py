"""genevals.input.rows is a package of one idea per module; every name callers import from
``genevals.input.rows`` (the readers, the TREC and columnar paths, the trace importers) is still found there and
is the object its module defines, and RowValidator still carries its field readers."""
import importlib

import pytest

from genevals.input import readers, rows

from support.package_face import assert_reexported

WHERE = {
    "raw": ["ALIASES", "KNOWN_FIELDS", "CITATION_TEXT_KEYS", "CITATION_REF_KEYS", "MIN_GRADE", "MAX_GRADE", "InputError",
            "RawRow"],
    "values": ["_is_missing", "_as_list", "_check_unicode", "_check_names", "_shown_number", "_context_score",
               "_context_id", "_preview", "_number", "_MAX_ID"],
    "validator": ["RowValidator"],
}


@pytest.mark.parametrize("module,names", WHERE.items())
def test_every_name_is_the_object_its_module_defines(module, names):
    assert_reexported("genevals.input.rows", module, names)


def test_the_readers_re_export_the_same_objects():
    for name in ("ALIASES", "KNOWN_FIELDS", "MAX_GRADE", "MIN_GRADE", "InputError", "RawRow", "RowValidator"):
        assert getattr(readers, name) is getattr(rows, name), name


def test_the_validator_reads_each_field_with_the_values_module():
    values = importlib.import_module("genevals.input.rows.values")
    for field in ("contexts", "references", "language", "citations", "relevant"):
        assert getattr(rows.RowValidator, f"_{field}") is getattr(values, field), field
