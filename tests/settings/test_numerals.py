"""Numbers in options and settings are plain ASCII decimals (genevals.settings.numerals): ``1_000`` and
Arabic-Indic or full-width digits, which Python's int()/float() read, are refused (exit 2) naming the option, the
value and what to write, on every path that turns an option's or a setting's text into a number; every ASCII
spelling taken before (``-1``, ``+2``, ``.5``, ``0.50``, ``1e-3``, padding) still is. Real processes."""
import json
import subprocess
import sys

import pytest

from genevals.settings.numerals import NotANumeral, number_text, whole_text

ROW = {"id": "q1", "question": "What is the capital of France?", "answer": "Paris",
       "references": ["Paris"], "contexts": [{"id": "c1", "text": "Paris is the capital of France."}],
       "relevant": ["c1"]}


@pytest.mark.parametrize("text, whole, number", [
    ("0", 0, 0.0), ("-1", -1, -1.0), ("+2", 2, 2.0), (" 5 ", 5, 5.0), ("5\n", 5, 5.0), ("007", 7, 7.0),
    (".5", None, 0.5), ("0.50", None, 0.5), ("1e-3", None, 0.001), ("1E3", None, 1000.0), ("5.", None, 5.0),
    ("-inf", None, float("-inf")), ("9" * 30, int("9" * 30), 1e30),
])
def test_the_ascii_spellings_int_and_float_took_are_still_taken(text, whole, number):
    if whole is None:
        with pytest.raises(NotANumeral):
            whole_text(text)
    else:
        assert whole_text(text) == whole
    assert number_text(text) == number


@pytest.mark.parametrize("text, advice", [
    ("1_000", " (write 1000: no underscores)"), ("\u0661\u0662\u0663", " (write 123: ASCII digits)"),
    ("\uff11\uff12", " (write 12: ASCII digits)"), ("\u0967\u0966", " (write 10: ASCII digits)"),
    ("\u0661_\u0662", " (write 12: ASCII digits and no underscores)"), ("1__0", " (write 10: no underscores)"),
    ("\u0661" * 5000, " (write it: ASCII digits)"), ("abc", ""), ("0x10", ""), ("1 000", ""), ("", ""),
])
def test_grouped_and_non_ascii_digits_are_refused_saying_what_to_write(text, advice):
    for parse in (whole_text, number_text):
        with pytest.raises(NotANumeral) as found:
            parse(text)
        assert found.value.advice == advice


