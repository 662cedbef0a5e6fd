"""Cases: trec (issue 34): ``genevals run --qrels Q --run R`` and ``genevals fuse`` with hostile qrels and run
files (every malformed line shape, grades and scores that are no finite number, huge ranks, duplicates, topics on
one side only, empty files, one huge line, encodings), every fuse option with values that cannot work, and
``--system-from`` of 30,000 parts. A refused bad line must be named by its file and line."""
from __future__ import annotations

import json
import os
from pathlib import Path

from hostile.cases import ANY, OK, REFUSED, Case

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = b"q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\n"
OTHER = b"q1 Q0 d2 1 5.0 s\nq1 Q0 d4 2 4.0 s\nq2 Q0 d3 1 1.0 s\n"
TREC = ("run", "--qrels", "{tmp}/qrels.txt", "--run", "{tmp}/run.trec", "--out", "{out}")
FUSE = ("fuse", "{tmp}/run.trec", "{tmp}/other.trec")
BIG = "9" * 5000
BAD = os.fsdecode(b"\xff\xfe")  # an argument that is not UTF-8: Python sees lone surrogates
ROOT = os.geteuid() == 0  # root writes through permission bits: an unwritable folder is not one
LIMIT = 10.0


def _middle(good: bytes, line: bytes) -> bytes:
    """``good``'s first line, then ``line`` (line 2), then the rest."""
    first, rest = good.split(b"\n", 1)
    return first + b"\n" + line + b"\n" + rest


def trec_case(slug: str, expect: str, qrels: bytes = QRELS, run: bytes = RUN, *extra: str, where=(),
              argv=TREC, limit: float = LIMIT) -> Case:
    files = (("qrels.txt", qrels), ("run.trec", run), ("other.trec", OTHER))
    return Case(id=f"trec-{slug}", cls="trec", expect=expect, where=tuple(where), files=files,
                argv=tuple(argv) + tuple(extra), limit=limit)


def qrels_lines() -> list[Case]:
    """Line 2 of the qrels: a refused line is named as qrels.txt:2."""
    at = ("qrels.txt:2",)
    shapes = {
        "3-columns": (b"q1 0 d5", REFUSED, at), "5-columns": (b"q1 0 d5 1 extra", REFUSED, at),
        "1-column": (b"q1", REFUSED, at), "7-columns": (b"q1 Q0 d5 1 1.0 t x", REFUSED, at),
        "run-line": (b"q1 Q0 d5 1 1.0 t", REFUSED, at),
        "grade-1000": (b"q1 0 d5 1000", REFUSED, at + ("RELEVANCE",)),
        "grade-minus-1000": (b"q1 0 d5 -1000", REFUSED, at + ("RELEVANCE",)),
        "grade-100.5": (b"q1 0 d5 100.5", REFUSED, at + ("RELEVANCE",)),
        "grade-1e300": (b"q1 0 d5 1e300", REFUSED, at + ("RELEVANCE",)),
        "grade-nan": (b"q1 0 d5 NaN", REFUSED, at + ("RELEVANCE",)),
        "grade-inf": (b"q1 0 d5 inf", REFUSED, at + ("RELEVANCE",)),
        "grade-minus-inf": (b"q1 0 d5 -Infinity", REFUSED, at + ("RELEVANCE",)),
        "grade-1e400": (b"q1 0 d5 1e400", REFUSED, at + ("RELEVANCE",)),
        "grade-5000-digits": (f"q1 0 d5 {BIG}".encode(), REFUSED, at),
        "grade-superscript": ("q1 0 d5 ²".encode(), REFUSED, at),
        "grade-hex": (b"q1 0 d5 0x1", REFUSED, at), "grade-word": (b"q1 0 d5 high", REFUSED, at),
        "grade-dash": (b"q1 0 d5 -", REFUSED, at), "grade-fraction": (b"q1 0 d5 1/2", REFUSED, at),
        "grade-minus-1": (b"q1 0 d5 -1", OK, ()), "grade-100": (b"q1 0 d5 100", OK, ()),
        "grade-half": (b"q1 0 d5 0.5", OK, ()), "grade-minus-zero": (b"q1 0 d5 -0", OK, ()),
        "grade-underscore": (b"q1 0 d5 1_0", ANY, at), "grade-arabic-digit": ("q1 0 d5 ١".encode(), ANY, at),
        "duplicate-judgement": (b"q1 0 d1 2", OK, ()), "topic-not-in-run": (b"q9 0 d9 1", OK, ()),
        "tabs": (b"q1\t0\td5\t0", OK, ()), "mixed-spaces": (b"  q1 \t 0   d5\t\t0  \t", OK, ()),
        "crlf-line": (b"q1 0 d5 0\r", OK, ()), "esc-in-doc": (b"q1 0 d\x1b[31m2 1", OK, ()),
        "nul-in-doc": (b"q1 0 d\x002 1", ANY, at), "bom-on-line-2": (b"\xef\xbb\xbfq1 0 d5 0", OK, ()),
        "not-utf8": (b"q1 0 d\xff2 1", REFUSED, at), "latin1": ("q1 0 dé 1".encode("latin-1"), REFUSED, at),
        "overlong-utf8": (b"q1 0 d\xc0\xaf 1", REFUSED, at),
        "lone-surrogate-utf8": (b"q1 0 d\xed\xa0\x80 1", REFUSED, at),
        "vertical-tab": (b"q1\x0b0\x0bd5\x0b0", OK, ()), "unicode-space": ("q1\u20030 d5 0".encode(), ANY, at),
        "huge-line": (b"q1 0 d5 " + b"x" * (2 << 20), REFUSED, at), "many-words": (b"ab " * 200_000, REFUSED, at),
        "long-doc-id": (b"q1 0 " + b"d" * 100_000 + b" 1", ANY, at),
    }
    return [trec_case(f"qrels-{slug}", expect, _middle(QRELS, line), where=where)
            for slug, (line, expect, where) in shapes.items()]


