"""The how-to pages' examples run as written, each in a real process from a folder holding the data it names:
the flat export's mapping, TREC files and fusion, trace import, the pytest example; and the offline judge's figure
quoted in "Validate a judge" is the stored out-of-fold one."""
import subprocess
import sys
from pathlib import Path

from support.docs_blocks import DOCS, REPO, commands, section_blocks


def _commands(page: str, heading: str) -> list[list[str]]:
    return [words for code in section_blocks(DOCS / page, heading, "bash") for words in commands(code)]


def _run_as_written(words: list[str], cwd: Path) -> subprocess.CompletedProcess:
    assert words[0] == "genevals"
    return subprocess.run([sys.executable, "-m", "genevals", *words[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_the_offline_judge_figure_in_validate_a_judge_is_the_stored_out_of_fold_one():
    """"Validate a judge" quotes the figure that detector.json stores (and every offline run states), not another."""
    from genevals.grounding import figure

    h = figure.packaged().headline
    text = " ".join((DOCS / "how-to" / "validate-a-judge.md").read_text(encoding="utf-8").split())
    d, w = h["detector"], h["word_overlap"]
    assert (f"F1 {d['f1']:.3f} [95% CI {d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}] on the {h['n']} answers "
            f"({h['sources']} sources), against {w['f1']:.3f} [{w['ci95'][0]:.3f}, {w['ci95'][1]:.3f}] for the "
            "word-overlap rule on the same folds") in text
    assert ("a tie" in text) == h["tie"]


def test_the_flat_export_example_runs_as_written(tmp_path):
    """"Score a results file", "Mapping a flat export": its commands, run as written (from a folder holding the example's
    dataset), give per-system hit@1 and token F1 and paired comparisons with p-values, with no code; its TOML is
    the mapping file the second command reads."""
    import json
    import shutil

    from genevals.report.model import build_data

    page = DOCS / "how-to" / "score-a-results-file.md"
    run, show = _commands("how-to/score-a-results-file.md", "Mapping a flat export")
    [toml] = section_blocks(page, "Mapping a flat export", "toml")
    data = REPO / "datasets" / "flat_export"
    assert (data / "mapping.toml").read_text(encoding="utf-8") == toml
    shutil.copytree(data, tmp_path / "datasets" / "flat_export")

    def genevals(words):
        return _run_as_written(words, tmp_path)

    done = genevals(run)
    assert done.returncode == 0, done.stderr
    table = {line.split()[0]: line for line in done.stdout.splitlines() if line.split()[:1] in (["hit_rate@1"],
                                                                                                 ["token_f1"])}
    assert set(table) == {"hit_rate@1", "token_f1"} and "bm25" in done.stdout and "hybrid" in done.stdout
    assert all(line.count("12/12") == 3 for line in table.values()), done.stdout  # every sample of 3 systems
    assert done.stderr.count("column 'expected_url' holds Python literals") == 1
    comparisons = build_data([tmp_path / "reports" / "flat"], None)["comparisons"]
    paired = {(c["metric"], c["a"], c["b"]): c for c in comparisons}
    assert {m for m, _, _ in paired} == {"hit_rate@1", "token_f1"} and len(paired) == 6  # 3 pairs x 2 metrics
    assert all(c["n_pairs"] == 12 and 0 <= c["p_value"] <= 1 for c in paired.values())
    assert any(c["significant"] for c in paired.values())  # bm25 against hybrid differs
    shown = genevals(show)
    assert shown.returncode == 0, shown.stderr
    row = json.loads(shown.stdout.partition("\n")[2])
    assert row["system"] == "bm25" and row["id"] == "How do I reset my password?"
    assert row["contexts"][0]["doc_id"].startswith("https://") and len(row["relevant"]) == 1



def test_the_trec_and_fusion_example_runs_as_written(tmp_path):
    """"TREC files and fusion": its two commands, from a folder holding datasets/trec,
    fuse the runs and evaluate the three systems with paired comparisons."""
    import json
    import shutil

    from genevals.report.model import build_data

    fuse, run = _commands("how-to/trec-files.md", "TREC files and fusion")
    shutil.copytree(REPO / "datasets" / "trec", tmp_path / "datasets" / "trec")
    done = _run_as_written(fuse, tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "reports" / "trec" / "hybrid.trec").read_text().count("\n") == 80  # 8 topics x 10
    done = _run_as_written(run, tmp_path)
    assert done.returncode == 0, done.stderr
    systems = json.loads((tmp_path / "reports" / "trec" / "summary.json").read_text())["systems"]
    assert set(systems) == {"bm25", "dense", "hybrid"} and all(s["ndcg@10"]["scored"] == 8 for s in systems.values())
    comparisons = build_data([tmp_path / "reports" / "trec"], None)["comparisons"]
    assert len({(c["a"], c["b"]) for c in comparisons if c["metric"] == "ndcg@10"}) == 3


def test_the_trace_import_example_runs_as_written(tmp_path):
    """"Score traces": its command, on the LangSmith export in tests/data/traces, scores both traces."""
    import json
    import shutil

    [command] = _commands("how-to/traces.md", "Score traces")
    shutil.copytree(REPO / "tests" / "data" / "traces", tmp_path / "tests" / "data" / "traces")
    done = _run_as_written(command, tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "reports" / "traces" / "results.jsonl").read_text().splitlines()]
    assert [(r["system"], len(r["contexts"]), r["metrics"]["faithfulness"]["status"]) for r in rows] == [
        ("dense", 2, "ok"), ("sparse", 1, "ok")]


def test_the_pytest_example_file_passes_under_pytest(tmp_path):
    """"Gate CI", "Testing with pytest": its test file, saved as written and run by pytest in a real process (the
    plugin by its entry point when genevals is installed with it, else named with -p), passes both tests."""
    from importlib.metadata import entry_points

    [code] = section_blocks(DOCS / "how-to" / "gate-ci.md", "Testing with pytest", "python")
    (tmp_path / "test_rag_quality.py").write_text(code, encoding="utf-8")
    installed = any(ep.value == "genevals.testing.plugin" for ep in entry_points(group="pytest11"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "--strict-markers", "-p", "no:cacheprovider",
                           *([] if installed else ["-p", "genevals.testing.plugin"]), "test_rag_quality.py"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout


def test_the_missed_gate_message_is_the_one_a_run_prints(tmp_path):
    """"Gate CI", "Testing with pytest": the missed-gate message shown is the one the `genevals` fixture prints
    for the rows shown, offline (no judge: the local grounding checker), in a real pytest process; only the
    report's temporary path differs."""
    import json
    import os
    import re

    page = DOCS / "how-to" / "gate-ci.md"
    [rows] = section_blocks(page, "Testing with pytest", "json")
    [shown] = section_blocks(page, "Testing with pytest", "text")
    (tmp_path / "test_gate.py").write_text(
        "import pytest\n\n"
        f"ROWS = {json.loads(rows)!r}\n\n\n"
        "@pytest.mark.genevals(metrics=['faithfulness'], fail_under={'faithfulness': 0.9})\n"
        "def test_grounded(genevals):\n"
        "    genevals(ROWS)\n", encoding="utf-8")
    from importlib.metadata import entry_points

    installed = any(ep.value == "genevals.testing.plugin" for ep in entry_points(group="pytest11"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GENEVALS_JUDGE"))}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rN",
                           *([] if installed else ["-p", "genevals.testing.plugin"]), "test_gate.py"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path, env={**env, "HF_HUB_OFFLINE": "1"})
    assert "ScoresFailed: genevals:" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "ScoresFailed: genevals:" in line)
    message = [re.sub(r"^E {7}", "", line) for line in lines[start + 1:] if line.startswith("E ")]
    message = [lines[start].split("ScoresFailed: ", 1)[1]] + message

    def report(text: str) -> str:
        return re.sub(r"report: \S+report\.html", "report: REPORT", text)

    assert report("\n".join(message)) == report(shown.rstrip("\n")), done.stdout[-3000:]
