import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Bytecode caches (__pycache__/, git-ignored) are written even where PYTHONDONTWRITEBYTECODE is set: without them
# every `python -m genevals` a test starts (hundreds of them) compiles genevals from source again (about 0.3 s of
# CPU each), and every collection rewrites and compiles all test modules again (about 8 s). GENEVALS_TEST_NO_BYTECODE=1
# keeps the setting as it is. Set here, the pytest process writes the test modules' rewritten bytecode too.
if os.environ.get("GENEVALS_TEST_NO_BYTECODE") != "1":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
# Every `genevals run` of the suite (in this process and the ones it starts) records itself in a history of its
# own, never in the user's (~/.local/share/genevals/history.sqlite).
_HISTORY_DIR = tempfile.mkdtemp(prefix="genevals-test-history-")
atexit.register(shutil.rmtree, _HISTORY_DIR, True)
os.environ["GENEVALS_HISTORY"] = os.path.join(_HISTORY_DIR, "history.sqlite")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DEMO = REPO / "datasets" / "demo" / "demo.jsonl"


# `python -m pytest -m "not slow"` runs the quick part of the suite (CONTRIBUTING.md, "Running the tests quickly");
# `.ci/run` runs everything. Slow: the tests that start Chromium (the ``browser`` fixture), and these files and
# folders (paths from tests/), each measured at seconds per test or minutes in all. A test may also be marked
# ``@pytest.mark.slow`` where it stands.
SLOW = (
    "hostile/",  # the hostile corpus: over 4,000 cases, each a real process
    "engine/test_ray.py", "engine/test_ray_rag.py", "engine/test_ray_cluster.py", "cli/test_run_imports.py",  # Ray
    "judge/test_llamacpp.py", "cli/test_llama_server_cli.py", "cli/test_llama_server_repeats.py",  # llama.cpp
    "metrics/citations/test_judged_servers.py", "metrics/triad/test_rag_judges_servers.py",
    "cli/test_fuzz.py", "input/test_readers_fuzz.py",  # atheris fuzzing
    "engine/test_demo_baseline.py",  # the demo run, every metric, against its stored baseline
    "test_install.py", "test_benchmarks_smoke.py",  # a fresh venv from the package index; the benchmarks
    # Measured (2 busy cores) at 9 s or more a file: real `genevals` processes, models, the judge's fault server.
    "report/test_scale.py", "cli/test_adaptive_concurrency.py", "engine/test_pipeline.py",
    "engine/test_resume_judge.py", "judge/batch/test_batch_run.py", "engine/test_input_reads.py", "engine/test_interrupt.py",
    "input/test_language_field.py", "input/traces/test_hostile_exports.py", "input/traces/test_openinference.py",
    "metrics/semantic/test_bertscore.py", "metrics/semantic/test_bertscore_ort.py",
    "metrics/citations/test_planted.py", "metrics/citations/test_hostile_markers.py",
    "metrics/faithfulness/test_grounding.py", "metrics/lexical/test_squad_languages.py",
    "metrics/test_unsupported_language.py", "judge/test_reply_fields_redacted.py", "review/test_server.py",
    "validation/test_validate.py", "cli/test_history.py", "cli/test_history_hardening.py",
    "cli/test_judge_model.py", "cli/test_results_kept.py", "docs/test_examples.py", "docs/test_how_to.py",
    # Measured for issue 48 in CPU seconds (wall time meant little on a machine at load 5 to 13), with the quick
    # loop's own tests: 4 s of CPU or more a file and 0.3 s or more a test, nearly all of it in the `genevals`
    # processes the tests start (about 1 s of CPU each, cold), or a model loaded (the expert and triad cards).
    "cli/test_baseline_inputs.py", "cli/test_citations_cli.py", "cli/test_compare.py",
    "cli/test_compare_few_pairs.py", "cli/test_exit_truth.py", "cli/test_fuse.py", "cli/test_history_tokens.py",
    "cli/test_imports.py", "cli/test_input_hints.py", "cli/test_judge_failures.py", "cli/test_judge_repeats.py",
    "cli/test_jury.py", "cli/test_key_redaction.py", "cli/test_label.py", "cli/test_missing_extra.py",
    "cli/test_offline_judge_note.py", "cli/test_option_checks.py", "cli/test_progress_bars.py",
    "cli/test_quiet_and_ignored.py", "cli/test_run.py", "labels/test_offline_unjudged.py", "language/test_detect.py",
    "cli/test_label_pool_depth.py", "labels/test_card.py",  # issue 52: a model loaded, label and run processes
    "metrics/citations/test_expert_card.py", "metrics/lexical/test_bleu_cli.py",
    "metrics/lexical/test_rouge_languages.py", "metrics/retrieval/test_columnar_cli.py",
    "metrics/retrieval/test_rows_columnar_cli.py", "metrics/rubric/test_rubric_history.py",
    "metrics/triad/test_triad_cards.py", "output/test_languages.py", "output/test_runfolder_conversations.py",
    "report/test_conversations_view.py", "report/test_overview.py", "review/test_hostile_stores.py",
    "review/test_queue_cli.py",
    "cli/test_settings_cli.py", "cli/test_thresholds.py", "conversations/test_errors.py",
    "conversations/test_forms.py", "conversations/test_from_history.py", "conversations/test_stats.py",
    "docs/test_label_relevance.py", "engine/test_conversation_units.py", "grounding/test_detector.py",
    "grounding/test_verdicts_follow_evidence.py", "history/test_file_modes.py", "input/traces/test_sessions.py",
    "testing/test_failures.py", "testing/test_plugin.py", "testing/test_plugin_installed.py",
    "validation/test_begin.py",
    # issue 52: measured at 4 s of CPU or more a file
    "cli/test_output_clobber.py", "judge/test_folded_credentials.py", "language/test_detect_once.py",
    "grounding/test_absent_on_records.py", "language/test_long_inputs.py",
    "metrics/semantic/test_bertscore_hints.py", "history/test_project.py", "review/test_not_in_answer.py",  # 52j
    # issue 52, points 17 and 21: real runs with the encoder and the judge server, the encoder re-deriving rows
    "metrics/faithfulness/test_cascade_domain.py", "metrics/faithfulness/test_turn_overlap.py",
    "metrics/citations/test_offline_choice.py", "grounding/test_domain.py",
    "lifecycle/test_messages.py", "cli/test_runfile_merge.py",  # the README's quick start; six cold processes
    "docs/test_readme_install.py",  # a venv, a run and Chromium
    "language/test_majority.py",
)


