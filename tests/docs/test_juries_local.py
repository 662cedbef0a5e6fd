"""The juries page's local example runs as written (issue 52, point 10d): its jury file names one server twice,
under two model names, and its `genevals run` command, run in a real process from a folder holding the demo data,
scores every answer with both judges on every claim. The project's scripted OpenAI-compatible server stands in
for llama.cpp's at the page's address (a free port instead of 8080): it lists one model file and names it in every
reply, answers any model name, refuses ``json_schema`` and answers one request at a time, as llama.cpp's server
does. The page's server command is the local judges page's, which tests/docs/test_local_judge_server.py starts."""
import json
import shutil
import subprocess
import sys

from support.docs_blocks import DOCS, commands, section_blocks
from support.fault_server import FaultServer

SECTION = "A jury on your own machine"
PAGE = DOCS / "how-to" / "juries.md"
GGUF = "/models/gemma-3-270m-q4_k_m.gguf"  # what llama.cpp's server lists and names in its replies


def test_the_server_command_is_the_local_judges_pages():
    [here] = [c for c in section_blocks(PAGE, SECTION, "bash") if c.startswith("python -m genevals.judge.serve")]
    there = section_blocks(DOCS / "how-to" / "local-judges.md", "The packaged model on llama.cpp's server", "bash")[0]
    assert here == there  # the block tests/docs/test_local_judge_server.py starts


def test_one_local_server_under_two_names_judges_every_claim_twice(tmp_path):
    [toml] = section_blocks(PAGE, SECTION, "toml")
    [words] = [w for c in section_blocks(PAGE, SECTION, "bash") for w in commands(c) if w[0] == "genevals"]
    jury_file = words[words.index("--jury") + 1]
    out = words[words.index("-o") + 1]
    shutil.copytree(DOCS.parent / "datasets" / "demo", tmp_path / "datasets" / "demo")
    with FaultServer(listed=[GGUF], answer_model=GGUF, reject_json_schema=True, slots=1) as server:
        assert toml.count("http://127.0.0.1:8080/v1") == 2  # the same server, twice
        (tmp_path / jury_file).write_text(toml.replace("http://127.0.0.1:8080/v1", server.base_url), encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "genevals", *words[1:], "--no-history"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=900)
        asked = {r["body"].get("model") for r in server.requests}
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert {"gemma-a", "gemma-b"} <= asked, asked  # each judge asked for its own name
    assert "jury (2 judges: gemma-a, gemma-b" in done.stdout, done.stdout
    rows = [json.loads(line) for line in (tmp_path / out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 90
    scored = [r["metrics"]["faithfulness"] for r in rows if r["metrics"]["faithfulness"]["status"] == "ok"]
    assert len(scored) >= 80  # every answer but the refusals
    verdicts = [v for m in scored for v in m["details"]["verdicts"]]
    assert verdicts and all(set(v["jury"]) == {"gemma-a", "gemma-b"} for v in verdicts)
    meta = json.loads((tmp_path / out / "summary.json").read_text())["meta"]["jury"]
    assert set(meta) == {"dense", "sparse", "hybrid"}
    assert all(set(m["faithfulness"]["judges"]) == {"gemma-a", "gemma-b"} for m in meta.values()), meta