def run_lines() -> list[Case]:
    """Line 2 of the run: a refused line is named as run.trec:2."""
    at = ("run.trec:2",)
    shapes = {
        "5-columns": (b"q1 Q0 d5 2 1.0", REFUSED, at), "7-columns": (b"q1 Q0 d5 2 1.0 t x", REFUSED, at),
        "1-column": (b"q1", REFUSED, at), "qrels-line": (b"q1 0 d5 1", REFUSED, at),
        "score-nan": (b"q1 Q0 d5 2 nan t", REFUSED, at + ("SCORE",)),
        "score-inf": (b"q1 Q0 d5 2 inf t", REFUSED, at + ("SCORE",)),
        "score-minus-inf": (b"q1 Q0 d5 2 -inf t", REFUSED, at + ("SCORE",)),
        "score-1e400": (b"q1 Q0 d5 2 1e400 t", REFUSED, at + ("SCORE",)),
        "score-5000-digits": (f"q1 Q0 d5 2 {BIG} t".encode(), REFUSED, at + ("SCORE",)),
        "score-superscript": ("q1 Q0 d5 2 ² t".encode(), REFUSED, at + ("SCORE",)),
        "score-word": (b"q1 Q0 d5 2 high t", REFUSED, at + ("SCORE",)),
        "score-1e308": (b"q1 Q0 d5 2 1e308 t", OK, ()), "score-minus-1e308": (b"q1 Q0 d5 2 -1e308 t", OK, ()),
        "score-denormal": (b"q1 Q0 d5 2 5e-324 t", OK, ()), "score-minus-zero": (b"q1 Q0 d5 2 -0.0 t", OK, ()),
        "score-equal": (b"q1 Q0 d5 2 2.0 t", OK, ()),
        "rank-huge": (b"q1 Q0 d5 99999999999999999999999 1.0 t", OK, ()),
        "rank-negative": (b"q1 Q0 d5 -5 1.0 t", OK, ()),
        "rank-5000-digits": (f"q1 Q0 d5 {BIG} 1.0 t".encode(), OK, ()),
        "rank-word": (b"q1 Q0 d5 two 1.0 t", ANY, at),
        "duplicate-doc": (b"q1 Q0 d1 2 1.0 t", REFUSED, at + ("DOCNO", "d1")),
        "same-doc-other-topic": (b"q9 Q0 d1 1 1.0 t", OK, ()),
        "topic-not-judged": (b"q9 Q0 d9 1 1.0 t", OK, ()),
        "tabs": (b"q1\tQ0\td5\t2\t1.0\tt", OK, ()), "crlf-line": (b"q1 Q0 d5 2 1.0 t\r", OK, ()),
        "esc-in-ids": (b"q1 Q0 d\x1b]0;x\x07 2 1.0 t", OK, ()), "nul-in-doc": (b"q1 Q0 d\x002 2 1.0 t", ANY, at),
        "not-utf8": (b"q1 Q0 d\xff2 2 1.0 t", REFUSED, at),
        "cp1252": ("q1 Q0 d€ 2 1.0 t".encode("cp1252"), REFUSED, at),
        "huge-line": (b"q1 Q0 d5 2 1.0 " + b"t" * (2 << 20), REFUSED, at),
        "many-words": (b"ab " * 200_000, REFUSED, at),
        "long-doc-id": (b"q1 Q0 " + b"d" * 100_000 + b" 2 1.0 t", ANY, at),
        "form-feed": (b"q1\x0cQ0\x0cd5\x0c2\x0c1.0\x0ct", OK, ()),
    }
    return [trec_case(f"run-{slug}", expect, QRELS, _middle(RUN, line), where=where)
            for slug, (line, expect, where) in shapes.items()]