def genevals(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


@pytest.fixture
def rows(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    return path


def run(rows, *args, cwd=None):
    return genevals("run", str(rows), "--out", str(rows.parent / "out"), "--no-history", "-q", *args, cwd=cwd)


#: (arguments, what stderr must say): each path that turns an option's text into a number
REFUSED = [
    (("-m", "token_f1", "--history-tokens", "1_000"), "--history-tokens: expected a whole number from 0 to "
                                                     "1,000,000, got '1_000' (write 1000: no underscores)"),
    (("-m", "token_f1", "--workers", "\u0662"), "--workers: expected a whole number from 1 to 256, got '\u0662' "
                                                "(write 2: ASCII digits)"),
    (("-m", "token_f1", "--seed", "\uff11\uff12"), "--seed: expected a whole number from 0 to "
                                                   "18,446,744,073,709,551,615, got '\uff11\uff12' (write 12"),
    (("-m", "retrieval", "--set", "retrieval.cutoffs=1_0"), "retrieval.cutoffs: expected a whole number from 1 to "
                                                           "10,000, got '1_0' (write 10: no underscores)"),
    (("-m", "retrieval", "--set", "retrieval.relevance_level=\u0661"), "retrieval.relevance_level: expected a "
                                                                      "number, got '\u0661' (write 1"),
    (("-m", "retrieval", "--cutoffs", "5,\uff11\uff10"), "--cutoffs: expected comma-separated whole numbers, got "
                                                         "'\uff11\uff10' (write 10: ASCII digits)"),
    (("-m", "token_f1", "--fail-under", "token_f1=\u0660.\u0665"), "--fail-under: threshold for 'token_f1' is not "
                                                                  "a number: '\u0660.\u0665' (write 0.5"),
    (("-m", "token_f1", "--min-coverage", "0.5_0"), "--min-coverage: expected a number from 0.0 to 1.0, got "
                                                    "'0.5_0' (write 0.50: no underscores)"),
    (("-m", "token_f1", "--judge-timeout", "1_0"), "--judge-timeout: expected a number 0 or more, got '1_0' "
                                                   "(write 10"),
    (("-m", "token_f1", "--judge-seed", "-\u0661"), "--judge-seed: expected a whole number, got '-\u0661' "
                                                    "(write -1"),
    # past int()'s 4,300-digit limit: the option's own words, not Python's
    (("-m", "token_f1", "--seed", "9" * 5000), "--seed: expected a whole number from 0 to "
                                               "18,446,744,073,709,551,615, got '99999"),
    # a cutoff in a metric's name: "\d" matched any decimal digit, and ndcg@١٠ scored nothing at all
    (("-m", "ndcg@\u0661\u0660",), "unknown metric 'ndcg@\u0661\u0660'"),
]


@pytest.mark.parametrize("args, said", REFUSED, ids=[" ".join(a)[:60] for a, _ in REFUSED])
def test_the_command_line_refuses_them_naming_the_option(rows, args, said):
    done = run(rows, *args)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr and "int_max_str_digits" not in done.stderr
    assert not (rows.parent / "out").exists()


def test_a_run_file_refuses_them_naming_the_line_and_key(rows):
    folder = rows.parent
    (folder / "genevals.toml").write_text('metrics = ["retrieval"]\ncutoffs = "5,1_0"\n', encoding="utf-8")
    done = run(rows, cwd=folder)
    assert done.returncode == 2 and "genevals.toml:2: cutoffs:" in done.stderr
    assert "got '1_0' (write 10: no underscores)" in done.stderr
    (folder / "genevals.toml").write_text('metrics = ["token_f1"]\n[fail-under]\ntoken_f1 = "\u0660.\u0665"\n',
                                          encoding="utf-8")
    done = run(rows, cwd=folder)
    assert done.returncode == 2 and "genevals.toml:2: fail-under" in done.stderr
    assert "(write 0.5: ASCII digits)" in done.stderr


def test_the_other_subcommands_refuse_them(tmp_path):
    trec = tmp_path / "a.trec"
    trec.write_text("1 Q0 d1 1 1.0 a\n", encoding="utf-8")
    fused = genevals("fuse", str(trec), str(trec), "-o", str(tmp_path / "f.trec"), "--k", "\u0666\u0660")
    assert fused.returncode == 2 and "--k: expected a number 0 or more, got '\u0666\u0660' (write 60: ASCII " \
                                      "digits)" in fused.stderr
    queued = genevals("review", str(tmp_path), "--queue", "1_0")
    assert queued.returncode == 2 and "--queue: expected a whole number from 1 to 1,000,000, got '1_0' (write 10" \
                                      in queued.stderr


def test_every_ascii_spelling_taken_before_still_runs(rows):
    done = run(rows, "-m", "token_f1,retrieval", "--seed", "+2", "--workers", " 1 ", "--history-tokens", "+5",
               "--min-coverage", "0.50", "--fail-under", "token_f1=.5", "--judge-timeout", "1e-3",
               "--judge-seed", "-1", "--set", "retrieval.relevance_level=+1e0", "--set", "retrieval.cutoffs=+1, 05",
               "--cutoffs", "3,+4")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((rows.parent / "out" / "manifest.json").read_text())
    assert manifest["options"]["history_tokens"] == 5
    summary = json.loads((rows.parent / "out" / "summary.json").read_text())
    assert "recall@5" in json.dumps(summary) and summary["meta"]["fail_under"] == {"token_f1": 0.5}
    assert summary["seed"] == 2 and summary["meta"]["min_coverage"] == 0.5
