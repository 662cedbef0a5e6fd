"""Cases: begin_tsv (issue 38): ``genevals validate`` on BEGIN-style TSV files (``model_name data_source knowledge
message response begin_label``, one labelled dialogue response per line; ../shared/datasets/conversations/): headers
missing or misspelling a column, rows with too few or too many fields, labels BEGIN does not have, empty knowledge
or response, bytes that are not UTF-8, fields past the reader's limit, folders of such files, and options that a
BEGIN file cannot take. A refusal names the file and line (and the field or option).

A row the reader accepts would be scored by the offline judge (seconds each): most cases that test the reader
accept it add ``--grounding-thresholds`` with a file that does not exist, refused once the rows are read (naming
the option, not the TSV file); a few run the judge for real on four rows."""
from __future__ import annotations

from hostile.cases import ANY, OK, REFUSED, Case

CLS = "begin_tsv"
HEADER = "model_name\tdata_source\tknowledge\tmessage\tresponse\tbegin_label"
ROWS = (
    "gpt2\twow\tParis is the capital and largest city of France.\tWhat is the capital of France?\t"
    "Paris is the capital of France.\tFully attributable",
    "t5\twow\tThe Nile is the longest river in Africa.\tTell me about rivers.\tThe Amazon is in Asia.\t"
    "Not fully attributable",
    "doha\tcmu\tHamlet is a tragedy by William Shakespeare.\tI love plays.\tThat sounds fun!\tGeneric",
    "ctrl\ttc\tSpiders have eight legs.\tHow many legs?\tSpiders have eight legs.\tFully attributable",
)
#: past the reader: refused afterwards, for a thresholds file that is not there (nothing is scored)
AFTER = ("--grounding-thresholds", "{tmp}/no-thresholds.json")
NAMED = ("--grounding-thresholds", "no-thresholds.json")


def tsv(*lines: str, header: str = HEADER, end: str = "\n") -> bytes:
    return "".join(line + end for line in (header, *lines)).encode("utf-8")


def _row(index: int, **fields: str) -> str:
    """ROWS[index] with fields replaced."""
    names = HEADER.split("\t")
    cells = dict(zip(names, ROWS[index].split("\t")))
    cells.update(fields)
    return "\t".join(cells[n] for n in names)


def _validate(slug: str, expect: str, content: bytes | None, where=(), extra=(), name: str = "in.tsv",
              target: str = "{in}", files=(), setup: str = "", limit: float = 15.0) -> Case:
    own = ((name, content),) if content is not None else ()
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=tuple(where), files=own + tuple(files),
                argv=("validate", target, "-o", "{tmp}/v", "-q", *extra), setup=setup, limit=limit,
                env=(("HF_HUB_OFFLINE", "1"),))


def _accepted(slug: str, content: bytes, **kw) -> Case:
    """The file's rows are read (the refusal is the setting's, after them)."""
    return _validate(f"accepted-{slug}", REFUSED, content, NAMED, AFTER, **kw)


def _rows_problem(slug: str, line: str, named: str) -> Case:
    """Line 3 of a four-row file is ``line``: refused naming in.tsv:3 and ``named``."""
    return _validate(f"row-{slug}", REFUSED, tsv(ROWS[0], line, ROWS[2], ROWS[3]), ("in.tsv:3", named))


