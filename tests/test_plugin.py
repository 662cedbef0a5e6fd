"""genevals.plugin, the public surface for metric and judge-backend plugins: every name it promises is there, is
the internal object itself (not a copy), and importing it loads nothing until a name is asked for."""
import subprocess
import sys

import genevals.plugin as plugin
from genevals import types
from genevals.judge import protocol
from genevals.judge import registry as backends
from genevals.metrics import base
from genevals.settings import Setting
from genevals.signature import make_signature

_INTERNAL = {
    "Metric": base.Metric, "Output": base.Output, "register": base.register, "CHEAP": base.CHEAP,
    "MODEL": base.MODEL, "JUDGE": base.JUDGE, "Setting": Setting, "make_signature": make_signature,
    "Backend": backends.Backend, "Identity": backends.Identity, "register_backend": backends.register_backend,
    "Completion": protocol.Completion, "Usage": protocol.Usage, "Provider": protocol.Provider,
    "JudgeError": protocol.JudgeError, "TransientError": protocol.TransientError,
    "PermanentError": protocol.PermanentError, "MetricResult": types.MetricResult, "Sample": types.Sample,
    "Context": types.Context, "types": types, "OK": types.OK, "EMPTY_ANSWER": types.EMPTY_ANSWER,
    "EMPTY_REFERENCE": types.EMPTY_REFERENCE, "NO_CONTEXT": types.NO_CONTEXT,
    "NO_RELEVANCE_LABELS": types.NO_RELEVANCE_LABELS, "NOT_FOUND": types.NOT_FOUND, "NO_CLAIMS": types.NO_CLAIMS,
    "REFUSAL": types.REFUSAL, "JUDGE_ERROR": types.JUDGE_ERROR, "PARSE_ERROR": types.PARSE_ERROR,
    "ERROR": types.ERROR, "UNSUPPORTED_LANGUAGE": types.UNSUPPORTED_LANGUAGE,
}


def test_every_public_name_is_the_internal_object():
    assert sorted(plugin.__all__) == sorted(_INTERNAL) == sorted([*plugin._WHERE, "types"])
    for name, internal in _INTERNAL.items():
        assert getattr(plugin, name) is internal, name
    assert set(plugin.__all__) <= set(dir(plugin))


def test_genevals_register_is_the_plugin_register():
    import genevals

    assert genevals.register is plugin.register


def test_an_unknown_name_is_an_attribute_error():
    try:
        plugin.Nothing  # noqa: B018
    except AttributeError as exc:
        assert "Nothing" in str(exc)
    else:
        raise AssertionError("genevals.plugin.Nothing should not exist")


def test_importing_it_loads_nothing_until_a_name_is_asked_for():
    code = ("import sys; import genevals.plugin; before = set(sys.modules); from genevals.plugin import Backend; "
            "print(sorted(m for m in set(sys.modules) - before if m.startswith('genevals.'))); "
            "print('genevals.metrics.base' in sys.modules, 'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded, flags = done.stdout.strip().splitlines()
    assert "genevals.judge.registry" in loaded and "genevals.metrics" not in loaded  # only what the name needs
    assert flags == "False False"
