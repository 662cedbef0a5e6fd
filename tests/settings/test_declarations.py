"""Every metric family declares its settings (``SETTINGS``) next to its code, the one place their names and defaults
are written (its ``__init__`` takes them as keywords, :meth:`~genevals.metrics.base.Metric.__init__`); a bad value
of each is refused, naming family and setting, through the API (before any metric is built) and the command line
(``--set FAMILY.KEY=VALUE``, exit 2)."""
import inspect
import json
import subprocess
import sys

import pytest

import genevals
from genevals import registry
from support.bad_values import bad as _bad

#: the keyword arguments that are not settings: the judge is the run's, not the family's
NOT_SETTINGS = {"self", "judge"}


def _declared():
    return [(cls.family, s) for cls in registry.families() for s in cls.SETTINGS]


@pytest.mark.parametrize("cls", registry.families(), ids=lambda cls: cls.family)
def test_the_declarations_are_the_keyword_arguments_written_once(cls):
    params = inspect.signature(cls.__init__).parameters
    named = {n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)} - NOT_SETTINGS
    declared = [s.name for s in cls.SETTINGS]
    assert len(declared) == len(set(declared))
    # no setting's name or default is written again in a signature: the settings come in as **values
    assert not named, f"{cls.family}.__init__ names {sorted(named)}: take them from SETTINGS"
    assert any(p.kind is p.VAR_KEYWORD for p in params.values())
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_setting'"):
        cls(no_such_setting=1)


@pytest.mark.parametrize("family,setting", _declared(), ids=lambda x: getattr(x, "name", x))
def test_a_bad_value_is_refused_by_the_api_naming_family_and_key(tmp_path, family, setting):
    bad, _ = _bad(setting)
    if bad is None:
        pytest.skip("an object setting: the code that reads it checks it")
    with pytest.raises(ValueError) as err:
        genevals.evaluate([{"answer": "Paris", "references": ["Paris"]}], ["exact_match"],
                          options={family: {setting.name: bad}}, out_dir=tmp_path / "out")
    assert f"'{family}'" in str(err.value) and f"{setting.name}:" in str(err.value)
    assert not (tmp_path / "out").exists()


def test_an_unknown_key_gets_a_did_you_mean_and_no_metric_is_built(monkeypatch):
    from genevals.metrics.lexical.rouge import Rouge

    built = []
    monkeypatch.setattr(Rouge, "__init__", lambda self, **kw: built.append(kw))
    with pytest.raises(ValueError, match=r"options\['rouge'\]: unknown setting 'use_stemer' "
                                         r"\(did you mean 'use_stemmer'\?\)"):
        registry.resolve(["exact_match"], {"rouge": {"use_stemer": True}})
    registry.resolve(["exact_match"], {"rouge": {"use_stemmer": True}})
    assert built == []  # checked against the declarations: no ROUGE object to check a ROUGE setting


def genevals_cli(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("family,setting", _declared(), ids=lambda x: getattr(x, "name", x))
def test_a_bad_value_is_refused_by_set_with_exit_2_naming_family_and_key(tmp_path, family, setting):
    _, bad = _bad(setting)
    if bad is None:
        pytest.skip("free text: every text is a value the metric reads")
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"answer": "Paris", "references": ["Paris"]}) + "\n")
    done = genevals_cli("run", str(data), "--out", str(tmp_path / "out"), "--no-history", "-m", "exact_match",
                        "--set", f"{family}.{setting.name}={bad}")
    assert done.returncode == 2, done.stderr
    assert f"argument --set: {family}.{setting.name}: " in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_shared_fuzzy_threshold_is_the_locators():
    # declared without importing genevals.claims.locate (rapidfuzz): the two numbers must stay one
    from genevals.claims.locate import FUZZY_THRESHOLD as located
    from genevals.metrics.settings import FUZZY_THRESHOLD

    assert FUZZY_THRESHOLD.default == located
