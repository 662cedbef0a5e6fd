"""Models that know one language say so (issue 35): on Chinese text, BERTScore with the packaged MiniLM, the local
grounding checker, the offline RAG triad and citations_local give ``unsupported_language`` with a reason naming the
language and what to use instead, never a number; the LLM faithfulness judge (the fault server's scripted honest
judge) scores the same samples; English samples of the same run keep their numbers. Real ``genevals run``
processes throughout.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from genevals.types import OK, UNSUPPORTED_LANGUAGE
from support.fault_server import FaultServer

pytest.importorskip("sentence_transformers")
pytest.importorskip("bert_score")

REPO = Path(__file__).resolve().parents[2]
#: every offline metric whose model or calibration is English-only, and the outputs each writes
OFFLINE = {"bertscore": ("bertscore_precision", "bertscore_recall", "bertscore_f1"),
           "grounding": ("faithfulness", "contradiction_rate", "unverifiable_rate"),
           "answer_relevance_local": ("answer_relevance",),
           "context_relevance_local": ("context_relevance", "context_precision"),
           "context_recall_local": ("context_recall",),
           "answer_correctness_local": ("answer_correctness", "answer_correctness_precision",
                                        "answer_correctness_recall"),
           "citations_local": ("citation_recall", "citation_precision", "citation_coverage", "miscited")}
#: what each family's reason tells the user to use instead
INSTEAD = {"bertscore": "--bertscore-model PATH", **{f: "--judge-base-url" for f in OFFLINE if f != "bertscore"}}

ZH = [
    {"id": "zh1", "question": "法国的首都是哪里？", "answer": "巴黎是法国的首都。",
     "contexts": [{"id": "c1", "text": "巴黎是法国的首都。它也是法国最大的城市，位于塞纳河畔。"},
                  {"id": "c2", "text": "长城位于中国北方，全长两万多公里。"}],
     "reference": "法国的首都是巴黎。"},
    {"id": "zh2", "question": "长城在哪里？", "answer": "长城位于中国北方。",
     "contexts": [{"id": "c1", "text": "巴黎是法国的首都。"}, {"id": "c2", "text": "长城位于中国北方。全长两万多公里。"}],
     "reference": "长城在中国北方。"},
]
EN = [
    {"id": "en1", "question": "What is the capital of France?", "answer": "Paris is the capital of France. [1]",
     "contexts": [{"id": "c1", "text": "Paris is the capital of France. It is also the largest city in the country."}],
     "reference": "The capital of France is Paris."},
    {"id": "en2", "question": "Where is the Great Wall of China?", "answer": "The Great Wall is in northern China. [1]",
     "contexts": [{"id": "c1", "text": "The Great Wall is in northern China. It is thousands of kilometres long."}],
     "reference": "The Great Wall lies in the north of China."},
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(data: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "dummy",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), *args],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=600)


def _results(out: Path) -> dict[str, dict]:
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["id"]: row["metrics"] for row in map(json.loads, lines)}


def test_offline_english_models_skip_chinese_and_score_english_in_one_run(tmp_path):
    proc = _run(_write(tmp_path / "mixed.jsonl", ZH + EN), tmp_path / "out", "--metrics", ",".join(OFFLINE))
    assert proc.returncode == 0, proc.stderr
    results = _results(tmp_path / "out")
    for family, outputs in OFFLINE.items():
        for name in outputs:
            for sid in ("zh1", "zh2"):
                got = results[sid][name]
                assert got["status"] == UNSUPPORTED_LANGUAGE and got["value"] is None, (family, name, got)
                assert f"{family} knows en only" in got["reason"] and "Chinese (zh) (detected)" in got["reason"]
                assert INSTEAD[family] in got["reason"], got["reason"]
            for sid in ("en1", "en2"):
                assert results[sid][name]["status"] == OK and isinstance(results[sid][name]["value"], float)
        first = outputs[0]  # the output that carries the details
        assert results["zh1"][first]["details"]["language"] == "zh"
        assert results["en1"][first]["details"]["language"] == "en"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    for name in (o for outputs in OFFLINE.values() for o in outputs):
        counted = summary["systems"]["default"][name]
        assert counted["scored"] == 2 and counted["unscored"] == 2, (name, counted)
        assert counted["statuses"] == {OK: 2, UNSUPPORTED_LANGUAGE: 2}
    for family in OFFLINE:  # the signatures name the language handling
        sig = summary["signatures"][family]
        assert "|lang:auto|" in sig and "|languages:en|" in sig, sig
    # unscored, not failed: the terminal lists the status with the others, and no judge failure is reported
    assert "unsupported_language" in proc.stdout and "judge failures" not in proc.stderr


def test_a_run_where_every_sample_is_unsupported_says_it_scored_nothing(tmp_path):
    proc = _run(_write(tmp_path / "zh.jsonl", ZH), tmp_path / "out", "--metrics", "bertscore,grounding", "-q")
    assert proc.returncode == 1, proc.stderr  # what any run that scored nothing exits with (cli.gates)
    assert "bertscore scored no sample (unscored: unsupported_language 2)" in proc.stderr
    assert "grounding scored no sample (unscored: unsupported_language 2)" in proc.stderr


def test_the_llm_judge_scores_the_samples_the_local_checker_cannot(tmp_path):
    data = _write(tmp_path / "zh.jsonl", ZH)
    judge = ("--judge-backend", "openai", "--judge-model", "test", "--no-judge-cache", "--no-preflight", "-q")
    with FaultServer() as server:
        proc = _run(data, tmp_path / "llm", "--metrics", "faithfulness", "--judge-base-url", server.base_url, *judge)
        assert proc.returncode == 0, proc.stderr
        cascade = _run(data, tmp_path / "cascade", "--metrics", "cascade", "--judge-base-url", server.base_url,
                       *judge)
        assert cascade.returncode == 0, cascade.stderr
    for sid, row in _results(tmp_path / "llm").items():
        # the scripted judge: one claim (the one sentence), found verbatim in a context -> supported: 1/1
        assert row["faithfulness"]["status"] == OK and row["faithfulness"]["value"] == 1.0, (sid, row)
    for sid, row in _results(tmp_path / "cascade").items():
        faith = row["faithfulness"]
        assert faith["status"] == OK and faith["value"] == 1.0
        settled = faith["details"]["cascade"]
        assert settled["settled_by"] == "llm" and settled["local_status"] == UNSUPPORTED_LANGUAGE
        assert "Chinese (zh)" in settled["local_reason"]


def test_a_bad_bertscore_model_folder_exits_2(tmp_path):
    (tmp_path / "folder").mkdir()
    data = _write(tmp_path / "en.jsonl", EN)
    for path, why in ((tmp_path / "nosuch", "no such folder"), (tmp_path / "folder", "not a Hugging Face model "
                                                                                       "folder: no config.json")):
        proc = _run(data, tmp_path / "out", "--metrics", "bertscore", "--bertscore-model", str(path), "-q")
        assert proc.returncode == 2
        assert f"--bertscore-model {path}: {why}" in proc.stderr and "Traceback" not in proc.stderr


def test_skipped_samples_load_no_model():
    """Every English-only metric scores Chinese samples without importing torch or sentence-transformers (a
    fresh process), pairwise_local included: both answers of the pair are Chinese."""
    code = """
import json, sys
from genevals import registry
from genevals.types import Context, Sample
rows = json.loads(sys.argv[1])
samples = [Sample(id=r["id"], system=s, answer=r["answer"], question=r["question"], references=(r["reference"],),
                  contexts=tuple(Context(text=c["text"], rank=i + 1) for i, c in enumerate(r["contexts"])))
           for r in rows for s in ("a", "b")]
statuses = {}
for sel in registry.select(sys.argv[2].split(",")):
    for sample in samples:
        sel.metric.prepare_sample(sample)
    sel.metric.finish_prepare()
    for result in sel.metric.score(samples):
        for name, value in result.items():
            statuses.setdefault(value.status, set()).add(name)
print(json.dumps({k: sorted(v) for k, v in statuses.items()}))
print(json.dumps(sorted(m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules)))
"""
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    families = [*OFFLINE, "pairwise_local"]
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(ZH, ensure_ascii=False), ",".join(families)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    statuses, loaded = map(json.loads, proc.stdout.splitlines())
    assert list(statuses) == [UNSUPPORTED_LANGUAGE]
    assert set(statuses[UNSUPPORTED_LANGUAGE]) == {o for outputs in OFFLINE.values() for o in outputs} | {"pairwise"}
    assert loaded == []
