"""Cases: every field of a JSONL row with every JSON type, as raw JSON text (NaN and Infinity tokens, 1e400,
400- and 5,000-digit integers included).

For each field, ``TABLE`` says which values are accepted (``ok``) and which a careful user could expect either
way (``any``: read as missing, or refused); every other value is refused naming the row's line and the field.
"""
from __future__ import annotations

from hostile.cases import ANY, OK, REFUSED, Case, hostile_middle, run_case, with_raw

VALUES = {
    "null": "null", "true": "true", "false": "false", "zero": "0", "neg": "-1", "float": "1.5",
    "exp400": "1e400", "nan": "NaN", "inf": "Infinity", "neginf": "-Infinity", "int400": "1" + "0" * 400,
    "int5000": "9" * 5000, "emptylist": "[]", "list": "[1]", "emptyobj": "{}", "obj": '{"a": 1}', "empty": '""',
    "text": '"c1"',
}

#: a row with every field, the field at each path present
ROW = {"id": "q2", "system": "rag", "question": "Who wrote Hamlet?", "answer": "Shakespeare wrote Hamlet.",
       "contexts": [{"id": "c1", "doc_id": "d1", "text": "Hamlet is by William Shakespeare.", "score": 0.5}],
       "references": ["William Shakespeare"], "relevant": {"c1": 1}, "notes": "kept"}

INT_IDS = {"zero", "neg", "int400"}
MISSING = {"null", "empty"}
#: field -> (its path in ROW, the values accepted, the values either way); "relevant[0]" uses a list
TABLE = {
    "answer": (("answer",), {"empty", "text"}, set()),
    "question": (("question",), MISSING | {"text"}, {"nan"}),
    "system": (("system",), MISSING | {"text"}, {"nan"}),
    "id": (("id",), MISSING | INT_IDS | {"text"}, {"nan"}),
    "contexts": (("contexts",), MISSING | {"emptylist"}, {"nan"}),
    "contexts[0]": (("contexts", 0), {"text", "empty"}, set()),
    # a context may carry only its ids (retrieval reads them; a metric that needs text says so): null text is
    # missing text, and NaN (pandas' missing value) may be read as missing too
    "contexts[0].text": (("contexts", 0, "text"), {"text", "empty", "null"}, {"nan"}),
    "contexts[0].id": (("contexts", 0, "id"), {"null", "text"} | INT_IDS, {"empty", "nan"}),
    "contexts[0].doc_id": (("contexts", 0, "doc_id"), {"null", "text"} | INT_IDS, {"empty", "nan"}),
    # a context score is only shown; NaN and Infinity may be refused or written as null, never as a NaN token
    "contexts[0].score": (("contexts", 0, "score"), {"null", "zero", "neg", "float"},
                          {"exp400", "nan", "inf", "neginf", "int400"}),
    "references": (("references",), MISSING | {"text", "emptylist"}, {"nan"}),
    "references[0]": (("references", 0), {"text", "empty"}, set()),
    # a single id (a string or an integer) is a one-element list of relevant ids, as `--map relevant=URL` makes it
    "relevant": (("relevant",), {"null", "emptylist", "emptyobj", "obj", "list", "text"} | INT_IDS, {"nan", "empty"}),
    "relevant[0]": (("relevant", 0), {"text", "zero", "neg", "int400"}, {"empty"}),
    "relevant.c1": (("relevant", "c1"), {"zero", "neg", "float"}, {"null"}),
    "notes": (("notes",), set(VALUES) - {"int5000"}, set()),  # an unknown field: ignored, with a warning
}

#: grades at and past the supported range [-100, 100]
GRADES = {"100": OK, "-100": OK, "100.5": REFUSED, "-101": REFUSED, "1e-320": OK, "-0.0": OK, "0.5": OK,
          "99.999999999": OK, "1e308": REFUSED, "-1e400": REFUSED}


def cases() -> list[Case]:
    out: list[Case] = []
    for field, (path, accepted, either) in TABLE.items():
        for name, literal in VALUES.items():
            row = {**ROW, "relevant": ["c1"]} if field == "relevant[0]" else ROW
            text = with_raw(row, path, literal)
            if name == "int5000":  # past Python's int parsing limit: a malformed line, not a field
                expect, where = REFUSED, ("in.jsonl:2",)
            else:
                expect = OK if name in accepted else ANY if name in either else REFUSED
                where = ("in.jsonl:2", field)
            out.append(run_case(f"types-{field}-{name}", "types", expect, hostile_middle(text), where=where))
    for grade, expect in GRADES.items():
        text = with_raw(ROW, ("relevant", "c1"), grade)
        out.append(run_case(f"types-grade-{grade}", "types", expect, hostile_middle(text),
                            where=("in.jsonl:2", "relevant.c1")))
    # the whole row as another JSON type
    for name, literal in VALUES.items():
        if name in ("emptyobj", "obj"):
            continue
        out.append(run_case(f"types-row-{name}", "types", REFUSED, hostile_middle(literal), where=("in.jsonl:2",)))
    return out
