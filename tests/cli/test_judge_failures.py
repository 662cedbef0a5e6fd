"""Judge failures are loud (issue 12): a preflight request stops a run whose judge cannot answer (exit 2, with
what to fix), the reasons of judge_error/parse_error samples are listed with counts, and a run with more judge
errors than --max-judge-errors exits 3 after writing everything. Real processes against the fault-injecting
server."""
import json
import subprocess
import sys

from support.fault_server import FaultServer

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."


def genevals(*args, prelude=None):
    """``python -m genevals ARGS``; with ``prelude``, that code runs first in the same process."""
    if prelude is None:
        command = [sys.executable, "-m", "genevals", *args]
    else:
        code = f"import sys; {prelude}; from genevals.cli import main; sys.exit(main(sys.argv[1:]))"
        command = [sys.executable, "-c", code, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def rows(path, answers):
    path.write_text("".join(json.dumps({"id": str(i), "answer": a, "contexts": [CONTEXT]}) + "\n"
                            for i, a in enumerate(answers)))
    return str(path)


def run_judged(tmp_path, data, base_url, *extra):
    return genevals("run", data, "--out", str(tmp_path / "out"), "--metrics", "faithfulness", "-q",
                    "--judge-base-url", base_url, "--judge-model", "judge", "--no-judge-cache", *extra)


def test_unreachable_judge_stops_before_scoring(tmp_path):
    with FaultServer() as server:
        url = server.base_url
    done = run_judged(tmp_path, rows(tmp_path / "d.jsonl", ["Marie Curie was born in Warsaw."]), url)
    assert done.returncode == 2, done.stderr
    assert "did not answer a test request" in done.stderr and "check that the server is running" in done.stderr
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_unknown_model_and_refused_key_name_the_fix_and_never_the_key(tmp_path):
    data = rows(tmp_path / "d.jsonl", ["Marie Curie was born in Warsaw."])
    with FaultServer(models={"judge"}, api_key="sk-right-0123456789") as server:
        wrong_model = genevals("run", data, "--out", str(tmp_path / "a"), "--metrics", "faithfulness", "-q",
                               "--judge-base-url", server.base_url, "--judge-model", "nosuch", "--no-judge-cache",
                               prelude="import os; os.environ['OPENAI_API_KEY'] = 'sk-right-0123456789'")
        wrong_key = genevals("run", data, "--out", str(tmp_path / "b"), "--metrics", "faithfulness", "-q",
                             "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache",
                             prelude="import os; os.environ['OPENAI_API_KEY'] = 'sk-wrong-0123456789'")
        assert server.total == 2  # one preflight request each, nothing scored
    assert wrong_model.returncode == 2 and "HTTP 404" in wrong_model.stderr
    assert "check --judge-model" in wrong_model.stderr
    assert wrong_key.returncode == 2 and "HTTP 401" in wrong_key.stderr and "check the API key" in wrong_key.stderr
    assert "sk-wrong-0123456789" not in wrong_key.stderr and "***" in wrong_key.stderr


def test_missing_llama_extra_exits_2_with_the_install_command(tmp_path):
    done = genevals("run", rows(tmp_path / "d.jsonl", ["Marie Curie was born in Warsaw."]), "--out",
                    str(tmp_path / "out"), "--metrics", "faithfulness", "--judge-backend", "llamacpp", "-q",
                    prelude="sys.modules['llama_cpp'] = None")  # as if llama-cpp-python were not installed
    assert done.returncode == 2, done.stderr
    assert "llama-cpp-python, which is not installed: pip install 'genevals[llama]'" in done.stderr


def test_judge_errors_are_listed_and_exit_3_after_writing_everything(tmp_path):
    answers = ["Marie Curie was born in Warsaw.", "Marie Curie discovered polonium. FAULT500.",
               "Marie Curie discovered radium. FAULTMALFORMED."]
    data = rows(tmp_path / "d.jsonl", answers)
    with FaultServer() as server:
        done = run_judged(tmp_path, data, server.base_url, "--judge-retries", "0")
        assert server.counts["clean"] == 1 + 2  # the preflight, then decompose + verify of the clean answer
    assert done.returncode == 3, done.stderr
    assert "judge failures: 1 judge_error, 1 parse_error; reasons:" in done.stderr
    assert "1 x judge_error: decompose call failed after 1 request(s): HTTP 500" in done.stderr
    assert "1 x parse_error: the decompose reply could not be parsed" in done.stderr
    assert ("2 of 3 faithfulness samples (67%) ended in judge_error or parse_error, more than --max-judge-errors "
            "0.05") in done.stderr
    out = tmp_path / "out"
    assert len((out / "results.jsonl").read_text().splitlines()) == 3
    assert json.loads((out / "summary.json").read_text())["systems"]["default"]["faithfulness"]["scored"] == 1
    assert (out / "report.html").exists()

    with FaultServer() as server:
        tolerated = genevals("run", data, "--out", str(tmp_path / "t"), "--metrics", "faithfulness", "-q",
                             "--judge-base-url", server.base_url, "--judge-model", "judge", "--no-judge-cache",
                             "--judge-retries", "0", "--max-judge-errors", "0.7")
    assert tolerated.returncode == 0, tolerated.stderr
    assert "1 x judge_error" in tolerated.stderr and "more than --max-judge-errors" not in tolerated.stderr


def test_a_judge_that_answers_only_garbage_fails_the_run(tmp_path):
    """20 of 20 unreadable replies scored nothing: that is exit 3 (issue 22), not 0 at 0/20 coverage."""
    data = rows(tmp_path / "d.jsonl", [f"Marie Curie was born in Warsaw. FAULTMALFORMED {i}." for i in range(20)])
    with FaultServer() as server:
        done = run_judged(tmp_path, data, server.base_url, "--judge-retries", "0")
    assert done.returncode == 3, done.stderr
    assert "20 x parse_error: the decompose reply could not be parsed" in done.stderr
    assert "20 of 20 faithfulness samples (100%) ended in judge_error or parse_error" in done.stderr
    assert len((tmp_path / "out" / "results.jsonl").read_text().splitlines()) == 20  # written first


def test_validate_preflights_and_exits_3_on_judge_errors(tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "ok", "context": CONTEXT, "response": "Marie Curie was born in Warsaw.", "hallucinated": False},
        {"id": "down", "context": CONTEXT, "response": "Marie Curie was born. FAULT500.", "hallucinated": True}]))
    with FaultServer() as server:
        url = server.base_url
        failing = genevals("validate", str(data), "--judge", "llm", "--judge-base-url", url, "--judge-model", "j",
                           "--no-judge-cache", "--judge-retries", "0", "--out", str(tmp_path / "v"), "-q",
                           "--resamples", "10")
    assert failing.returncode == 3, failing.stderr
    assert "1 x judge_error: decompose call failed after 1 request(s): HTTP 500" in failing.stderr
    assert (tmp_path / "v" / "validation.json").exists()
    down = genevals("validate", str(data), "--judge", "llm", "--judge-base-url", url, "--judge-model", "j",
                    "--out", str(tmp_path / "w"), "-q")
    assert down.returncode == 2 and "did not answer a test request" in down.stderr
