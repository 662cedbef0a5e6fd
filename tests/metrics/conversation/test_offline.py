"""Without a judge, the conversation metrics give each conversation an explicit status, never a number: a real
``genevals run`` process on the demo conversations, and ``genevals metrics NAME`` describing them."""
import json
import subprocess
import sys

from conftest import REPO
from genevals.output import runfolder

CHAT = str(REPO / "datasets" / "chat" / "chat.jsonl")
FAMILIES = ["knowledge_retention", "conversation_relevance", "conversation_completeness"]


def genevals(*args, cwd=None):
    env_free = [sys.executable, "-m", "genevals", *args]
    return subprocess.run(env_free, capture_output=True, text=True, cwd=cwd, timeout=600)


def test_offline_run_gives_unsupported_on_each_last_turn(tmp_path):
    done = genevals("run", CHAT, "-m", ",".join(FAMILIES + ["token_f1"]), "--no-history", "-o", str(tmp_path / "r"))
    # nothing scored: the run says so (exit 1 is "a metric scored no sample"), never a number
    assert done.returncode == 1, done.stderr
    assert "knowledge_retention scored no sample (unscored: unsupported 2)" in done.stderr
    assert "knowledge_retention has no offline variant" in done.stderr
    lines = [row for _, row in runfolder.iter_rows(tmp_path / "r")]  # one line per conversation, read per turn
    by_id = {line["id"]: line["metrics"] for line in lines}
    for family in FAMILIES:
        for sample, status in (("bridge:1", "not_last_turn"), ("bridge:2", "not_last_turn"),
                               ("bridge:3", "unsupported"), ("museum:2", "unsupported")):
            result = by_id[sample][family]
            assert result["status"] == status and result["value"] is None and result["reason"]
        assert "needs an LLM judge" in by_id["bridge:3"][family]["reason"]
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    m = summary["systems"]["default"]["knowledge_retention"]
    assert (m["scored"], m["total"], m["statuses"]) == (0, 2, {"not_last_turn": 3, "unsupported": 2})
    # the table counts conversations: 0 of 2, and lists no other turn as unscored
    assert "0/2" in done.stdout and "not_last_turn" not in done.stdout


def test_metrics_describes_them():
    done = genevals("metrics", "knowledge_retention")
    assert done.returncode == 0
    assert "one value per conversation (on its last assistant turn)" in done.stdout
    assert "prompt:" in done.stdout
    offline = genevals("metrics", "conversation_completeness_local")
    assert "offline: status unsupported" in offline.stdout
