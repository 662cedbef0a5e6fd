"""The command line reaches every metric setting through ``--set FAMILY.KEY=VALUE`` and every judge setting through
``--judge-option KEY=VALUE`` (issue 36); ``genevals run --help`` stays short and points at ``genevals metrics NAME``,
which lists a family's settings from its declarations. Real processes, as a user meets them."""
import json
import re
import subprocess
import sys

import pytest

from genevals import registry


def genevals(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture()
def data(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "1", "answer": "the cats are running", "references": ["the cat runs"]}) + "\n")
    return path


def _stemmer(out):
    return set(re.findall(r"stemmer:[a-z]+", (out / "summary.json").read_text()))


def test_run_help_lists_at_most_25_options_and_one_line_per_family():
    done = genevals("run", "--help")
    assert done.returncode == 0
    options = re.findall(r"^  (-[-\w]+)", done.stdout, re.M)
    assert len(options) <= 25, options
    assert "--set" in options and "--judge-option" in options and "--stem" not in options
    for cls in registry.families():
        assert re.search(rf"^  genevals metrics {cls.family} ", done.stdout, re.M), cls.family
    assert "examples:" in done.stdout and "--set rouge.use_stemmer=true" in done.stdout


def test_metrics_name_lists_the_family_s_settings():
    done = genevals("metrics", "rouge")
    assert done.returncode == 0
    assert re.search(r"use_stemmer\s+bool\s+default False: Porter stemming", done.stdout)
    assert "bleu" not in done.stdout.split()  # that family only
    retrieval = genevals("metrics", "retrieval").stdout
    assert re.search(r"cutoffs\s+list\[int\]\s+default \(1, 3, 5, 10\) \[from 1 to 10,000\]", retrieval)
    assert "level" in retrieval and "[auto, chunk, doc]" in retrieval
    wrong = genevals("metrics", "retrievl")
    assert wrong.returncode == 2 and "did you mean 'retrieval'?" in wrong.stderr


def test_set_sets_a_setting_and_wins_over_the_flag(tmp_path, data):
    flag = genevals("run", str(data), "--out", str(tmp_path / "flag"), "--no-history", "-q", "-m", "rouge", "--stem")
    assert flag.returncode == 0, flag.stderr
    assert _stemmer(tmp_path / "flag") == {"stemmer:porter"}
    both = genevals("run", str(data), "--out", str(tmp_path / "both"), "--no-history", "-q", "-m", "rouge", "--stem",
                    "--set", "rouge.use_stemmer=false")
    assert both.returncode == 0 and _stemmer(tmp_path / "both") == {"stemmer:no"}
    set_only = genevals("run", str(data), "--out", str(tmp_path / "set"), "--no-history", "-q", "-m", "rouge",
                        "--set", "rouge.use_stemmer=true")
    assert set_only.returncode == 0 and _stemmer(tmp_path / "set") == {"stemmer:porter"}
    assert ((tmp_path / "flag" / "results.jsonl").read_text().splitlines()
            == (tmp_path / "set" / "results.jsonl").read_text().splitlines())


@pytest.mark.parametrize("setting,message", [
    ("rouge.stem=true", "rouge.stem: unknown setting (did you mean 'use_stemmer'?)"),
    ("rogue.use_stemmer=true", "unknown metric family 'rogue' (did you mean 'rouge'?)"),
    ("use_stemmer=true", "expected FAMILY.KEY=VALUE"),
    ("retrieval.cutoffs=0,5", "retrieval.cutoffs: expected a whole number from 1 to 10,000, got 0"),
    ("cascade.grounding={}", "cascade.grounding: cannot be set from the command line"),
])
def test_a_bad_set_exits_2_naming_it(tmp_path, data, setting, message):
    done = genevals("run", str(data), "--out", str(tmp_path / "o"), "--no-history", "--set", setting)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_judge_option_on_run_checks_its_keys_and_values(tmp_path, data):
    misspelt = genevals("run", str(data), "--out", str(tmp_path / "o"), "--no-history", "-m", "rouge",
                        "--judge-option", "timeot=3")
    assert misspelt.returncode == 2 and "--judge-option timeot: unknown judge setting (did you mean 'timeout'?)" \
        in misspelt.stderr
    bad = genevals("run", str(data), "--out", str(tmp_path / "o"), "--no-history", "-m", "rouge",
                   "--judge-option", "max_claims=0")
    assert bad.returncode == 2 and "max_claims: expected a whole number 1 or more, got 0" in bad.stderr
    good = genevals("run", str(data), "--out", str(tmp_path / "o"), "--no-history", "-q", "-m", "rouge",
                    "--judge-option", "timeout=3", "--judge-option", "fuzzy_threshold=80")
    assert good.returncode == 0, good.stderr


