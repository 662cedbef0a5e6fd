"""What a lexical `genevals run` imports: only what its run needs. Every library a run does not use costs its
import at every start (a 5-sample run takes ~0.3 s, numpy ~0.05 s of it), so none of the judge's, the model
metrics' or the report template's libraries is loaded for token_f1, rouge, bleu and exact_match. Checked on a
real process (``python -X importtime`` lists every module it imported), not timed."""
import json
import os
import subprocess
import sys

from conftest import DEMO
from support.cli import IMPORTS_PROBE

#: libraries no lexical run needs: the LLM judge's client stack, the model-based metrics, Ray, DataFrames (the
#: input is JSONL), sacrebleu (BLEU scores its statistics itself), jinja2 (report.html fills six slots)
NOT_NEEDED = {"openai", "httpx", "llama_cpp", "torch", "transformers", "onnxruntime", "sentence_transformers",
              "bert_score", "tokenizers", "ray", "pandas", "pyarrow", "sacrebleu", "jinja2", "lxml", "tabulate",
              "portalocker", "scipy", "sklearn"}


_RUN = IMPORTS_PROBE


def imported_by(argv, cwd):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", _RUN, json.dumps(argv)], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["exit"] == 0, done.stderr[-3000:]
    assert "genevals.metrics.lexical.bleu" in got["modules"]  # the listing is complete: the run's own metrics
    return {name.split(".")[0] for name in got["modules"]}


def test_a_lexical_run_imports_no_library_it_does_not_use(tmp_path):
    rows = DEMO.read_text(encoding="utf-8").splitlines(keepends=True)[:5]
    data = tmp_path / "five.jsonl"
    data.write_text("".join(rows), encoding="utf-8")
    out = tmp_path / "out"
    top = imported_by(["run", str(data), "--metrics", "exact_match,token_f1,rouge,bleu", "--out", str(out), "-q",
                       "--no-history"], tmp_path)
    assert not top & NOT_NEEDED, sorted(top & NOT_NEEDED)
    assert (out / "report.html").is_file()
    systems = json.loads((out / "summary.json").read_text())["systems"]
    assert all(system["bleu"]["mean"] is not None for system in systems.values()) and systems


def test_a_trec_retrieval_run_imports_no_other_metric_and_no_judge_client(tmp_path):
    # the registry resolves "retrieval" through genevals.metric_index: no other family's module, and none of
    # the judge client's or the faithfulness metric's, is imported (0.1-0.15 s of a 2,000-topic run)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q{t} 0 d{t}_{d} {d % 3}\n" for t in range(4) for d in range(5)), encoding="utf-8")
    run.write_text("".join(f"q{t} Q0 d{t}_{d} {d + 1} {10 - d}.5 sys\n" for t in range(4) for d in range(8)),
                   encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    argv = ["run", "--qrels", str(qrels), "--run", str(run), "--out", str(tmp_path / "out"), "-q", "--no-history"]
    done = subprocess.run([sys.executable, "-c", _RUN, json.dumps(argv)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, env=env)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["exit"] == 0, done.stderr[-3000:]
    modules = set(got["modules"])
    assert "genevals.metrics.retrieval.retrieval" in modules and (tmp_path / "out" / "report.html").is_file()
    families = sorted(m for m in modules if m.startswith("genevals.metrics.") and m.split(".")[2] not in
                      ("retrieval", "base", "settings", "lexical", "semantic"))
    assert not families, families
    assert not modules & {"genevals.judge.client", "genevals.metrics.faithfulness.faithfulness"}
    # nor the judge backends (asyncio) nor the preflight: --judge-backend's choices and help are read when asked
    # for, and the run's except clause names JudgeUnavailable only once a judge was loaded
    assert not modules & {"asyncio", "genevals.judge.preflight", "genevals.judge.backends.openai_compatible"}
