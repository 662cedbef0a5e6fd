"""summary.json's ``languages`` block and the lines the terminal prints after the table (genevals.output.languages),
in a real ``genevals run`` process.

Two probe metrics are registered by the process's own script (``PROBE``): ``langprobe`` (results as rows) and
``langcols`` (results in :class:`genevals.scored.Columns`, the path retrieval takes); both know English and German
only and record each sample's language as every per-language metric does (``Language.details()``). The expected
counts follow from the rows by hand: their ``language`` fields, the run's ``--language``, and detection (a long
English sentence is detected; "Yes", "No", "OK" are too short and fall back).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from genevals.output import languages
from genevals.output.results import SummaryAccumulator
from genevals.types import MetricResult, Sample, SampleResult

REPO = Path(__file__).resolve().parents[2]

PROBE = '''
import sys
from genevals.cli import main
from genevals.metrics.base import Metric, Output, register
from genevals.scored import Columns
from genevals.types import MetricResult

INSTEAD = "use --metrics token_f1 instead"


class _Probe(Metric):
    languages = frozenset({"en", "de"})

    def signature(self):
        return f"{self.family}|{self.language.signature()}"

    def result(self, sample):
        return self.unsupported(sample, self.family, INSTEAD) or MetricResult(
            self.family, 1.0, details=self.language_of(sample).details())

    def score(self, samples):
        return [{self.family: self.result(s)} for s in samples]


@register
class LangProbe(_Probe):
    family = "langprobe"
    outputs = (Output("langprobe", "1, or unsupported_language outside en and de"),)


@register
class LangCols(_Probe):
    family = "langcols"
    outputs = (Output("langcols", "langprobe, in columns"),)

    def score_columns(self, samples):
        got = [self.result(s) for s in samples]
        ok = all(r.status == "ok" for r in got)
        return Columns(["langcols"], {"langcols": [r.value for r in got]},
                       {"langcols": None if ok else [r.status for r in got]},
                       {"langcols": None if ok else [r.reason for r in got]}, [dict(r.details) for r in got])


sys.exit(main(sys.argv[1:]))
'''

ENGLISH = ("The Eiffel Tower was finished in 1889 and stands on the Champ de Mars in Paris.",
           "Shakespeare wrote Hamlet around the year 1600, and it is among his most performed plays.")
ROWS = [
    *({"id": f"en{i}", "answer": text, "references": [text]} for i, text in enumerate(ENGLISH)),
    *({"id": f"short{i}", "answer": text, "references": [text]} for i, text in enumerate(("Yes", "No", "OK"))),
    {"id": "de0", "answer": "Der Turm steht in Paris.", "references": ["Paris"], "language": "de-AT"},
    {"id": "de1", "answer": "Ja", "references": ["Ja"], "language": "DE"},
    {"id": "zh0", "answer": "巴黎", "references": ["巴黎"], "language": "zh-Hant"},
]


def run(tmp_path: Path, metric: str, *extra: str, out: str = "out") -> tuple[subprocess.CompletedProcess, dict]:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script), "run", str(data), "--out", str(tmp_path / out), "--metrics",
                           metric, "--no-history", *extra], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done, json.loads((tmp_path / out / "summary.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("metric", ["langprobe", "langcols"])
def test_the_block_counts_each_samples_language_and_how_it_was_decided(tmp_path, metric):
    done, summary = run(tmp_path, metric)
    block = summary["languages"]
    # by hand: en = 2 detected + 3 too short (Latin script -> en); de and zh from the rows' fields
    assert block["samples"] == 8
    assert block["by_language"] == {
        "en": {"samples": 5, "detected": 2, "row": 0, "run": 0, "fallback": 3},
        "de": {"samples": 2, "detected": 0, "row": 2, "run": 0, "fallback": 0},
        "zh": {"samples": 1, "detected": 0, "row": 1, "run": 0, "fallback": 0}}
    assert block["unsure"]["samples"] == 3 and sum(block["unsure"]["why"].values()) == 3
    assert list(block["unsupported"]) == [metric] and block["unsupported"][metric]["results"] == 1
    assert "Chinese (zh)" in block["unsupported"][metric]["reason"]
    assert summary["meta"]["language"] == "auto"
    # the terminal: one line for the unsure samples, one for the unsupported ones, after the table
    out = done.stdout
    unsure = "3 samples' language was unsure ("
    assert unsure in out and "; they were scored as en: set --language or a language field" in out
    assert (f"1 score was not given: status unsupported_language ({metric} 1), the metric does not know the "
            f"sample's language; {metric}: use --metrics token_f1 instead") in out
    table_end = out.index(metric)  # the table names the metric before the lines that follow it
    assert table_end < out.index(unsure) < out.index("wrote ")


def test_the_run_language_and_its_fallback_are_counted_as_such(tmp_path):
    _, fixed = run(tmp_path, "langprobe", "--language", "en", out="fixed")
    assert fixed["meta"]["language"] == "en"
    assert fixed["languages"]["by_language"]["en"] == {"samples": 5, "detected": 0, "row": 0, "run": 5,
                                                       "fallback": 0}
    assert fixed["languages"]["unsure"] == {"samples": 0, "why": {}}
    done, fallback = run(tmp_path, "langprobe", "--language", "auto:de", out="fallback")
    assert fallback["meta"]["language"] == "auto:de"
    by = fallback["languages"]["by_language"]
    assert by["en"] == {"samples": 2, "detected": 2, "row": 0, "run": 0, "fallback": 0}
    assert by["de"] == {"samples": 5, "detected": 0, "row": 2, "run": 0, "fallback": 3}
    assert "they were scored as de: set --language" in done.stdout


def test_a_resumed_run_counts_the_results_it_read_back(tmp_path):
    _, first = run(tmp_path, "langprobe")
    _, again = run(tmp_path, "langprobe", "--resume")
    assert again["languages"] == first["languages"]


def test_no_block_and_no_line_when_no_metric_records_a_language(tmp_path):
    done, summary = run(tmp_path, "exact_match")
    if "languages" in summary:  # once exact_match records languages (issue 35's lexical metrics), it must add up
        assert summary["languages"]["samples"] == len(ROWS)
    else:
        assert "language was unsure" not in done.stdout


# ------------------------------------------------------------------ the tally, in this process

def _result(code: str, source: str, status: str = "ok") -> SampleResult:
    details = {"language": code, "language_source": source}
    if source == "fallback":
        details["language_note"] = f"too short to detect (2 letters); scored as {code} (Latin script)"
    metric = (MetricResult("m", 1.0, details=details) if status == "ok"
              else MetricResult.unscored("m", status, "m knows en only; this sample is x (row); use y", **details))
    return SampleResult(Sample(id=code + source, answer="x"), {"m": metric})


def test_merged_parts_count_as_one_accumulator():
    results = [_result("en", "detected"), _result("en", "fallback"), _result("zh", "row", "unsupported_language"),
               _result("de", "run")]
    whole = SummaryAccumulator()
    whole.add_batch(results)
    merged = SummaryAccumulator()
    for part_results in (results[:1], results[1:]):
        part = SummaryAccumulator()
        part.add_batch(part_results)
        merged.languages.merge(part.languages)
    assert merged.languages.to_dict() == whole.languages.to_dict()
    block = whole.languages.to_dict()
    assert block["unsure"] == {"samples": 1, "why": {"too short to detect": 1}}
    assert block["unsupported"] == {"m": {"results": 1, "reason": "m knows en only; this sample is x (row); use y"}}
    assert Counter({code: c["samples"] for code, c in block["by_language"].items()}) == {"en": 2, "zh": 1, "de": 1}


def test_lines_survive_a_hand_edited_block():
    assert languages.lines({"languages": "nonsense"}) == []
    assert languages.lines({"languages": {"unsure": {"samples": "3"}, "unsupported": {"x": {"results": "a"}}}}) == []
    line = languages.lines({"languages": {"unsure": {"samples": 1, "why": {"\x1b[31mred": 1}},
                                          "by_language": {"en": {"fallback": 1}}}})
    assert line == ["1 sample's language was unsure (\\x1b[31mred); it was scored as en: set --language or a "
                    "language field"]