def whole_files() -> list[Case]:
    utf16 = QRELS.decode().encode("utf-16")
    garbage = bytes((i * 131 + 7) % 256 for i in range(20_000))
    many_bad = b"x\n" * 20_000
    big_run = b"".join(b"q%d Q0 d%d %d %d.5 t\n" % (t, d, d, 1000 - d) for t in range(50) for d in range(400))
    files = {
        "qrels-empty": (b"", RUN, REFUSED, ("qrels.txt",)), "run-empty": (QRELS, b"", REFUSED, ("run.trec",)),
        "qrels-blank": (b"\n \n\t\n\r\n", RUN, REFUSED, ("qrels.txt",)),
        "run-blank": (QRELS, b"\n\n  \n", REFUSED, ("run.trec",)),
        "qrels-bom": (b"\xef\xbb\xbf" + QRELS, RUN, OK, ()), "run-bom": (QRELS, b"\xef\xbb\xbf" + RUN, OK, ()),
        "qrels-crlf": (QRELS.replace(b"\n", b"\r\n"), RUN, OK, ()),
        "run-crlf": (QRELS, RUN.replace(b"\n", b"\r\n"), OK, ()),
        "qrels-cr-only": (QRELS.replace(b"\n", b"\r"), RUN, REFUSED, ("qrels.txt:1",)),
        "run-cr-only": (QRELS, RUN.replace(b"\n", b"\r"), REFUSED, ("run.trec:1",)),
        "qrels-no-final-newline": (QRELS.rstrip(), RUN, OK, ()), "run-no-final-newline": (QRELS, RUN.rstrip(), OK, ()),
        "qrels-utf16": (utf16, RUN, REFUSED, ("qrels.txt:1",)), "run-utf16": (QRELS, RUN.decode().encode("utf-16"),
                                                                           REFUSED, ("run.trec:1",)),
        "qrels-garbage": (garbage, RUN, REFUSED, ("qrels.txt",)),
        "run-garbage": (QRELS, garbage, REFUSED, ("run.trec",)),
        "qrels-nul-bytes": (b"\x00" * 4096, RUN, REFUSED, ("qrels.txt:1",)),
        "run-nul-bytes": (QRELS, b"\x00" * 4096, REFUSED, ("run.trec:1",)),
        "qrels-20000-bad-lines": (many_bad, RUN, REFUSED, ("qrels.txt:1", "more bad lines")),
        "run-20000-bad-lines": (QRELS, many_bad, REFUSED, ("run.trec:1", "more bad lines")),
        "qrels-one-huge-line": (b"q1 0 d1 " + b"9" * (3 << 20), RUN, REFUSED, ("qrels.txt:1",)),
        "run-one-huge-line-no-newline": (QRELS, b"x" * (3 << 20), REFUSED, ("run.trec:1",)),
        "no-topic-judged": (b"q7 0 d1 1\n", RUN, OK, ()), "no-topic-in-common-either-way": (b"q7 0 d1 1\n",
                                                                                           b"q8 Q0 d1 1 1 t\n", OK, ()),
        "run-20000-lines": (QRELS, big_run, OK, ()),
        "run-all-ties": (QRELS, b"".join(b"q1 Q0 d%d 1 0 t\n" % d for d in range(300)), OK, ()),
        "qrels-all-grades-zero": (b"q1 0 d1 0\nq2 0 d3 0\n", RUN, OK, ()),
        "qrels-negative-only": (b"q1 0 d1 -1\nq2 0 d3 -2\n", RUN, OK, ()),
    }
    return [trec_case(slug, expect, qrels, run, where=where) for slug, (qrels, run, expect, where) in files.items()]


