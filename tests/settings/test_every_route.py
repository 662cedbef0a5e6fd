"""Every declared setting (each metric family's, the judge's, each judge backend's, the engine's) is reachable
through the Python API, the command line (``--set``, ``--judge-option`` or its flag) and the run file, and a bad
value of each is refused by the one checker on every route, naming the setting (issue 36).

The command line and the run file go through ``genevals.cli.main`` in process (the code ``genevals run``
runs; tests/settings/test_declarations.py runs ``--set`` as real processes); ``--no-history`` keeps the user's
history out of it."""
from __future__ import annotations

import json

import pytest

import genevals
from genevals import registry
from genevals.cli import main
from genevals.engine.arguments import SETTINGS as ENGINE
from genevals.judge.config import SETTINGS as JUDGE, all_backend_settings
from support.bad_values import bad

ROW = {"answer": "Paris", "references": ["Paris"]}
#: the engine's settings as the command line names them (chunk_size is the API's only)
ENGINE_FLAGS = {"workers": "--workers", "seed": "--seed"}


def _metric():
    return [(cls.family, s) for cls in registry.families() for s in cls.SETTINGS]


def _backend():
    return [(name, s) for name, declared in all_backend_settings().items() for s in declared]


def _toml(value) -> str:
    return json.dumps(value)  # a TOML string, number or boolean is written as JSON writes it


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no genevals.toml or pyproject.toml of the checkout is read
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(ROW) + "\n")
    return path


def _cli(capsys, *argv) -> tuple[int, str]:
    try:
        code = main(["run", *argv, "--no-history", "-m", "exact_match", "-q"])
    except SystemExit as exc:  # argparse's own refusal
        code = exc.code
    return code, capsys.readouterr().err


def _runfile(tmp_path, capsys, data, text: str) -> tuple[int, str]:
    (tmp_path / "genevals.toml").write_text(text)
    return _cli(capsys, str(data), "-c", "genevals.toml", "--out", str(tmp_path / "out"))


@pytest.mark.parametrize("family,setting", _metric(), ids=lambda x: getattr(x, "name", x))
def test_a_metric_setting_is_refused_in_the_run_file(tmp_path, capsys, data, family, setting):
    value, _ = bad(setting)
    if value is None:
        pytest.skip("an object setting: the code that reads it checks it")
    code, err = _runfile(tmp_path, capsys, data, f"[options.{family}]\n{setting.name} = {_toml(value)}\n")
    assert code == 2 and f"genevals.toml:2: options.{family}.{setting.name}: " in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("setting", JUDGE, ids=lambda s: s.name)
def test_a_judge_setting_is_refused_by_the_api_the_judge_option_and_the_run_file(tmp_path, capsys, data, setting):
    value, text = bad(setting)
    if setting.name in ("base_url", "model", "cache_dir", "batch_dir"):
        value, text = "  ", "  "  # free text: only an empty one is refused
    if setting.name == "backend":
        value, text = "gpt", "gpt"
    if setting.name == "prices":  # an object the judge checks: a number is no price table
        value, text = 5, "5"
    with pytest.raises(ValueError) as err:
        genevals.evaluate([ROW], ["exact_match"], judge={setting.name: value}, out_dir=tmp_path / "api")
    assert f"judge {setting.name}" in str(err.value) or f"'{value}'" in str(err.value), str(err.value)
    code, err = _cli(capsys, str(data), "--out", str(tmp_path / "out"), "--judge-option", f"{setting.name}={text}")
    assert code == 2 and setting.name in err, err
    code, err = _runfile(tmp_path, capsys, data, f"[judge]\n{setting.name} = {_toml(value)}\n")
    assert code == 2 and f"genevals.toml:2: judge.{setting.name}: " in err, err
    assert not any((tmp_path / name).exists() for name in ("api", "out"))


@pytest.mark.parametrize("backend,setting", _backend(), ids=lambda x: getattr(x, "name", x))
def test_a_backend_setting_is_refused_by_every_route(tmp_path, capsys, data, backend, setting):
    value, text = bad(setting)
    if text is None:
        value, text = 5, "5"
    with pytest.raises(ValueError) as err:
        genevals.evaluate([ROW], ["exact_match"], judge={"backend": backend, setting.name: value},
                          out_dir=tmp_path / "api")
    assert f"judge {setting.name}: " in str(err.value), str(err.value)
    code, err = _cli(capsys, str(data), "--out", str(tmp_path / "out"), "--judge-backend", backend,
                     "--judge-option", f"{setting.name}={text}")
    assert code == 2 and setting.name in err, err
    code, err = _runfile(tmp_path, capsys, data,
                         f'[judge]\nbackend = "{backend}"\n{setting.name} = {_toml(value)}\n')
    assert code == 2 and f"judge.{setting.name}: " in err, err
    assert not any((tmp_path / name).exists() for name in ("api", "out"))


@pytest.mark.parametrize("setting", ENGINE, ids=lambda s: s.name)
def test_an_engine_setting_is_refused_by_every_route(tmp_path, capsys, data, setting):
    value, text = bad(setting)
    with pytest.raises(ValueError) as err:
        genevals.evaluate([ROW], ["exact_match"], out_dir=tmp_path / "api", **{setting.name: value})
    assert f"{setting.name}: expected a whole number" in str(err.value), str(err.value)
    if setting.name not in ENGINE_FLAGS:
        return
    flag = ENGINE_FLAGS[setting.name]
    code, err = _cli(capsys, str(data), "--out", str(tmp_path / "out"), flag, text)
    assert code == 2 and f"argument {flag}: expected a whole number" in err, err
    code, err = _runfile(tmp_path, capsys, data, f"{setting.name} = {_toml(value)}\n")
    assert code == 2 and f"genevals.toml:1: {setting.name}: expected a whole number" in err, err
    assert not any((tmp_path / name).exists() for name in ("api", "out"))


def test_a_backend_setting_reaches_the_backend_by_every_route(tmp_path, data):
    """The good value arrives: llama.cpp's window from the API, the judge option and the run file."""
    from genevals.cli import build_parser, runfile_merge
    from genevals.cli.common import judge_config, judge_option_split
    from genevals.judge.config import JudgeConfig

    assert JudgeConfig.from_options({"backend": "llamacpp", "n_ctx": 8192}).option("n_ctx") == 8192
    args = build_parser().parse_args(["run", str(data), "--judge-option", "n_ctx=8192"])
    assert judge_config(args, **judge_option_split(args)[0]).option("n_ctx") == 8192
    (tmp_path / "genevals.toml").write_text("[judge]\nn_ctx = 8192\n")
    args = build_parser().parse_args(["run", str(data)])
    assert judge_config(args, **runfile_merge.judge_fields(args)).option("n_ctx") == 8192
