"""``genevals label`` with the packaged llama.cpp model, as a user runs it: through a real llama.cpp server on
127.0.0.1 and in process (``--judge-backend llamacpp``), a few demo topics at depth 2; then ``genevals run
--qrels`` on the labels says which model made them. The tiny model's grades are a smoke test of the plumbing,
not labels to trust (its warning is kept in the provenance)."""
import json

import pytest

from support.label_data import demo_trec, genevals
from support.llama_server import llama_server, packaged_gguf  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow


def _label_then_run(tmp_path, f, judge):
    out = tmp_path / "judged.qrels"
    done = genevals("label", "--qrels-out", out, f["dense"], f["sparse"], "--topics", f["topics"], "--docs", f["docs"],
                    "--depth", 2, "--judge-max-tokens", 16, "--judge-timeout", 300, *judge, cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    side = json.loads((tmp_path / "judged.qrels.json").read_text())
    assert side["graded"] + side["failed"] + side["unreadable"] == side["pairs"] and side["graded"] > 0
    assert side["prompt"] == "relevance_grade"
    header = out.read_text().splitlines()[0]
    assert f"prompt_hash={side['prompt_hash']}" in header and "depth=2" in header
    run = genevals("run", "--qrels", out, "--run", f["dense"], "--run", f["sparse"], "-o", tmp_path / "r",
                   "--no-history")
    # the tiny model may grade every pair 0: then no topic has a relevant document, which the run says (exit 1)
    assert run.returncode == 0 or (run.returncode == 1 and "no_relevant" in run.stderr
                                   and side["grades"]["0"] == side["graded"]), run.stderr
    meta = json.loads((tmp_path / "r" / "summary.json").read_text())["meta"]["qrels_judged_by"]
    assert meta["model"] == side["model"] and meta["prompt_hash"] == side["prompt_hash"]
    assert f"judge {side['model']}" in run.stderr
    return side


def test_label_through_a_llama_cpp_server(llama_server, tmp_path):  # noqa: F811
    side = _label_then_run(tmp_path, demo_trec(tmp_path, topics=2), ["--judge-base-url", llama_server,
                                                                     "--judge-concurrency", 1])
    assert side["judge"] == "openai" and side["base_url"].startswith("http://127.0.0.1:")


def test_label_with_llama_cpp_in_process(tmp_path):
    packaged_gguf()  # skips without llama-cpp-python or the packaged model
    side = _label_then_run(tmp_path, demo_trec(tmp_path, topics=2), ["--judge-backend", "llamacpp"])
    assert side["judge"] == "llamacpp" and side["requests"] == side["pairs"]
    assert "smoke" in side["warning"]  # the packaged tiny model, said so in the provenance
