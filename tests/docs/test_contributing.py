"""CONTRIBUTING.md's examples run as written: "Adding a metric" (its metric registers and its test passes, also
saved in the metrics package at any depth) and "Adding a judge backend" (its backend judges through the API and,
installed with its entry point, through the CLI)."""
import re
import subprocess
import sys

import pytest
from support.docs_blocks import REPO, commands, section_blocks

CONTRIBUTING = REPO / "CONTRIBUTING.md"


def _blocks() -> list[str]:
    return section_blocks(CONTRIBUTING, "Adding a metric", "python")


def test_adding_a_metric_example_registers_and_its_test_passes(isolated_registry):
    metric_code, test_code = _blocks()
    namespace: dict = {}
    exec(compile(metric_code, "CONTRIBUTING:answer_length.py", "exec"), namespace)
    exec(compile(test_code, "CONTRIBUTING:test_answer_length.py", "exec"), namespace)
    namespace["test_answer_length"]()

    from genevals import registry

    assert registry.family_of("within_budget") == ("answer_length", {})
    [sel] = registry.select(["within_budget"])
    assert sel.metric.max_words == 50 and sel.keep("within_budget") and not sel.keep("answer_words")


# The metric saved as a module of genevals.metrics (the folder appended to the package's path stands for it, so
# the checkout is not written to), at the top as CONTRIBUTING.md says or in a family's sub-package, in a fresh process
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


def test_adding_a_judge_backend_example_loads_through_its_entry_point_and_judges(tmp_path, monkeypatch):
    """CONTRIBUTING's "Adding a judge backend": its module judges through the Python API once imported, and, installed
    with its entry point as written, in its own ``genevals run`` command (the URL pointed at a local server)."""
    import json
    import os
    import subprocess
    import sys

    from support.fault_server import FaultServer

    import genevals
    from genevals.judge import registry

    [code] = section_blocks(CONTRIBUTING, "Adding a judge backend", "python")
    [toml] = section_blocks(CONTRIBUTING, "Adding a judge backend", "toml")
    [block] = section_blocks(CONTRIBUTING, "Adding a judge backend", "bash")
    [words] = commands(block)
    [(name, module)] = re.findall(r'^(\w+) = "([\w.]+)"$', toml.split('[project.entry-points."genevals.judge_'
                                                                  'backends"]\n', 1)[1], re.MULTILINE)
    site = tmp_path / "site"
    info = site / f"{module}-0.1.dist-info"  # what pip install leaves for the package that declares it
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(code, encoding="utf-8")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINTS}]\n{name} = {module}\n", encoding="utf-8")
    row = {"id": "a", "answer": "Marie Curie was born in Warsaw.", "contexts": ["Marie Curie was born in Warsaw."]}
    (tmp_path / "data.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert words[:2] == ["genevals", "run"] and "--judge-base-url" in words
    url = words[words.index("--judge-base-url") + 1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.syspath_prepend(str(site))
    registry.backend_names()  # the built-in backends registered before the copy (they load when first asked for)
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


