"""genevals.registry is a package of one idea per module; every name callers import from ``genevals.registry``
is still found there and is the object its module defines, and the discovery flag is read live (a copy taken at
import would say forever that no metric module was imported). In a fresh process: the registry keeps what it
imported."""
import importlib
import os
import subprocess
import sys

import pytest

from genevals import registry

from support.package_face import assert_reexported

WHERE = {
    "names": ["UnknownMetric", "MissingExtra", "families", "known_names", "load_family", "preset", "family_of",
              "_discover"],
    "resolving": ["Selected", "Resolved", "resolve", "build", "select", "left_out"],
    "describing": ["describe_all", "declaration_of", "headlines", "declarations"],
}


@pytest.mark.parametrize("module,names", WHERE.items())
def test_every_name_is_the_object_its_module_defines(module, names):
    assert_reexported("genevals.registry", module, names)
    assert registry.register is importlib.import_module("genevals.metrics.base").register


def test_the_discovery_flag_is_read_live():
    code = ("from genevals import registry\nprint(registry._DISCOVERED)\nregistry.families()\n"
            "print(registry._DISCOVERED)\ntry:\n    registry._no_such_name\nexcept AttributeError as exc:\n    print(exc)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["False", "True", "module 'genevals.registry' has no attribute '_no_such_name'"]