def _headers() -> list[Case]:
    swap = HEADER.replace
    return [
        _validate("header-only", REFUSED, tsv(), ("in.tsv", "no rows")),
        _validate("header-blank-rows", REFUSED, tsv("", "\t\t", "   "), ("in.tsv", "no rows")),
        _validate("header-missing-knowledge", REFUSED, tsv(*("\t".join(c for i, c in enumerate(r.split("\t")) if i != 2)
                                                             for r in ROWS), header=swap("knowledge\t", "")),
                  ("in.tsv:1", "knowledge")),
        _validate("header-misspelt", REFUSED, tsv(*ROWS, header=swap("knowledge", "knowlege")),
                  ("in.tsv:1", "knowledge", "knowlege")),
        _validate("header-message-renamed", REFUSED, tsv(*ROWS, header=swap("message", "msg")), ("in.tsv:1", "message")),
        _validate("header-upper-label", REFUSED, tsv(*ROWS, header=swap("begin_label", "BEGIN_LABEL")),
                  ("in.tsv:1", "begin_label", "did you mean 'BEGIN_LABEL'")),
        _validate("header-no-label-column", REFUSED, tsv(*(r.rsplit("\t", 1)[0] for r in ROWS),
                                                         header=HEADER.rsplit("\t", 1)[0]), ("in.tsv:1", "begin_label")),
        _validate("header-commas", ANY, tsv(*(r.replace("\t", ",") for r in ROWS), header=HEADER.replace("\t", ",")),
                  ("in.tsv",)),
        _validate("header-trailing-tab", REFUSED, tsv(*ROWS, header=HEADER + "\t"), ("in.tsv:2", "fields")),
        _accepted("header-reordered", tsv(*("\t".join(reversed(r.split("\t"))) for r in ROWS),
                                          header="\t".join(reversed(HEADER.split("\t"))))),
        _accepted("header-extra-column", tsv(*(r + "\tx" for r in ROWS), header=HEADER + "\tnotes")),
        _accepted("bom", b"\xef\xbb\xbf" + tsv(*ROWS)),
        _accepted("crlf", tsv(*ROWS, end="\r\n")),
        _accepted("cr-only", tsv(*ROWS, end="\r")),
        _validate("header-past-4096", REFUSED, tsv(*ROWS, header="x" * 5000 + "\t" + HEADER), ("in.tsv",)),
    ]


def _rows() -> list[Case]:
    found = [
        _rows_problem("too-few-fields", "gpt2\twow\tParis.\tHi", "fields"),
        _rows_problem("one-field", "gpt2", "fields"),
        _rows_problem("too-many-fields", ROWS[1] + "\textra\tmore", "fields"),
        _rows_problem("label-unknown", _row(1, begin_label="Partially attributable"), "begin_label"),
        _rows_problem("label-lowercase", _row(1, begin_label="fully attributable"), "Fully attributable"),
        _rows_problem("label-empty", _row(1, begin_label=""), "begin_label"),
        _rows_problem("label-number", _row(1, begin_label="1"), "begin_label"),
        _rows_problem("label-yes", _row(1, begin_label="yes"), "begin_label"),
        _rows_problem("knowledge-empty", _row(1, knowledge=""), "knowledge"),
        _rows_problem("knowledge-spaces", _row(1, knowledge="   "), "knowledge"),
        _rows_problem("response-empty", _row(1, response=""), "response"),
        _validate("row-huge-field", REFUSED, tsv(ROWS[0], _row(1, knowledge="x" * 2_000_000)),
                  ("in.tsv:3", "field limit")),
        _validate("row-not-utf8", REFUSED, tsv(ROWS[0]) + _row(1).encode().replace(b"Nile", b"N\xffle") + b"\n",
                  ("in.tsv:3", "UTF-8")),
        _validate("row-latin1", REFUSED, tsv(ROWS[0]) + _row(1, response="Caf\u00e9.").encode("latin-1") + b"\n",
                  ("in.tsv:3", "UTF-8")),
        _validate("binary-after-header", REFUSED, tsv() + bytes(range(256)) * 8, ("in.tsv",)),
        _validate("many-bad-rows", REFUSED, tsv(*(["x\ty"] * 300)), ("300 bad row(s)", "in.tsv:2", "more")),
        _accepted("label-padded", tsv(_row(0, begin_label="  Fully attributable  "), *ROWS[1:])),
        _accepted("message-empty", tsv(_row(0, message=""), *ROWS[1:])),
        _accepted("model-empty", tsv(_row(0, model_name=""), *ROWS[1:])),
        _accepted("source-empty", tsv(_row(0, data_source=""), *ROWS[1:])),
        _accepted("quotes-unbalanced", tsv(_row(0, response='that\'s "great'), *ROWS[1:])),
        _accepted("nul-in-field", tsv(_row(0, response="Par\x00is."), *ROWS[1:])),
        _accepted("control-chars", tsv(_row(0, response="Paris\x1b[2J."), *ROWS[1:])),
        _accepted("rtl-and-zero-width", tsv(_row(0, response="\u202eParis\u200b."), *ROWS[1:])),
        _accepted("long-field", tsv(_row(0, knowledge="word " * 20_000), *ROWS[1:])),
        _accepted("blank-lines-between", tsv(ROWS[0], "", ROWS[1], "\t\t\t", ROWS[2])),
        _accepted("only-generic", tsv(ROWS[2], _row(2, model_name="t5"))),
        _accepted("one-row", tsv(ROWS[0])),
        _accepted("thousand-rows", tsv(*(ROWS * 250))),
        _accepted("duplicate-rows", tsv(ROWS[0], ROWS[0], ROWS[0])),
    ]
    return found


