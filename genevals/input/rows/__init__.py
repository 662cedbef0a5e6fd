"""One row of input: the fields genevals knows, how a raw row is checked and turned into a ``Sample``
(:class:`RowValidator`), and what is wrong with it (:class:`InputError`, naming file, line and field).

Where each idea lives (every name is also importable from here, where callers have always found it):

* :mod:`~genevals.input.rows.raw`: a raw row, the field names and their aliases, the located error;
* :mod:`~genevals.input.rows.values`: each field's value read and checked (contexts, references, language,
  citations, relevant);
* :mod:`~genevals.input.rows.validator`: :class:`RowValidator`, a raw row to a ``Sample``.

The file formats that produce raw rows are :mod:`genevals.input.readers`'s.
"""
from genevals.input.rows.raw import (ALIASES, CITATION_REF_KEYS, CITATION_TEXT_KEYS, KNOWN_FIELDS, MAX_GRADE,
                                     MIN_GRADE, InputError, RawRow)
# the checks' helpers too: code written against the one module imported some of them from here
from genevals.input.rows.values import (_ABSENT, _MAX_DOUBLE, _MAX_ID, _as_list, _check_names,  # noqa: F401
                                        _check_unicode, _context_id, _context_score, _is_missing, _number, _preview,
                                        _shown_number)
from genevals.input.rows.validator import RowValidator

__all__ = ["ALIASES", "CITATION_REF_KEYS", "CITATION_TEXT_KEYS", "KNOWN_FIELDS", "MAX_GRADE", "MIN_GRADE", "InputError",
           "RawRow", "RowValidator"]