def trec_options() -> list[Case]:
    cases = {
        "qrels-missing": (("run", "--qrels", "{tmp}/nosuch.txt", "--run", "{tmp}/run.trec", "--out", "{out}"),
                          ("nosuch.txt",)),
        "run-missing": (("run", "--qrels", "{tmp}/qrels.txt", "--run", "{tmp}/nosuch.trec", "--out", "{out}"),
                        ("nosuch.trec",)),
        "qrels-a-folder": (("run", "--qrels", "{tmp}", "--run", "{tmp}/run.trec", "--out", "{out}"), ("--qrels",)),
        "run-a-folder": (("run", "--qrels", "{tmp}/qrels.txt", "--run", "{tmp}", "--out", "{out}"), ("--run",)),
        "qrels-empty-path": (("run", "--qrels", "", "--run", "{tmp}/run.trec", "--out", "{out}"), ("--qrels",)),
        "run-without-qrels": (("run", "--run", "{tmp}/run.trec", "--out", "{out}"), ("--qrels",)),
        "qrels-without-run": (("run", "--qrels", "{tmp}/qrels.txt", "--out", "{out}"), ("--run",)),
        "qrels-and-input": (("run", "{tmp}/run.trec", "--qrels", "{tmp}/qrels.txt", "--run", "{tmp}/run.trec",
                             "--out", "{out}"), ("INPUT",)),
        "run-with-from": (("run", "--qrels", "{tmp}/qrels.txt", "--run", "{tmp}/run.trec", "--from", "langfuse",
                           "--out", "{out}"), ("--from",)),
        "run-with-map": (("run", "--qrels", "{tmp}/qrels.txt", "--run", "{tmp}/run.trec", "--map",
                          "answer=question", "--out", "{out}"), ("--map",)),
    }
    out = [trec_case(f"option-{slug}", REFUSED, argv=argv, where=where) for slug, (argv, where) in cases.items()]
    out.append(Case(id="trec-option-two-runs-one-name", cls="trec", expect=REFUSED, where=("run.trec",),
                    files=(("qrels.txt", QRELS), ("run.trec", RUN)), setup="trec_run_in_subfolder", limit=LIMIT,
                    argv=TREC + ("--run", "{tmp}/sub/run.trec")))
    out.append(trec_case("option-two-runs", OK, argv=TREC + ("--run", "{tmp}/other.trec")))
    out.append(trec_case("option-qrels-is-the-run", REFUSED, argv=("run", "--qrels", "{tmp}/run.trec", "--run",
                                                                   "{tmp}/run.trec", "--out", "{out}"),
                         where=("run.trec:1",)))
    odd = {"run-name-not-utf8": (os.fsdecode(b"r\xff.trec"), ANY, ("--run",)),
           "run-name-esc": ("e\x1b[31m.trec", OK, ()), "run-name-newline": ("new\nline.trec", OK, ()),
           "run-name-dash": ("-r.trec", OK, ()), "run-name-no-suffix": ("runfile", OK, ())}
    for slug, (name, expect, where) in odd.items():
        out.append(Case(id=f"trec-option-{slug}", cls="trec", expect=expect, where=where, limit=LIMIT,
                        files=(("qrels.txt", QRELS), (name, RUN)),
                        argv=("run", "--qrels", "{tmp}/qrels.txt", f"--run={{tmp}}/{name}", "--out", "{out}")))
    out.append(trec_case("option-same-run-twice", REFUSED, argv=TREC + ("--run", "{tmp}/run.trec"),
                         where=("run.trec",)))
    out.append(trec_case("option-metrics-lexical", ANY, argv=TREC + ("--metrics", "exact_match"),
                         where=("exact_match",)))
    out.append(trec_case("option-on-error-skip-bad-qrels", OK, _middle(QRELS, b"q1 0 d2 1000"), RUN,
                         argv=TREC + ("--on-error", "skip")))
    return out


