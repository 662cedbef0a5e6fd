"""Cases: encodings (invalid UTF-8, byte order marks, lone surrogates, NUL, line ends) and sizes (empty, huge,
deep, wide)."""
from __future__ import annotations

import json

from hostile.cases import ANY, GOOD_ROWS, OK, REFUSED, Case, good_jsonl, hostile_middle, jsonl, line, run_case, with_raw

#: byte sequences that are not UTF-8: overlong "/", a cut-short euro sign, a lone continuation byte, a UTF-16
#: surrogate encoded as UTF-8 (CESU-8), a code point past U+10FFFF, a 5-byte form, Latin-1 "é", a bare 0xFF
BAD_UTF8 = {"overlong": b"\xc0\xaf", "truncated": b"\xe2\x82", "continuation": b"\x80", "cesu": b"\xed\xa0\x80",
            "beyond": b"\xf4\x90\x80\x80", "fivebyte": b"\xf8\x88\x80\x80\x80", "latin1": b"\xe9", "ff": b"\xff"}

#: where in row 2 a bad byte or a lone surrogate goes: JSON path -> the field a located message names
FIELDS = {
    ("id",): "id", ("question",): "question", ("answer",): "answer", ("system",): "system",
    ("references",): "references", ("references", 0): "references[0]", ("contexts", 0): "contexts[0]",
    ("contexts", 1, "text"): "contexts[1].text", ("contexts", 1, "id"): "contexts[1].id",
    ("contexts", 1, "doc_id"): "contexts[1].doc_id", ("relevant", 0): "relevant[0]",
}

#: row 2 with every field present, lists where a field may be a list
ROW = {"id": "q2", "system": "rag", "question": "Who wrote Hamlet?", "answer": "Shakespeare wrote Hamlet.",
       "references": ["William Shakespeare"], "relevant": ["c3"],
       "contexts": ["Hamlet is a play.", {"id": "c3", "doc_id": "d3", "text": "Written by William Shakespeare."}]}


def _set(row: dict, path: tuple, value) -> dict:
    row = json.loads(json.dumps(row))
    target = row
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return row


def _rows_with_system(middle: str | bytes) -> bytes:
    """Rows 1 and 3 with the same system as ``ROW`` (a lone system name is its own comparison), ``middle`` as
    line 2."""
    first, last = (line({**r, "system": "rag"}).encode() for r in (GOOD_ROWS[0], GOOD_ROWS[2]))
    middle = middle.encode("utf-8") if isinstance(middle, str) else middle
    return first + b"\n" + middle + b"\n" + last + b"\n"


