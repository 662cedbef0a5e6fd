"""Cases: issue52i (issue 52, point 10a): a row's ``metadata``, the field genevals declares for a row's own facts
and never reads. Whatever it holds (nothing genevals could score, a value shaped like a field it reads, a huge or
odd value, in every input format), the run scores the row as it would without it; a row whose JSON cannot be read
at all, or that holds text no file can (a lone surrogate), is refused at its line, as any row is."""
from __future__ import annotations

import json

from hostile.cases import GOOD_ROWS, OK, REFUSED, Case, jsonl, line, run_case

CLS = "issue52i"


def _rows(metadata) -> bytes:
    return jsonl(*(line({**row, "metadata": metadata}) for row in GOOD_ROWS))


def cases() -> list[Case]:
    deep = '{"answer": "Paris.", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}"
    csv = ("id,answer,references,metadata\n"
           'q1,Paris is the capital.,Paris,"{not json [at all"\n'
           'q2,Shakespeare.,Shakespeare,"[""a"", 1]"\n').encode()
    return [
        # shaped like the fields genevals reads: none of it is read
        run_case(f"{CLS}-fields-inside", CLS, OK, _rows({"answer": "", "contexts": 3, "references": None,
                                                         "id": "q1", "system": ["x"]})),
        run_case(f"{CLS}-not-an-object", CLS, OK, _rows([None, 1.5, "x", True])),
        run_case(f"{CLS}-null", CLS, OK, _rows(None)),
        run_case(f"{CLS}-huge-string", CLS, OK, _rows("m" * 2_000_000), limit=30.0),
        run_case(f"{CLS}-many-keys", CLS, OK, _rows({f"k{i}": i for i in range(50_000)}), limit=30.0),
        run_case(f"{CLS}-escapes", CLS, OK,
                 jsonl(*(line(row)[:-1] + ', "metadata": {"\\u001b[31m": "\\u202e", "\\u0000": "x"}}'
                         for row in GOOD_ROWS))),
        # text no file can hold (a lone surrogate) is refused in any field, named where it is, as in any field
        run_case(f"{CLS}-lone-surrogate", CLS, REFUSED,
                 jsonl(*(line(row)[:-1] + ', "metadata": {"note": "\\ud800"}}' for row in GOOD_ROWS)),
                 where=("in.jsonl:1", "metadata.note")),
        # nested past any parser's depth: the row cannot be read, so it is refused where it is
        run_case(f"{CLS}-nested-too-deep", CLS, REFUSED, jsonl(deep), where=("in.jsonl:1",)),
        # a CSV column of text that is no JSON: never parsed, never an error
        run_case(f"{CLS}-csv-not-json", CLS, OK, csv, name="in.csv"),
        # --strict: metadata is declared, so it is no unknown field
        run_case(f"{CLS}-strict", CLS, OK, _rows({"label": "faithful"}), extra=("--strict",)),
        # the flags that name fields: metadata cannot be ignored (it is read as declared) but may be mapped from
        run_case(f"{CLS}-ignored", CLS, REFUSED, _rows({"a": 1}), extra=("--ignore-fields", "metadata"),
                 where=("--ignore-fields", "metadata")),
    ]


if __name__ == "__main__":
    print(json.dumps([c.id for c in cases()], indent=1))