def _paths_and_options() -> list[Case]:
    good = tsv(*ROWS)
    other = ("other.tsv", tsv(ROWS[1], ROWS[3]))
    return [
        _validate("folder-two-files", REFUSED, good, NAMED, AFTER, name="d_a.tsv", target="{tmp}/d",
                  files=(("d_" + other[0], other[1]),), setup="begin_folder"),
        _validate("folder-one-bad", REFUSED, good, ("b.tsv:3", "begin_label"), name="d_a.tsv", target="{tmp}/d",
                  files=(("d_b.tsv", tsv(ROWS[0], _row(1, begin_label="maybe"))),), setup="begin_folder"),
        _validate("folder-one-header-only", REFUSED, good, ("b.tsv", "no rows"), name="d_a.tsv", target="{tmp}/d",
                  files=(("d_b.tsv", tsv()),), setup="begin_folder"),
        _validate("folder-no-tsv", REFUSED, None, ("empty",), target="{tmp}/empty", setup="empty_folder"),
        _validate("folder-other-tsv", ANY, good, ("d",), AFTER, name="d_a.tsv", target="{tmp}/d",
                  files=(("d_notes.tsv", b"a\tb\n1\t2\n"),), setup="begin_folder"),
        _validate("fifo", REFUSED, None, ("fifo.tsv",), target="{tmp}/fifo.tsv", setup="begin_fifo"),
        _validate("dangling-link", REFUSED, None, ("dangling.jsonl",), target="{tmp}/dangling.jsonl",
                  setup="dangling_symlink"),
        _validate("missing", REFUSED, None, ("nowhere.tsv",), target="{tmp}/nowhere.tsv"),
        _validate("judge-citations", REFUSED, good, ("--judge citations",), ("--judge", "citations")),
        _validate("judge-citations-local", REFUSED, good, ("--judge citations-local",),
                  ("--judge", "citations-local")),
        _validate("jury", REFUSED, good, ("--jury",), ("--jury", "{tmp}/jury.json")),
        _validate("task-type", REFUSED, good, ("--task-type",), ("--task-type", "QA")),
        _validate("rule-bogus", REFUSED, good, ("--rule",), ("--rule", "sometimes")),
        _validate("rule-threshold-word", REFUSED, good, ("threshold",), ("--rule", "threshold:high")),
        _validate("limit-zero", REFUSED, good, ("--limit",), ("--limit", "0")),
        _validate("limit-negative", REFUSED, good, ("--limit",), ("--limit", "-3")),
        _validate("limit-word", REFUSED, good, ("--limit",), ("--limit", "all")),
        _validate("limit-one", REFUSED, good, NAMED, ("--limit", "1", *AFTER)),
        _validate("limit-huge", REFUSED, good, NAMED, ("--limit", "9" * 30, *AFTER)),
        # the offline judge for real, on four rows
        _validate("judged", OK, good, limit=40.0),
        _validate("judged-bom-crlf", OK, b"\xef\xbb\xbf" + tsv(*ROWS, end="\r\n"), limit=40.0),
        _validate("judged-limit", OK, tsv(*(ROWS * 5)), extra=("--limit", "4"), limit=40.0),
    ]


def begin_folder(folder, out, inp) -> None:
    """The case's files named ``d_NAME`` moved to the folder ``d`` as ``NAME`` (the runner writes files flat)."""
    (folder / "d").mkdir()
    for path in folder.glob("d_*"):
        path.rename(folder / "d" / path.name[2:])


def begin_fifo(folder, out, inp) -> None:
    import os

    os.mkfifo(folder / "fifo.tsv")


SETUPS = {"begin_folder": begin_folder, "begin_fifo": begin_fifo}


def cases() -> list[Case]:
    return [*_headers(), *_rows(), *_paths_and_options()]