def encodings() -> list[Case]:
    out: list[Case] = []
    # invalid UTF-8 inside a string field, inside a field name, between tokens
    for name, bad in BAD_UTF8.items():
        text = line(_set(ROW, ("answer",), "Shakespeare XX wrote Hamlet.")).encode()
        out.append(run_case(f"encodings-badutf8-{name}-in-answer", "encodings", REFUSED,
                            _rows_with_system(text.replace(b"XX", bad)), where=("in.jsonl:2",)))
        key = line(_set(ROW, ("extraXX",), 1)).encode().replace(b"XX", bad)
        out.append(run_case(f"encodings-badutf8-{name}-in-fieldname", "encodings", REFUSED,
                            _rows_with_system(key), where=("in.jsonl:2",)))
    skip = _rows_with_system(line(ROW).encode().replace(b"Hamlet?", b"Ham\xfflet?"))
    out.append(run_case("encodings-badutf8-skipped", "encodings", OK, skip, extra=("--on-error", "skip")))
    # lone surrogates written as JSON escapes, in every field, in field names, in unknown fields
    for path, field in FIELDS.items():
        for kind, escape in (("high", "\\ud800"), ("low", "\\udfff")):
            value = _set(ROW, path, "x@@y")
            text = line(value).replace("@@", escape)
            out.append(run_case(f"encodings-surrogate-{kind}-{field}", "encodings", REFUSED, _rows_with_system(text),
                                where=("in.jsonl:2", field)))
    for kind, escape in (("high", "\\ud83d"), ("low", "\\ude00"), ("reversed", "\\ude00\\ud83d")):
        # an unknown field's name is printed in a warning: refused, like every text genevals writes
        named = line({**ROW, "extra@@": 1}).replace("@@", escape)
        out.append(run_case(f"encodings-surrogate-{kind}-in-unknown-fieldname", "encodings", REFUSED,
                            _rows_with_system(named), where=("in.jsonl:2",)))
        # what is ignored and never written may be refused or ignored
        valued = line({**ROW, "notes": "a@@b"}).replace("@@", escape)
        out.append(run_case(f"encodings-surrogate-{kind}-in-unknown-field", "encodings", ANY,
                            _rows_with_system(valued), where=("in.jsonl:2",)))
        ctx_key = line(_set(ROW, ("contexts", 1, "source@@"), "x")).replace("@@", escape)
        out.append(run_case(f"encodings-surrogate-{kind}-in-context-key", "encodings", ANY,
                            _rows_with_system(ctx_key), where=("in.jsonl:2",)))
        grade_key = line({**ROW, "relevant": {"c@@": 1}}).replace("@@", escape)
        out.append(run_case(f"encodings-surrogate-{kind}-in-grade-key", "encodings", REFUSED,
                            _rows_with_system(grade_key), where=("in.jsonl:2", "relevant")))
    out.append(run_case("encodings-surrogate-skipped", "encodings", OK,
                        _rows_with_system(line({**ROW, "references": "x@@"}).replace("@@", "\\ud800")),
                        extra=("--on-error", "skip")))
    out.append(run_case("encodings-surrogate-pair-is-text", "encodings", OK,
                        _rows_with_system(line({**ROW, "answer": "ok @@"}).replace("@@", "\\ud83d\\ude00"))))
    # byte order marks
    text = good_jsonl().decode()
    out.append(run_case("encodings-bom-utf8", "encodings", OK, b"\xef\xbb\xbf" + good_jsonl(),
                        note="a UTF-8 BOM is what Windows editors write; CSV already accepts it"))
    for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00",
               "utf-32-be": b"\x00\x00\xfe\xff"}[codec]
        out.append(run_case(f"encodings-bom-{codec}", "encodings", ANY, bom + text.encode(codec),
                            where=("in.jsonl:1",), note="decoded, or refused at line 1 (not UTF-8)"))
        out.append(run_case(f"encodings-nobom-{codec}", "encodings", REFUSED, text.encode(codec),
                            where=("in.jsonl:1",)))
    out.append(run_case("encodings-bom-midfile", "encodings", ANY,
                        jsonl(line(GOOD_ROWS[0]), "\ufeff" + line(GOOD_ROWS[1])), where=("in.jsonl:2",)))
    out.append(run_case("encodings-bom-csv-utf16", "encodings", REFUSED, b"\xff\xfe" + "id,answer\n1,a\n".encode(
        "utf-16-le"), name="in.csv", where=("in.csv:1",)))
    # NUL and control characters
    nul_escape = line({**GOOD_ROWS[1], "answer": "Shake@@speare"}).replace("@@", "\\u0000")
    out.append(run_case("encodings-nul-escaped-in-answer", "encodings", OK, hostile_middle(nul_escape)))
    raw_nul = line({**GOOD_ROWS[1], "answer": "Shake@@speare"}).encode().replace(b"@@", b"\x00")
    out.append(run_case("encodings-nul-raw-in-string", "encodings", REFUSED,
                        jsonl(line(GOOD_ROWS[0])) + raw_nul + b"\n", where=("in.jsonl:2",)))
    out.append(run_case("encodings-nul-between-tokens", "encodings", REFUSED,
                        jsonl(line(GOOD_ROWS[0])) + b"\x00" + line(GOOD_ROWS[1]).encode() + b"\n",
                        where=("in.jsonl:2",)))
    out.append(run_case("encodings-nul-only-file", "encodings", REFUSED, b"\x00" * 4096, where=("in.jsonl",)))
    out.append(run_case("encodings-nul-in-system-name", "encodings", OK,
                        hostile_middle(line({**GOOD_ROWS[1], "system": "a@@b"}).replace("@@", "\\u0000"))))
    out.append(run_case("encodings-nul-in-id", "encodings", OK,
                        hostile_middle(line({**GOOD_ROWS[1], "id": "q@@2"}).replace("@@", "\\u0000"))))
    out.append(run_case("encodings-nul-csv-cell", "encodings", ANY, b"id,answer,references\n1,Pa\x00ris,Paris\n",
                        name="in.csv", where=("in.csv:2",)))
    for name, char in (("escape-sequence", "\x1b[31mred\x1b[0m"), ("bell", "\x07"), ("backspace", "\x08\x08"),
                       ("del", "\x7f"), ("ls-u2028", "\u2028"), ("ps-u2029", "\u2029"), ("nel-u0085", "\u0085"),
                       ("rtl-override", "\u202e"), ("zero-width", "\u200b\u200d"), ("noncharacter", "\uffff"),
                       ("private-use", "\ue000"), ("astral", "\U0001f600\U00010348"),
                       ("combining", "e\u0301\u0301\u0301"), ("feff-in-text", "\ufeff")):
        row = {**GOOD_ROWS[1], "answer": f"Shake{char}speare wrote Hamlet.", "question": char, "system": f"s{char}"}
        out.append(run_case(f"encodings-text-{name}", "encodings", OK,
                            hostile_middle(json.dumps(row, ensure_ascii=False))))
        out.append(run_case(f"encodings-text-{name}-escaped", "encodings", OK,
                            hostile_middle(json.dumps(row, ensure_ascii=True))))
    # line ends
    rows = [line(r) for r in GOOD_ROWS]
    out.append(run_case("encodings-crlf", "encodings", OK, jsonl(*rows, end="\r\n")))
    out.append(run_case("encodings-cr-only", "encodings", ANY, jsonl(*rows, end="\r"), where=("in.jsonl:1",),
                        note="one line of three objects: read, or refused at line 1"))
    out.append(run_case("encodings-mixed-line-ends", "encodings", OK,
                        (rows[0] + "\r\n" + rows[1] + "\n" + rows[2] + "\r\n").encode()))
    out.append(run_case("encodings-no-final-newline", "encodings", OK, "\n".join(rows).encode()))
    out.append(run_case("encodings-blank-lines-between", "encodings", OK,
                        ("\n\n" + "\n \t \n".join(rows) + "\n\n\n").encode()))
    out.append(run_case("encodings-crlf-csv", "encodings", OK, b"id,answer,references\r\n1,Paris,Paris\r\n"
                                                                b"2,Rome,Rome\r\n", name="in.csv"))
    out.append(run_case("encodings-cr-only-csv", "encodings", ANY, b"id,answer,references\r1,Paris,Paris\r2,Rome,"
                                                                   b"Rome\r", name="in.csv", where=("in.csv:1",)))
    out.append(run_case("encodings-crlf-inside-quoted-csv-cell", "encodings", OK,
                        b'id,answer,references\r\n1,"Par\r\nis",Paris\r\n2,Rome,Rome\r\n', name="in.csv"))
    # not JSON whitespace: refused at line 2, or read
    out.append(run_case("encodings-vertical-tab-formfeed-lines", "encodings", ANY,
                        (rows[0] + "\n" + rows[1] + "\x0b\x0c\n" + rows[2] + "\n").encode(), where=("in.jsonl:2",)))
    return out


