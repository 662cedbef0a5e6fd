"""genevals.metrics.base is a package of one idea per module; every name callers import from
``genevals.metrics.base`` (the metric families, the registry, the metric index, the engines, user metrics as
CONTRIBUTING.md writes them) is still found there, and is the very object its module defines: the registry's
family table is one dict, not a copy."""
import importlib

import pytest

from genevals.metrics import base

from support.package_face import assert_reexported

WHERE = {
    "declarations": ["CHEAP", "MODEL", "JUDGE", "KINDS", "DIRECTIONS", "Output", "_pattern"],
    "metric": ["Metric", "Unscored", "Emit", "register", "_FAMILIES"],
    "concurrent": ["ConcurrentMetric", "run_sync", "usage_statistics"],
    "cards": ["card_lines"],
}


@pytest.mark.parametrize("module,names", WHERE.items())
def test_every_name_is_the_object_its_module_defines(module, names):
    assert_reexported("genevals.metrics.base", module, names)


def test_a_registered_metric_lands_in_the_one_family_table(isolated_registry):
    @base.register
    class Probe(base.Metric):
        family = "probe_public_face"
        outputs = (base.Output("probe_public_face", "a probe"),)

        def signature(self):
            return "probe"

        def score(self, samples):
            return [{} for _ in samples]

    from genevals import registry

    assert importlib.import_module("genevals.metrics.base.metric")._FAMILIES["probe_public_face"] is Probe
    assert registry.load_family("probe_public_face") is Probe