def _quick_only(config) -> bool:
    return " ".join(str(config.getoption("markexpr", "") or "").split()) == "not slow"


def pytest_ignore_collect(collection_path, config):
    """Under exactly ``-m "not slow"``, the files and folders of SLOW are not even imported: all their tests would
    be deselected, and importing them costs seconds (torch, BERTScore, sentence-transformers, ONNX, Ray: about
    10 s of CPU). Their tests are then not counted as deselected; every other run collects them as before."""
    if not _quick_only(config):
        return None
    tests = Path(__file__).resolve().parent
    where = Path(collection_path).resolve()
    if not where.is_relative_to(tests):
        return None
    relative = where.relative_to(tests).as_posix() + ("/" if where.is_dir() else "")
    return True if relative.startswith(SLOW) else None


def pytest_configure(config):
    """Every ``subprocess.run([sys.executable, "-m", "genevals", ...])`` of a test is forked from one warm process
    (tests/support/forked.py: a real process of its own, started in milliseconds instead of about 0.8 s of CPU)
    when nothing about the call needs a fresh interpreter; ``GENEVALS_TEST_SPAWN=1`` starts each one cold."""
    from support import forked

    forked.install()


def pytest_unconfigure(config):
    from support import forked

    forked.uninstall()


# Under pytest-xdist (`-n auto --dist loadfile --no-loadscope-reorder`) files are handed to the workers in
# collection order: these, the longest (wall time measured in a whole run on 2 cores, load about 5), go first, the
# longest first, so that no worker is left with a long file at the end while the other has nothing to do. The hostile
# corpus (tests/hostile/conftest.py) goes before them all.
HEAVY = (
    "docs/test_local_judge_server.py", "lifecycle/test_messages.py", "metrics/faithfulness/test_turn_overlap.py",
    "metrics/faithfulness/test_cascade_domain.py", "labels/test_card.py", "language/test_majority.py",
    "metrics/citations/test_offline_choice.py", "grounding/test_domain.py",
    "judge/test_llamacpp.py", "cli/test_llama_server_repeats.py", "report/test_overview.py",
    "docs/test_examples.py", "engine/test_ray.py", "metrics/triad/test_rag_judges_servers.py", "test_install.py",
    "engine/test_ray_cluster.py", "report/test_scale.py", "cli/test_llama_server_cli.py", "cli/test_label_llama.py",
    "metrics/citations/test_judged_servers.py", "engine/test_ray_rag.py", "validation/test_validate.py",
    "engine/test_demo_baseline.py", "cli/test_option_checks.py", "test_api.py", "cli/test_label.py",
    "cli/test_progress_bars.py", "docs/test_how_to.py", "cli/test_adaptive_concurrency.py",
)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by the markers
def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).resolve().parent
    rank = {}
    for item in items:
        where = Path(str(item.path)).resolve()
        relative = where.relative_to(tests).as_posix() if where.is_relative_to(tests) else ""
        if "browser" in getattr(item, "fixturenames", ()) or relative.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
        rank[id(item)] = HEAVY.index(relative) if relative in HEAVY else len(HEAVY)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: rank[id(item)])  # stable: each file's tests keep their order


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture
def isolated_registry():
    """Metrics a test registers are forgotten after it, so no other test sees them."""
    from genevals import registry
    from genevals.metrics import base

    # Discover the packaged metrics first: discovered during the test, they would be forgotten with its own.
    registry.families()
    before = dict(base._FAMILIES)
    yield
    base._FAMILIES.clear()
    base._FAMILIES.update(before)


def pytest_terminal_summary(terminalreporter):
    """Show how many fuzz cases ran, even under -q, where passing tests' output is hidden."""
    lines = []
    for report in terminalreporter.stats.get("passed", []):
        lines += [line for line in report.capstdout.splitlines() if line.startswith("fuzz")]
    if lines:
        terminalreporter.write_sep("-", "fuzz cases tried")
        for line in lines:
            terminalreporter.write_line(line)


# Headless Chromium for every browser test (report, review, CLI): Python Playwright, sync API. The ``browser``
# fixture FAILS its tests, with the instruction that fixes it, when Chromium (``GENEVALS_CHROMIUM``, default
# /usr/bin/chromium) or playwright is missing: a browser test that silently skips proves nothing.
# ``bash tools/setup-tests.sh`` (the README's test setup, also run by CI) installs both.
CHROMIUM = os.environ.get("GENEVALS_CHROMIUM", "/usr/bin/chromium")
MISSING = ("headless Chromium is needed for the report's browser tests; run `bash tools/setup-tests.sh` (or "
           "`apt-get install chromium` and `pip install -e .[test]`), or set GENEVALS_CHROMIUM to a Chromium binary")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{MISSING}: {CHROMIUM} not found", pytrace=False)
    try:
        from playwright import sync_api
    except ImportError:
        pytest.fail(f"{MISSING}: the playwright package is not installed", pytrace=False)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
