"""``genevals run -c genevals.toml``: a run kept in a file, as a user runs it (real processes)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import DEMO, REPO

METRICS = ["rouge", "token_f1", "retrieval"]


def genevals(*args, cwd, env=None):
    environ = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, env=environ)


@pytest.fixture()
def folder(tmp_path):
    (tmp_path / "d.jsonl").write_text("".join(DEMO.read_text().splitlines(keepends=True)[:12]))
    return tmp_path


RUN_FILE = """\
data = "d.jsonl"
metrics = ["rouge", "token_f1", "retrieval"]
out_dir = "from-file"
seed = 11
language = "en"
quiet = true
no-history = true
fail-under = {rougeL = 0.01}

[options.rouge]
use_stemmer = true

[options.retrieval]
cutoffs = [1, 3]

[profiles.nightly]
metrics = "rouge,bleu"
out_dir = "nightly"
"""


def test_a_run_from_the_file_equals_the_same_run_from_flags_byte_for_byte(folder):
    (folder / "genevals.toml").write_text(RUN_FILE)
    from_file = genevals("run", "-c", "genevals.toml", cwd=folder)
    assert from_file.returncode == 0, from_file.stderr
    from_flags = genevals("run", "--no-config", "d.jsonl", "-m", ",".join(METRICS), "-o", "from-flags",
                          "--seed", "11", "--language", "en", "-q", "--no-history", "--fail-under", "rougeL=0.01",
                          "--stem", "--cutoffs", "1,3", cwd=folder)
    assert from_flags.returncode == 0, from_flags.stderr
    results = (folder / "from-file" / "results.jsonl").read_bytes()
    assert results and results == (folder / "from-flags" / "results.jsonl").read_bytes()
    # the settings reached the scoring: stemming and the cutoffs are in the results, not the defaults
    first = json.loads(results.splitlines()[0])
    assert "recall@3" in json.dumps(first) and "recall@10" not in json.dumps(first)
    summaries = [json.loads((folder / name / "summary.json").read_text()) for name in ("from-file", "from-flags")]
    assert summaries[0]["systems"] == summaries[1]["systems"]
    assert summaries[0]["meta"]["fail_under"] == {"rougeL": 0.01}


def test_a_profile_overrides_the_top_level(folder):
    (folder / "genevals.toml").write_text(RUN_FILE)
    done = genevals("run", "-c", "genevals.toml", "--profile", "nightly", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert not (folder / "from-file").exists()
    first = json.loads((folder / "nightly" / "results.jsonl").read_text().splitlines()[0])
    assert {"rougeL", "bleu"} <= set(first["metrics"]) and "token_f1" not in first["metrics"]


def test_a_flag_overrides_the_file_and_a_repeated_flag_replaces_its_list(folder):
    (folder / "genevals.toml").write_text(RUN_FILE)
    done = genevals("run", "--config", "genevals.toml", "-o", "by-flag", "-m", "token_f1",
                    "--fail-under", "token_f1=0.01", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert not (folder / "from-file").exists()
    summary = json.loads((folder / "by-flag" / "summary.json").read_text())
    assert summary["meta"]["fail_under"] == {"token_f1": 0.01}  # the file's rougeL threshold is replaced
    first = json.loads((folder / "by-flag" / "results.jsonl").read_text().splitlines()[0])
    assert set(first["metrics"]) == {"token_f1"}


def test_pyproject_tool_genevals_is_found_from_a_subfolder_and_named_on_stderr(folder):
    (folder / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.genevals]\ndata = "../d.jsonl"\n'
                                           'metrics = ["token_f1"]\nout_dir = "found"\nquiet = true\n'
                                           'no_history = true\n')
    sub = folder / "sub"
    sub.mkdir()
    done = genevals("run", cwd=sub)
    assert done.returncode == 0, done.stderr
    assert f"settings from {folder / 'pyproject.toml'} [tool.genevals]" in done.stderr
    assert (sub / "found" / "results.jsonl").exists()
    ignored = genevals("run", "--no-config", cwd=sub)
    assert ignored.returncode == 2 and "INPUT: give the input file" in ignored.stderr


def test_genevals_toml_in_the_working_directory_comes_before_pyproject(folder):
    (folder / "pyproject.toml").write_text('[tool.genevals]\nout_dir = "from-pyproject"\n')
    (folder / "genevals.toml").write_text('data = "d.jsonl"\nmetrics = "token_f1"\n')
    done = genevals("run", "--print-config", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert f"settings from {folder / 'genevals.toml'}" in done.stderr
    assert 'out = "reports/latest"  # default' in done.stdout


def test_print_config_shows_each_value_and_where_it_came_from_and_scores_nothing(folder):
    (folder / "genevals.toml").write_text(RUN_FILE)
    done = genevals("run", "-c", "genevals.toml", "--profile", "nightly", "--workers", "2", "--stem",
                    "--print-config", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert 'input = "d.jsonl"  # genevals.toml:1' in lines
    assert 'out = "nightly"  # genevals.toml:18' in lines  # the profile's line, not the top level's
    assert 'metrics = ["rouge", "bleu"]  # genevals.toml:17' in lines
    assert "seed = 11  # genevals.toml:4" in lines
    assert "workers = 2  # flag" in lines
    assert 'fail-under = ["rougeL=0.01"]  # genevals.toml:8' in lines
    assert 'level = "auto"  # default' in lines
    assert "options.rouge.use_stemmer = true  # genevals.toml:11" in lines
    assert "options.retrieval.cutoffs = [1, 3]  # genevals.toml:14" in lines
    with_set = genevals("run", "-c", "genevals.toml", "--set", "retrieval.cutoffs=2,4", "--print-config", cwd=folder)
    assert "options.retrieval.cutoffs = [2, 4]  # flag (--set), wins over genevals.toml:14's [1, 3]" in \
        with_set.stdout.splitlines(), with_set.stdout
    assert not (folder / "nightly").exists() and not (folder / "from-file").exists()


def test_the_judge_table_reaches_the_judge_config_under_the_flags(folder, monkeypatch):
    from genevals.cli import build_parser, runfile_merge
    from genevals.cli.common import judge_config

    (folder / "genevals.toml").write_text('[judge]\nmodel = "m-file"\ntimeout = 5.0\nn_threads = 3\n'
                                          'api_key_env = "RUNFILE_TEST_KEY"\n')
    monkeypatch.chdir(folder)
    monkeypatch.setenv("RUNFILE_TEST_KEY", "sk-from-env")
    args = build_parser().parse_args(["run", "d.jsonl", "--judge-model", "m-flag"])
    config = judge_config(args, **runfile_merge.judge_fields(args))
    assert (config.model, config.timeout, config.option("n_threads"), config.api_key) == ("m-flag", 5.0, 3,
                                                                                         "sk-from-env")
    monkeypatch.delenv("RUNFILE_TEST_KEY")
    with pytest.raises(ValueError, match="RUNFILE_TEST_KEY is not set"):
        runfile_merge.judge_fields(args)


BAD = {
    "not-toml": ('data = "d.jsonl"\nworkers = \n',
                 "genevals.toml: not valid TOML: Invalid value (at line 2, column 11)"),
    "unknown-key": ('wrokers = 2\n', "genevals.toml:1: wrokers: unknown key; did you mean 'workers'?"),
    "wrong-type": ('data = "d.jsonl"\nworkers = "2"\n', "genevals.toml:2: workers: expected a whole number, got '2'"),
    "wrong-bool": ('strict = "yes"\n', "genevals.toml:1: strict: expected true or false, got a string"),
    "bad-choice": ('on_error = "ignore"\n', "genevals.toml:1: on_error: 'ignore' is not one of: stop, skip"),
    "metrics-number": ("metrics = 3\n", "metrics: expected an array of names or a comma-separated string"),
    "api-only": ("chunk_size = 3\n", "chunk_size: an argument of genevals.evaluate that the command line has no use"),
    "twice": ('out_dir = "a"\nout = "b"\n', "out_dir: sets the same option as out; keep one of them"),
    "family": ("[options.rogue]\nuse_stemmer = true\n", "genevals.toml:1: options.rogue: unknown metric family; did "
                                                        "you mean 'rouge'?"),
    "setting": ("[options.rouge]\nuse_stemer = true\n", "genevals.toml:2: options.rouge.use_stemer: unknown setting "
                                                        "(did you mean 'use_stemmer'?)"),
    "setting-value": ("[options.retrieval]\ncutoffs = [0]\n", "genevals.toml:2: options.retrieval.cutoffs: expected a "
                                                            "whole number from 1 to 10,000, got 0"),
    "literal-key": ('[judge]\napi_key = "sk-secret-1"\n', "judge.api_key: a key is never kept in a file"),
    "judge-field": ('[judge]\nmodle = "x"\n', "genevals.toml:2: judge.modle: unknown judge setting; did you mean "
                                              "'model'?"),
    "judge-value": ("[judge]\nconcurrency = 0\n", "genevals.toml:2: judge.concurrency: expected a whole number 1 or more, got 0"),
    "profiles-not-table": ('profiles = "x"\n', "genevals.toml:1: profiles: expected a table"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_run_file_is_exit_2_naming_file_line_and_key(folder, name):
    text, message = BAD[name]
    (folder / "genevals.toml").write_text(text)
    done = genevals("run", "-c", "genevals.toml", cwd=folder)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert "sk-secret-1" not in done.stderr


def test_a_missing_profile_lists_the_ones_there(folder):
    (folder / "genevals.toml").write_text(RUN_FILE)
    done = genevals("run", "-c", "genevals.toml", "--profile", "nighty", cwd=folder)
    assert done.returncode == 2
    assert ("genevals.toml: --profile nighty: no [profiles.nighty] table; did you mean 'nightly'? "
            "(profiles: nightly)") in done.stderr


@pytest.mark.parametrize("kind", ["directory", "fifo", "missing"])
def test_a_run_file_that_is_not_a_file_is_refused_by_the_one_path_rule(folder, kind):
    path = folder / "conf.toml"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(path)
    done = genevals("run", "-c", str(path), cwd=folder)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    expected = {"directory": "is a directory, not a file", "fifo": "is a named pipe (FIFO)",
                "missing": "file not found"}[kind]
    assert f"{path}: {expected}" in done.stderr