def fuse_options() -> list[Case]:
    """``genevals fuse`` with its options at values that cannot work (and some that can)."""
    out_trec = ("-o", "{tmp}/fused.trec")
    values = {
        # --k
        "k-0": (("--k", "0"), OK, ()), "k-minus-1": (("--k", "-1"), REFUSED, ("--k",)),
        "k-1e308": (("--k", "1e308"), OK, ()), "k-nan": (("--k", "nan"), REFUSED, ("--k",)),
        "k-inf": (("--k", "inf"), REFUSED, ("--k",)), "k-1e400": (("--k", "1e400"), REFUSED, ("--k",)),
        "k-5000-digits": (("--k", BIG), REFUSED, ("--k",)), "k-word": (("--k", "sixty"), REFUSED, ("--k",)),
        "k-empty": (("--k", ""), REFUSED, ("--k",)), "k-superscript": (("--k", "²"), REFUSED, ("--k",)),
        "k-surrogate": (("--k", BAD), REFUSED, ("--k",)), "k-huge-integer": (("--k", "9" * 30), OK, ()),
        "k-denormal": (("--k", "5e-324"), OK, ()),
        # --weights (two runs)
        "weights-1e308-k-0": (("--weights", "1e308,1e308", "--k", "0"), REFUSED, ("--weights",)),
        "weights-max-k-0": (("--weights", "1.7976931348623157e308,1e292", "--k", "0"), REFUSED, ("--weights",)),
        "weights-1e308-and-1": (("--weights", "1e308,1", "--k", "0"), OK, ()),
        "weights-1e308-k-60": (("--weights", "1e308,1e308"), OK, ()),
        "weights-max-k-1e-300": (("--weights", "1e308,1e308", "--k", "1e-300"), REFUSED, ("--weights",)),
        "weights-minus-1": (("--weights", "-1,1"), REFUSED, ("--weights",)),
        "weights-nan": (("--weights", "nan,1"), REFUSED, ("--weights",)),
        "weights-inf": (("--weights", "inf,1"), REFUSED, ("--weights",)),
        "weights-5000-digits": (("--weights", f"{BIG},1"), REFUSED, ("--weights",)),
        "weights-one-for-two": (("--weights", "1"), REFUSED, ("--weights",)),
        "weights-three-for-two": (("--weights", "1,1,1"), REFUSED, ("--weights",)),
        "weights-empty": (("--weights", ""), REFUSED, ("--weights",)),
        "weights-commas": (("--weights", ",,"), REFUSED, ("--weights",)),
        "weights-all-zero": (("--weights", "0,0"), REFUSED, ("--weights",)),
        "weights-one-zero": (("--weights", "0,1"), OK, ()),
        "weights-denormal": (("--weights", "5e-324,5e-324"), OK, ()),
        "weights-spaces": (("--weights", " 1 , 2 "), OK, ()),
        "weights-surrogate": (("--weights", "1," + BAD), REFUSED, ("--weights",)),
        "weights-10000": (("--weights", ",".join(["1"] * 10_000)), REFUSED, ("--weights",)),
        # --depth
        "depth-0": (("--depth", "0"), REFUSED, ("--depth",)),
        "depth-minus-1": (("--depth", "-1"), REFUSED, ("--depth",)),
        "depth-1": (("--depth", "1"), OK, ()), "depth-huge": (("--depth", "9" * 30), OK, ()),
        "depth-5000-digits": (("--depth", BIG), REFUSED, ("--depth",)),
        "depth-float": (("--depth", "1.5"), REFUSED, ("--depth",)),
        # --tag
        "tag-empty": (("--tag", ""), REFUSED, ("--tag",)), "tag-space": (("--tag", "a b"), REFUSED, ("--tag",)),
        "tag-esc": (("--tag", "a\x1b[2Jb"), REFUSED, ("--tag",)),
        "tag-surrogate": (("--tag", BAD), REFUSED, ("--tag",)),
        "tag-newline": (("--tag", "a\nb"), REFUSED, ("--tag",)), "tag-long": (("--tag", "t" * 10_000), OK, ()),
        "tag-unicode": (("--tag", "rrf-日本"), OK, ()),
    }
    cases = [Case(id=f"trec-fuse-{slug}", cls="trec", expect=expect, where=where, limit=LIMIT,
                  files=(("run.trec", RUN), ("other.trec", OTHER)), argv=FUSE + out_trec + extra)
             for slug, (extra, expect, where) in values.items()]
    return cases


