"""``genevals generate``'s verdict through the run lifecycle's rule, as a user runs it (a real process against an
OpenAI-compatible server on 127.0.0.1): a gate judge whose every reply is unreadable fails the generation with
exit 3 (``judge_error`` on more than ``--max-judge-errors`` of the gate's calls, the reasons listed, every item
made still written); a looser ``--max-judge-errors 1`` leaves it at "made 0 of N", exit 1; ``-q`` keeps the
verdict's lines and drops the notes."""
from __future__ import annotations

import json

from support.cli import genevals, write_jsonl
from support.gate_judge import GateJudge
from support.generate_corpus import Server, corpus, facts


class Unreadable(Server):
    """Writes items as the generation server does; every gate prompt gets a reply that is no JSON."""

    def _both(self, content: str):
        made = super()._both(content)
        try:
            item = json.loads(made) if isinstance(made, str) else None
        except json.JSONDecodeError:
            item = None
        if isinstance(item, dict) and "reference" in item:
            return made
        return "I would rather not say."


def _run(tmp_path, server, out, *extra):
    mix = tmp_path / "mix.toml"
    mix.write_text("[types]\nfact = 1.0\n", encoding="utf-8")
    return genevals("generate", tmp_path / "docs.jsonl", "--out", out, "-n", 2, "--types", mix, "--no-embeddings",
                    "--max-attempts", 3, "--judge-base-url", server.base_url, "--judge-model", "judge",
                    "--judge-cache", tmp_path / "cache", "--judge-retries", 0, *extra)


def test_a_gate_judge_that_never_answers_readably_fails_the_set_with_exit_3(tmp_path):
    rows = corpus()
    write_jsonl(tmp_path / "docs.jsonl", rows)
    with Unreadable(GateJudge(facts(rows))) as server:
        failed = _run(tmp_path, server, tmp_path / "strict")
        loose = _run(tmp_path, server, tmp_path / "loose", "--max-judge-errors", "1")
        quiet = _run(tmp_path, server, tmp_path / "quiet", "-q")
    assert failed.returncode == 3, failed.stderr
    assert "made 0 of 2 items after 3 attempts; rejected: judge_error 3" in failed.stderr
    assert "genevals: judge failures: 3 judge_error; reasons:" in failed.stderr
    assert ("3 of 3 reference_not_supported calls (100%) ended in judge_error or parse_error, more than "
            "--max-judge-errors 0.05; every item made is written") in failed.stderr
    rejected = [json.loads(line) for line in (tmp_path / "strict" / "rejected.jsonl").read_text("utf-8").splitlines()]
    assert [r["rejection"] for r in rejected] == ["judge_error"] * 3
    assert loose.returncode == 1, loose.stderr
    assert "judge failures: 3 judge_error" in loose.stderr and "more than --max-judge-errors" not in loose.stderr
    assert quiet.returncode == 3 and "made 0 of 2 items" in quiet.stderr and "more than" in quiet.stderr
    assert "warning" not in quiet.stderr and "note" not in quiet.stderr


def test_a_complete_set_says_what_to_do_next_unless_quiet(tmp_path):
    rows = corpus()
    write_jsonl(tmp_path / "docs.jsonl", rows)
    with Server(GateJudge(facts(rows))) as server:
        done = _run(tmp_path, server, tmp_path / "out")
        quiet = _run(tmp_path, server, tmp_path / "again", "-q")
    assert done.returncode == 0 and "kept 2 items" in done.stderr and "next: run your system" in done.stderr
    assert quiet.returncode == 0 and "kept 2 items" in quiet.stderr and "next:" not in quiet.stderr
    assert "judge failures" not in done.stderr