def test_validate_takes_set_for_the_family_it_scores(tmp_path):
    rows = tmp_path / "labelled.jsonl"
    rows.write_text(json.dumps({"context": "Paris is in France.", "response": "Paris is in France.",
                                "hallucinated": False}) + "\n")
    wrong = genevals("validate", str(rows), "--out", str(tmp_path / "o"), "--quiet", "--set", "rouge.use_stemmer=true")
    assert wrong.returncode == 2 and "--set rouge.use_stemmer: --judge local scores with grounding" in wrong.stderr
    bad = genevals("validate", str(rows), "--out", str(tmp_path / "o"), "--quiet", "--set", "grounding.method=rule")
    assert bad.returncode == 2 and "grounding.method: unknown value 'rule' (did you mean 'rules'?)" in bad.stderr


def test_the_help_s_examples_parse():
    import shlex

    from genevals.cli import build_parser
    from genevals.cli.run_help import EXAMPLES

    commands = " ".join(EXAMPLES.replace("\\\n", " ").splitlines()[1:]).split("genevals ")[1:]
    assert len(commands) == 3
    for command in commands:
        args = build_parser().parse_args(shlex.split(command))
        assert args.input == "answers.jsonl"


def test_validate_set_reaches_the_metric(tmp_path):
    rows = tmp_path / "labelled.jsonl"
    rows.write_text(json.dumps({"context": "Paris is in France.", "response": "Paris is in France.",
                                "hallucinated": False}) + "\n")
    done = genevals("validate", str(rows), "--out", str(tmp_path / "o"), "--quiet", "--resamples", "10",
                    "--set", "grounding.method=rules", timeout=180)
    assert done.returncode == 0, done.stderr
    signature = json.loads((tmp_path / "o" / "validation.json").read_text())["metric_signature"]
    assert "thresholds:" in signature and "method:learned" not in signature  # the rules, not the detector


def test_validate_help_is_short_and_its_examples_parse():
    import shlex

    from genevals.cli import build_parser
    from genevals.cli.run_help import VALIDATE_EXAMPLES

    done = genevals("validate", "--help")
    assert done.returncode == 0
    options = re.findall(r"^  (-[-\w]+)", done.stdout, re.M)
    assert len(options) <= 15, options
    assert "--judge-option" in options and "--judge-timeout" not in options
    assert "genevals metrics judge" in done.stdout
    lines = [line.split("  #")[0] for line in VALIDATE_EXAMPLES.splitlines() if line.startswith("  genevals ")]
    assert len(lines) == 2
    for line in lines:
        args = build_parser().parse_args(shlex.split(line)[1:])
        assert args.input == "labels.jsonl"
    hidden = genevals("validate", "x.jsonl", "-o", "o", "--judge-timeout", "0")  # hidden, still accepted and checked
    assert hidden.returncode == 2 and "argument --judge-timeout: expected a number above 0, got 0" in hidden.stderr


def test_metrics_judge_lists_the_judge_s_and_each_backend_s_settings():
    from genevals.judge.config import SETTINGS, all_backend_settings

    done = genevals("metrics", "judge")
    assert done.returncode == 0, done.stderr
    for setting in SETTINGS:
        assert re.search(rf"^    {setting.name}\s", done.stdout, re.M), setting.name
    for backend, declared in all_backend_settings().items():
        part = done.stdout.split(f"backend {backend}'s own settings", 1)[1]
        assert all(re.search(rf"^    {s.name}\s", part, re.M) for s in declared), backend
    assert re.search(r"n_ctx\s+int\s+default 4096 \[from 512 to 1,048,576\]", done.stdout)


def test_validate_s_seed_is_declared_as_the_engine_s():
    """validate declares its seed without importing the engine (numpy) for --help; the limits are the same."""
    from genevals.cli.validate import SETTINGS
    from genevals.engine.arguments import MAX_SEED, SETTINGS as ENGINE
    from genevals.stats import DEFAULT_SEED

    seed = next(s for s in SETTINGS if s.name == "seed")
    engine = next(s for s in ENGINE if s.name == "seed")
    assert (seed.minimum, seed.maximum, seed.default) == (engine.minimum, engine.maximum, engine.default) == (
        0, MAX_SEED, DEFAULT_SEED)
