"""The README's examples run as written: "Adding a metric" (its metric registers and its test passes), "Adding a
judge backend" (its backend judges through the API and the CLI), the flat export's commands."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Adding a metric", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_adding_a_metric_example_registers_and_its_test_passes(isolated_registry):
    metric_code, test_code = _blocks()
    namespace: dict = {}
    exec(compile(metric_code, "README:answer_length.py", "exec"), namespace)
    exec(compile(test_code, "README:test_answer_length.py", "exec"), namespace)
    namespace["test_answer_length"]()

    from genevals import registry

    assert registry.family_of("within_budget") == ("answer_length", {})
    [sel] = registry.select(["within_budget"])
    assert sel.metric.max_words == 50 and sel.keep("within_budget") and not sel.keep("answer_words")


# The metric saved as a module of genevals.metrics (the folder appended to the package's path stands for it, so
# the checkout is not written to), at the top as the README says or in a family's sub-package, in a fresh process
# whose registry has discovered nothing yet.
_FOUND = """
import sys
import genevals
import genevals.metrics

genevals.metrics.__path__.append(sys.argv[1])
from genevals import registry

assert registry.family_of("within_budget") == ("answer_length", {}), registry.family_of("within_budget")
results = genevals.evaluate([{"id": "a", "answer": "Paris is the capital of France."}], ["answer_length"])
print(results.samples[0].metrics["answer_words"].value)
"""


@pytest.mark.parametrize("where", ["answer_length.py", "mine/answer_length.py"])
def test_the_example_saved_in_the_metrics_package_is_found_at_any_depth(tmp_path, where):
    metric_code, _ = _blocks()
    path = tmp_path / where
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.parent != tmp_path:
        (path.parent / "__init__.py").write_text("")
    path.write_text(metric_code, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _FOUND, str(tmp_path)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "6.0"


def test_the_offline_judge_figure_in_the_readme_is_the_stored_out_of_fold_one():
    """The README quotes the figure that detector.json stores (and every offline run states), not another."""
    from genevals.grounding import figure

    h = figure.packaged().headline
    text = " ".join(README.read_text(encoding="utf-8").split("### Validating a judge", 1)[1].split())
    d, w = h["detector"], h["word_overlap"]
    assert (f"F1 {d['f1']:.3f} [95% CI {d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}] on the {h['n']} answers "
            f"({h['sources']} sources), against {w['f1']:.3f} [{w['ci95'][0]:.3f}, {w['ci95'][1]:.3f}] for the "
            "word-overlap rule on the same folds") in text
    assert ("a tie" in text) == h["tie"]


def test_the_flat_export_example_runs_as_written(tmp_path):
    """README's "Mapping a flat export": its commands, run as written (from a folder holding the example's
    dataset), give per-system hit@1 and token F1 and paired comparisons with p-values, with no code; its TOML is
    the mapping file the second command reads."""
    import json
    import shlex
    import shutil
    import subprocess
    import sys

    from genevals.report.model import build_data

    section = README.read_text(encoding="utf-8").split("#### Mapping a flat export", 1)[1].split("\n#### ", 1)[0]
    run, show = re.findall(r"^    (genevals run .*)$", section, re.M)
    [toml] = re.findall(r"```toml\n(.*?)```", section, re.S)
    data = README.parent / "datasets" / "flat_export"
    assert (data / "mapping.toml").read_text(encoding="utf-8") == toml
    shutil.copytree(data, tmp_path / "datasets" / "flat_export")

    def genevals(command):
        words = shlex.split(command)
        assert words[0] == "genevals"
        return subprocess.run([sys.executable, "-m", "genevals", *words[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600)

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



def test_adding_a_judge_backend_example_loads_through_its_entry_point_and_judges(tmp_path, monkeypatch):
    """README's "Adding a judge backend": its module judges through the Python API once imported, and, installed
    with its entry point as written, in its own ``genevals run`` command (the URL pointed at a local server)."""
    import json
    import os
    import shlex
    import subprocess
    import sys

    import genevals
    from genevals.judge import registry
    from support.fault_server import FaultServer

    section = README.read_text(encoding="utf-8").split("## Adding a judge backend", 1)[1].split("\n## ", 1)[0]
    [code] = re.findall(r"```python\n(.*?)```", section, re.S)
    [toml] = re.findall(r"```toml\n(.*?)```", section, re.S)
    [command] = re.findall(r"^    (genevals run .*)$", section, re.M)
    [(name, module)] = re.findall(r'^(\w+) = "([\w.]+)"$', toml.split('[project.entry-points."genevals.judge_'
                                                                  'backends"]\n', 1)[1], re.M)
    site = tmp_path / "site"
    info = site / f"{module}-0.1.dist-info"  # what pip install leaves for the package that declares it
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(code, encoding="utf-8")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINTS}]\n{name} = {module}\n", encoding="utf-8")
    row = {"id": "a", "answer": "Marie Curie was born in Warsaw.", "contexts": ["Marie Curie was born in Warsaw."]}
    (tmp_path / "data.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    words = shlex.split(command)
    assert words[:2] == ["genevals", "run"] and "--judge-base-url" in words
    url = words[words.index("--judge-base-url") + 1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "_BACKENDS", dict(registry._BACKENDS))  # forgotten after the test
    with FaultServer() as server:
        __import__(module)
        results = genevals.evaluate([row], ["faithfulness"], judge={"backend": name, "base_url": server.base_url,
                                                                    "cache": False})
        done = subprocess.run([sys.executable, "-m", "genevals", *[server.base_url if w == url else w
                                                                    for w in words[1:]],
                               "--out", "out", "-q", "--no-judge-cache"],
                              cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
        requests = server.total
    sys.modules.pop(module, None)
    assert results.samples[0].metrics["faithfulness"].value == 1.0
    assert done.returncode == 0, done.stderr
    assert requests == 2 + 3  # the API's decompose and verify; the preflight, then decompose and verify
    first = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])["metrics"]["faithfulness"]
    assert first["value"] == 1.0 and first["details"]["judge"]["backend"] == name
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["signatures"]["faithfulness"].startswith(
        f"faithfulness|backend:{name}|model:judge|")


def _section_commands(heading: str) -> list[str]:
    section = README.read_text(encoding="utf-8").split(heading, 1)[1].split("\n#### ", 1)[0].split("\n### ", 1)[0]
    return re.findall(r"^    (genevals .*)$", section, re.M)


def _run_as_written(command: str, cwd: Path) -> subprocess.CompletedProcess:
    import shlex

    words = shlex.split(command)
    assert words[0] == "genevals"
    return subprocess.run([sys.executable, "-m", "genevals", *words[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_the_trec_and_fusion_example_runs_as_written(tmp_path):
    """README's "TREC files and reciprocal rank fusion": its two commands, from a folder holding datasets/trec,
    fuse the runs and evaluate the three systems with paired comparisons."""
    import json
    import shutil

    from genevals.report.model import build_data

    fuse, run = _section_commands("#### TREC files and reciprocal rank fusion")
    shutil.copytree(README.parent / "datasets" / "trec", tmp_path / "datasets" / "trec")
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
    """README's "Traces": its command, on the LangSmith export in tests/data/traces, scores both traces."""
    import json
    import shutil

    [command] = _section_commands("#### Traces: `--from openinference")
    shutil.copytree(README.parent / "tests" / "data" / "traces", tmp_path / "tests" / "data" / "traces")
    done = _run_as_written(command, tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "reports" / "traces" / "results.jsonl").read_text().splitlines()]
    assert [(r["system"], len(r["contexts"]), r["metrics"]["faithfulness"]["status"]) for r in rows] == [
        ("dense", 2, "ok"), ("sparse", 1, "ok")]


def test_the_pytest_example_file_passes_under_pytest(tmp_path):
    """README's "Testing with pytest": its test file, saved as written and run by pytest in a real process (the
    plugin by its entry point when genevals is installed with it, else named with -p), passes both tests."""
    from importlib.metadata import entry_points

    section = README.read_text(encoding="utf-8").split("## Testing with pytest", 1)[1].split("\n## ", 1)[0]
    [code] = re.findall(r"```python\n(.*?)```", section, re.S)
    (tmp_path / "test_rag_quality.py").write_text(code, encoding="utf-8")
    installed = any(ep.value == "genevals.testing.plugin" for ep in entry_points(group="pytest11"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "--strict-markers", "-p", "no:cacheprovider",
                           *([] if installed else ["-p", "genevals.testing.plugin"]), "test_rag_quality.py"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
