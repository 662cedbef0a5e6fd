"""Issue 12 against llama.cpp's real server with the packaged Gemma 3 270M, through the CLI as a user runs it:
the preflight passes on a working server and stops a wrong URL with what to fix, and the claims this tiny
model invents or copies from the prompt's worked example are never listed as the answer's."""
import json
import subprocess
import sys

from support.llama_server import llama_server  # noqa: F401  (fixture)

ANSWER = "Marie Curie was born in Warsaw in 1867. She won two Nobel Prizes."
CONTEXT = "Marie Curie was born in Warsaw in 1867. She won the Nobel Prize in Physics and in Chemistry."


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=900)


def test_cli_against_llama_server(llama_server, tmp_path):  # noqa: F811
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "curie", "question": "Who was Marie Curie?", "answer": ANSWER,
                                "contexts": [CONTEXT]}) + "\n")
    judge = ["--metrics", "faithfulness", "--judge-model", "gemma-3-270m", "--no-judge-cache", "--judge-max-claims",
             "3", "--judge-max-tokens", "256", "--judge-timeout", "300", "--judge-concurrency", "1", "-q"]
    wrong = genevals("run", str(data), "--out", str(tmp_path / "wrong"), "--judge-base-url",
                     llama_server.removesuffix("/v1"), *judge)
    assert wrong.returncode == 2 and "HTTP 404" in wrong.stderr and "ends in the API root" in wrong.stderr
    # the worked example in the prompt: what the tiny base model copies
    done = genevals("run", str(data), "--out", str(tmp_path / "out"), "--judge-base-url", llama_server,
                    "--judge-worked-example", "yes", "--max-judge-errors", "1", *judge)
    assert done.returncode == 0, done.stderr
    row = json.loads((tmp_path / "out" / "results.jsonl").read_text())["metrics"]
    faith = row["faithfulness"]
    assert faith["status"] != "judge_error", faith["reason"]
    if faith["status"] in ("ok", "no_claims", "parse_error"):
        details = faith["details"]
        assert all(c["located"] and c["spans"] for c in details.get("claims", []))
        assert not any("Varnholt" in c["text"] for c in details.get("claims", []))
        invented = details.get("invented_claims", [])
        if "invented_claims" in row and row["invented_claims"]["status"] == "ok":
            assert row["invented_claims"]["value"] == len(invented)
        html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
        assert ("Judge quality: the judge returned" in html) == bool(invented)
        print(f"llama server: status {faith['status']}, {len(details.get('claims', []))} claim(s) of the answer, "
              f"{len(invented)} invented: {[c['text'] for c in invented]}")