def fuse_outputs() -> list[Case]:
    files = (("run.trec", RUN), ("other.trec", OTHER), ("rows.jsonl", b'{"id": "q1", "answer": "", "contexts": '
                                                                     b'[{"id": "d1"}, {"id": "d9"}]}\n'))
    unwritable = REFUSED if not ROOT else ANY
    outs = {
        "o-a-folder": ("{tmp}", REFUSED, ("-o",), ""), "o-folder-named-trec": ("{tmp}/dir.trec", REFUSED, ("dir.trec",),
                                                                             "trec_folder_named_trec"),
        "o-wrong-suffix": ("{tmp}/fused.tsv", REFUSED, ("-o",), ""), "o-empty": ("", REFUSED, ("-o",), ""),
        # both are the fusion's own inputs: replacing one loses it (issue 52, point 15)
        "o-existing-file": ("{tmp}/other.trec", REFUSED, ("-o",), ""), "o-an-input": ("{tmp}/run.trec", REFUSED, ("-o",), ""),
        "o-jsonl": ("{tmp}/fused.jsonl", OK, (), ""), "o-nested-new": ("{tmp}/a/b/c/fused.trec", OK, (), ""),
        "o-under-a-file": ("{tmp}/run.trec/fused.trec", REFUSED, ("-o",), ""),
        "o-unwritable-folder": ("{tmp}/locked/fused.trec", unwritable, ("-o",), "trec_locked_folder"),
        "o-name-too-long": ("{tmp}/" + "f" * 300 + ".trec", REFUSED, ("-o",), ""),
        "o-name-not-utf8": ("{tmp}/" + os.fsdecode(b"f\xff.trec"), OK, (), ""),
        "o-in-proc": ("/proc/genevals-fused.trec", REFUSED, ("-o",), ""),
    }
    cases = [Case(id=f"trec-fuse-{slug}", cls="trec", expect=expect, where=where, limit=LIMIT, files=files,
                  argv=FUSE + ("-o", path), setup=setup) for slug, (path, expect, where, setup) in outs.items()]
    runs = {
        "run-empty": ((("e.trec", b""),), ("{tmp}/e.trec",), REFUSED, ("e.trec",)),
        "run-bad-line": ((("b.trec", _middle(RUN, b"q1 Q0 x")),), ("{tmp}/b.trec",), REFUSED, ("b.trec:2",)),
        "run-nan-score": ((("b.trec", _middle(RUN, b"q1 Q0 x 1 nan t")),), ("{tmp}/b.trec",), REFUSED, ("b.trec:2",)),
        "run-duplicate-doc": ((("b.trec", _middle(RUN, b"q1 Q0 d1 3 0.5 t")),), ("{tmp}/b.trec",), REFUSED,
                              ("b.trec:2", "d1")),
        "run-not-utf8": ((("b.trec", _middle(RUN, b"q1 Q0 \xff 3 0.5 t")),), ("{tmp}/b.trec",), REFUSED, ("b.trec:2",)),
        "run-huge-line": ((("b.trec", _middle(RUN, b"q " * (1 << 20))),), ("{tmp}/b.trec",), REFUSED, ("b.trec:2",)),
        "run-missing": ((), ("{tmp}/nosuch.trec",), REFUSED, ("nosuch.trec",)),
        "run-a-folder": ((), ("{tmp}",), REFUSED, ("{tmp}",)),
        "run-genevals-rows": ((), ("{tmp}/rows.jsonl",), OK, ()),
        "run-rows-two-systems": ((("two.jsonl", b'{"id": "q1", "system": "a", "answer": "", "contexts": ["x"]}\n'
                                                b'{"id": "q1", "system": "b", "answer": "", "contexts": ["y"]}\n'),),
                                 ("{tmp}/two.jsonl",), REFUSED, ("two.jsonl",)),
        "run-rows-no-ids": ((("t.jsonl", b'{"id": "q1", "answer": "", "contexts": ["plain text"]}\n'),),
                            ("{tmp}/t.jsonl",), REFUSED, ("t.jsonl:1",)),
        "thirty-runs": ((), ("{tmp}/run.trec",) * 30, OK, ()),
        "run-topics-disjoint": ((("d.trec", b"q7 Q0 d1 1 1 t\n"),), ("{tmp}/d.trec",), OK, ()),
        "run-20000-bad-lines": ((("b.trec", b"x\n" * 20_000),), ("{tmp}/b.trec",), REFUSED, ("b.trec:1", "more")),
        "trec-named-jsonl": ((("t.jsonl", RUN),), ("{tmp}/t.jsonl",), REFUSED, ("t.jsonl",)),
        "qrels-as-run": ((("q.trec", QRELS),), ("{tmp}/q.trec",), REFUSED, ("q.trec:1",)),
        "run-crlf-bom": ((("c.trec", b"\xef\xbb\xbf" + RUN.replace(b"\n", b"\r\n")),), ("{tmp}/c.trec",), OK, ()),
        "run-name-not-utf8": (((os.fsdecode(b"r\xff.trec"), RUN),), ("{tmp}/" + os.fsdecode(b"r\xff.trec"),), OK, ()),
    }
    for slug, (extra_files, paths, expect, where) in runs.items():
        cases.append(Case(id=f"trec-fuse-{slug}", cls="trec", expect=expect, where=where, limit=LIMIT,
                          files=files + extra_files, argv=("fuse", "{tmp}/run.trec", *paths, "-o", "{tmp}/f.trec")))
    cases.append(Case(id="trec-fuse-run-to-trec-jsonl-name", cls="trec", expect=OK, files=files, limit=LIMIT,
                      argv=FUSE + ("-o", "{tmp}/f.jsonl", "--to-trec")))
    return cases


