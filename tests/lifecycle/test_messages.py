"""Notes and warnings are short (issue 52, point 10b): the README's quick start, run as written in a real process,
prints each note and warning as one line of at most MAX_LINE characters (the fact and what to do: the offline
faithfulness note was 965 characters), and the details stay in summary.json; and every family's offline note, the
packaged judge's warning, the citation checker's caveat and `genevals label`'s note fit the same line (the
conversation judges run only on conversations)."""
import json
import shutil
import subprocess
import sys

from support.docs_blocks import REPO, commands, section_blocks

from genevals.lifecycle.messages import MAX_LINE, first_line


def _too_long(lines):
    return [f"{len(line)}: {line}" for line in lines if len(line) > MAX_LINE]


def test_the_quick_starts_notes_and_warnings_are_each_one_short_line(tmp_path):
    [words] = commands(section_blocks(REPO / "README.md", "Quick start", "bash")[0])
    assert words[:2] == ["genevals", "run"]
    shutil.copytree(REPO / "datasets" / "demo", tmp_path / "datasets" / "demo")
    done = subprocess.run([sys.executable, "-m", "genevals", *words[1:], "--no-history"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    caveats = [line for line in done.stderr.splitlines() if line.startswith(("genevals: note:", "genevals: warning:"))]
    assert len(caveats) >= 4, done.stderr  # the offline faithfulness and RAG judges say so
    assert _too_long(caveats) == []
    assert not [line for line in done.stderr.splitlines() if line and not line.startswith("genevals: ")], done.stderr
    out = words[words.index("--out") + 1]
    kept = json.loads((tmp_path / out / "summary.json").read_text())["meta"]["judge_warnings"]
    assert "Good for:" in kept["grounding"]  # the details: in summary.json and the report, not on the terminal
    assert "Good for:" not in done.stderr


def test_every_offline_note_and_judge_warning_fits_one_line():
    from genevals.cli.label import NO_JUDGE_NOTE
    from genevals.judge.backends.llamacpp import SMOKE_MODEL_WARNING
    from genevals.metrics.citations import calibration
    from genevals.registry import families, load_family

    shown = []
    for cls in families():
        if cls.offline_alternative:
            alternative, note = cls.offline_alternative
            shown.append(f"genevals: note: {load_family(alternative).family}: {first_line(note)}")
    assert len(shown) >= 10  # faithfulness, the RAG judges, citations, the conversation judges
    assert all("--judge-base-url" in line for line in shown)  # what to do
    shown.append(f"genevals: note: llm_rubric: {first_line(SMOKE_MODEL_WARNING)}")
    shown += [f"genevals: note: citations_local: {first_line(note)}"
              for note in map(calibration.caveat, calibration.MODES) if note]
    shown.append(NO_JUDGE_NOTE)  # genevals label's
    assert _too_long(shown) == []
