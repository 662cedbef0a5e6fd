"""genevals.metric_index: the index of which module registers which metric names is the full import's (so it
cannot drift), every name resolves through it as through the full import, and a package whose modules differ from
the index (a metric saved as genevals/metrics/NAME.py) is imported whole. Each check runs in a fresh process: the
registry keeps what it imported."""
import json
import os
import subprocess
import sys
from pathlib import Path

import genevals.metric_index

DATA = Path(genevals.metric_index.DATA)


def python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_index_is_what_the_full_import_registers():
    built = python("from genevals import metric_index; print(metric_index.text(metric_index.build()), end='')")
    assert built == DATA.read_text(encoding="utf-8"), (
        "genevals/metric_index_data.py is out of date: run `python -m genevals.metric_index` and commit it")


_RESOLVE = """
import json
from genevals import registry
from genevals.metric_index_data import FAMILIES

presets = sorted({p for _, _, named, _ in FAMILIES.values() for p in named})
names = sorted({n for family, (_, _, _, outputs) in FAMILIES.items()
                for n in (family, *(o.replace("{k}", "7").replace("{criterion}", "clarity") for o in outputs))
                } | {"ndcg@10", "recall@1000"})

def answers():
    out = {name: list(registry.preset(name)) for name in presets}
    out.update({name: [registry.family_of(name), list(registry.preset(name))] for name in names})
    return out

light = answers()
assert not registry._DISCOVERED, "a known name imported every metric module"
registry._discover()
print(json.dumps({"light": light, "full": answers()}))
"""


def test_every_name_resolves_through_the_index_as_through_the_full_import():
    got = json.loads(python(_RESOLVE))
    assert got["light"] == got["full"]
    assert got["light"]["recall@7"] == [["retrieval", {"k": "7"}], []]
    assert "retrieval" in got["light"]["default"] and "retrieval" in got["light"]["all"]


def test_a_retrieval_run_resolved_imports_no_other_family():
    modules = set(json.loads(python(
        "import json, sys\nfrom genevals import registry\n"
        "registry.resolve(['retrieval'], {'retrieval': {'cutoffs': [5]}, 'faithfulness': {}, 'bertscore': {}})\n"
        "print(json.dumps(sorted(sys.modules)))")))
    assert "genevals.metrics.retrieval.retrieval" in modules
    others = sorted(m for m in modules if m.startswith("genevals.metrics.") and not m.startswith(
        ("genevals.metrics.retrieval", "genevals.metrics.base", "genevals.metrics.settings")))
    assert not others, others
    assert "genevals.judge.client" not in modules and "asyncio" not in modules


def test_modules_the_index_does_not_list_make_the_registry_import_them_all():
    # as a metric saved as genevals/metrics/NAME.py would: the index no longer describes the package
    out = python("import genevals.metric_index_data as data\n"
                 "data.MODULES = data.MODULES[:-1]\n"
                 "from genevals import registry\n"
                 "print(registry.family_of('recall@5'), registry._DISCOVERED, registry.preset('default'))")
    assert out.startswith("('retrieval', {'k': '5'}) True (")
    assert "'retrieval'" in out