def _langfuse() -> bytes:
    path = Path(__file__).resolve().parents[1] / "data" / "traces" / "langfuse_traces.json"
    return path.read_bytes()


def _deep_key_traces() -> bytes:
    """Langfuse traces whose metadata holds a key of 30,000 dotted parts: found, as one key."""
    traces = json.loads(_langfuse())
    for trace in traces:
        trace["metadata"] = {".".join(["a"] * 30_000): trace["metadata"].get("system", "x")}
    return json.dumps(traces).encode()


def system_from() -> list[Case]:
    long = ".".join(["a"] * 30_000)
    values = {
        "30000-parts": (long, _langfuse(), REFUSED, ("--system-from",)),
        "30000-parts-found": ("metadata." + long, _deep_key_traces(), OK, ()),
        "30000-dots": ("." * 30_000, _langfuse(), REFUSED, ("--system-from",)),
        "30000-parts-under-metadata": ("metadata." + long, _langfuse(), REFUSED, ("--system-from",)),
        "empty": ("", _langfuse(), REFUSED, ("--system-from",)), "spaces": ("   ", _langfuse(), REFUSED,
                                                                          ("--system-from",)),
        "esc": ("metadata.\x1b[2J", _langfuse(), REFUSED, ("--system-from",)),
        "surrogate": ("metadata." + BAD, _langfuse(), REFUSED, ("--system-from",)),
        "names-an-object": ("metadata", _langfuse(), REFUSED, ("--system-from",)),
        "good": ("metadata.system", _langfuse(), OK, ()),
    }
    cases = [Case(id=f"trec-system-from-{slug}", cls="trec", expect=expect, where=where, limit=LIMIT,
                  files=(("traces.json", content),),
                  argv=("run", "{in}", "--from", "langfuse", "--system-from", value, "--out", "{out}",
                        "--metrics", "exact_match,token_f1"))
             for slug, (value, content, expect, where) in values.items()]
    cases.append(Case(id="trec-system-from-without-from", cls="trec", expect=REFUSED, where=("--system-from",),
                      files=(("traces.json", _langfuse()),), limit=LIMIT,
                      argv=("run", "{in}", "--system-from", long, "--out", "{out}")))
    return cases


def cases() -> list[Case]:
    return [*qrels_lines(), *run_lines(), *whole_files(), *trec_options(), *fuse_options(), *fuse_outputs(),
            *system_from()]


def trec_run_in_subfolder(folder: Path, out: Path, inp: Path) -> None:
    (folder / "sub").mkdir()
    (folder / "sub" / "run.trec").write_bytes(RUN)


def trec_folder_named_trec(folder: Path, out: Path, inp: Path) -> None:
    (folder / "dir.trec").mkdir()


def trec_locked_folder(folder: Path, out: Path, inp: Path) -> None:
    (folder / "locked").mkdir()
    (folder / "locked").chmod(0o555)


SETUPS = {f.__name__: f for f in (trec_run_in_subfolder, trec_folder_named_trec, trec_locked_folder)}