def _deep(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def sizes() -> list[Case]:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    big = " ".join(words[i % 8] for i in range(200_000))  # about 1.2 MB, 200k tokens
    out = [
        run_case("sizes-empty-file", "sizes", REFUSED, b"", where=("in.jsonl", "no rows")),
        run_case("sizes-only-newlines", "sizes", REFUSED, b"\n" * 1000, where=("in.jsonl", "no rows")),
        run_case("sizes-only-whitespace", "sizes", REFUSED, b" \t\r\n" * 1000, where=("in.jsonl", "no rows")),
        run_case("sizes-empty-csv", "sizes", REFUSED, b"", name="in.csv", where=("in.csv", "no rows")),
        run_case("sizes-one-row", "sizes", OK, jsonl(line(GOOD_ROWS[0]))),
        run_case("sizes-minimal-row", "sizes", OK, jsonl('{"answer": "x"}')),
        run_case("sizes-empty-object-rows", "sizes", REFUSED, jsonl("{}", "{}"), where=("in.jsonl:1", "answer")),
        run_case("sizes-huge-answer", "sizes", OK, hostile_middle(line({**GOOD_ROWS[1], "answer": big}))),
        run_case("sizes-huge-question", "sizes", OK, hostile_middle(line({**GOOD_ROWS[1], "question": big}))),
        run_case("sizes-huge-context", "sizes", OK, hostile_middle(line({**GOOD_ROWS[1], "contexts": [big]}))),
        run_case("sizes-huge-reference", "sizes", OK, hostile_middle(line({**GOOD_ROWS[1], "references": [big]}))),
        run_case("sizes-huge-answer-and-reference", "sizes", ANY,
                 hostile_middle(line({**GOOD_ROWS[1], "answer": big[:300_000], "references": [big[:300_000]]})),
                 where=("in.jsonl:2",), note="50k tokens each: ROUGE-L's LCS must neither hang nor be lost"),
        run_case("sizes-huge-id", "sizes", OK, hostile_middle(line({**GOOD_ROWS[1], "id": "i" * 1_000_000}))),
        run_case("sizes-huge-system-name", "sizes", OK,
                 hostile_middle(line({**GOOD_ROWS[1], "system": "s" * 100_000}))),
        run_case("sizes-huge-unknown-field", "sizes", OK, hostile_middle(line({**GOOD_ROWS[1], "blob": big}))),
        run_case("sizes-10k-contexts", "sizes", OK, hostile_middle(line({
            **GOOD_ROWS[1], "contexts": [{"id": f"c{i}", "text": f"passage {i}"} for i in range(10_000)],
            "relevant": [f"c{i}" for i in range(0, 10_000, 7)]}))),
        run_case("sizes-10k-references", "sizes", OK,
                 hostile_middle(line({**GOOD_ROWS[1], "references": [f"reference {i}" for i in range(10_000)]}))),
        run_case("sizes-10k-relevant-grades", "sizes", OK,
                 hostile_middle(line({**GOOD_ROWS[1], "relevant": {f"c{i}": i % 3 for i in range(10_000)}}))),
        run_case("sizes-1000-rows", "sizes", OK, jsonl(*(line({**GOOD_ROWS[i % 3], "id": f"r{i}"})
                                                          for i in range(1000)))),
        run_case("sizes-300-systems", "sizes", OK, jsonl(*(line({**GOOD_ROWS[i % 3], "system": f"sys{i}"})
                                                             for i in range(300)))),
        run_case("sizes-10k-unknown-fields", "sizes", OK,
                 hostile_middle(line({**GOOD_ROWS[1], **{f"extra_{i}": i for i in range(10_000)}}))),
        run_case("sizes-5000-csv-columns", "sizes", OK, (",".join(["id", "answer"] + [f"x{i}" for i in range(5000)])
                                                         + "\n" + ",".join(["1", "a"] + ["v"] * 5000) + "\n").encode(),
                 name="in.csv"),
        run_case("sizes-long-line-of-spaces", "sizes", OK,
                 jsonl(line(GOOD_ROWS[0]), " " * 5_000_000 + line(GOOD_ROWS[1]))),
        run_case("sizes-1m-blank-lines", "sizes", OK, b"\n" * 1_000_000 + good_jsonl()),
        run_case("sizes-huge-csv-cell", "sizes", OK, ("id,answer,references\n1," + big + ",alpha\n").encode(),
                 name="in.csv"),
        run_case("sizes-long-word", "sizes", OK,
                 hostile_middle(line({**GOOD_ROWS[1], "answer": "x" * 2_000_000, "references": ["x" * 1000]}))),
        run_case("sizes-many-tiny-contexts", "sizes", OK,
                 hostile_middle(line({**GOOD_ROWS[1], "contexts": [""] * 50_000}))),
    ]
    for depth in (100, 1_000, 10_000, 100_000):
        for path, field in ((("answer",), "answer"), (("contexts",), "contexts"), (("relevant",), "relevant"),
                            (("references",), "references"), (("extra",), None)):
            text = with_raw({**GOOD_ROWS[1], "extra": 0}, path, _deep(depth))
            expect = OK if field is None and depth <= 100 else REFUSED if field else ANY
            where = ("in.jsonl:2",) + ((field,) if field and depth <= 100 else ())
            out.append(run_case(f"sizes-nested-{depth}-deep-{field or 'unknown-field'}", "sizes", expect,
                                hostile_middle(text), where=where))
    out.append(run_case("sizes-nested-10000-deep-objects", "sizes", REFUSED,
                        hostile_middle('{"answer": "x", "contexts": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + "}"),
                        where=("in.jsonl:2",)))
    out.append(run_case("sizes-nested-unclosed-100k", "sizes", REFUSED, hostile_middle("[" * 100_000),
                        where=("in.jsonl:2",)))
    return out


def cases() -> list[Case]:
    return encodings() + sizes()
