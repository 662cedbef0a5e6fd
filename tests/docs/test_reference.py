"""The documentation site builds with ``mkdocs build --strict`` (as CI builds it), and its reference pages,
generated from the code by docs/hooks/reference.py, list every metric family and output that ``genevals metrics``
prints, every declared setting, every status, exit code and command-line option the code has; README.md stays a
landing page of at most 200 lines."""
import html
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest
from support.docs_blocks import DOCS, REPO


def _hook():
    spec = importlib.util.spec_from_file_location("docs_reference_hook", DOCS / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built as CI builds it; mkdocs comes with the docs extra (in test, so tools/setup-tests.sh
    installs it)."""
    if shutil.which("mkdocs") is None and importlib.util.find_spec("mkdocs") is None:
        pytest.fail("mkdocs is not installed: pip install -e '.[docs]' (tools/setup-tests.sh installs it)")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=REPO,
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def _page(site, name: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", (site / "reference" / name / "index.html").read_text("utf-8")))


def _genevals_metrics() -> dict[str, list[str]]:
    """Family -> output names, as ``genevals metrics`` prints them (its validation cards and where-it-holds notes
    left out)."""
    done = subprocess.run([sys.executable, "-m", "genevals", "metrics"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    families: dict[str, list[str]] = {}
    family = None
    for line in done.stdout.splitlines():
        if line and not line.startswith(" "):
            family = line.split()[0]
            families[family] = []
        elif line.startswith("  ") and not line.startswith("   ") and "validation card" not in line \
                and not line.startswith("  where it holds:"):
            families[family].append(line.split()[0])
    return families


def test_the_metrics_reference_lists_every_family_and_output_genevals_metrics_knows(site):
    page = _page(site, "metrics")
    families = _genevals_metrics()
    assert len(families) > 10
    for family, outputs in families.items():
        section = page.split(f"\n{family}¶", 1)
        assert len(section) == 2, f"{family} has no section in the metrics reference"
        body = section[1].split("¶", 1)[0]
        missing = [o for o in outputs if o not in body]
        assert not missing, f"{family}: outputs {missing} are not in the metrics reference"


def test_the_metrics_reference_lists_every_declared_setting(site):
    from genevals.registry import families

    page = _page(site, "metrics")
    # settings declared on the class as SETTINGS = (Setting(...), ...)
    declared = {(cls.family, s.name) for cls in families() for s in cls.SETTINGS}
    assert len(declared) >= 40
    for family, name in declared:
        body = page.split(f"\n{family}¶", 1)[1].split("¶", 1)[0]
        assert name in body, f"{family}.{name} is not in the metrics reference"


def test_the_settings_reference_lists_every_judge_backend_and_engine_setting(site):
    from genevals.engine.arguments import RAY_SETTINGS, SETTINGS as ENGINE
    from genevals.judge.config import SETTINGS as JUDGE, all_backend_settings

    page = _page(site, "settings")
    backends = all_backend_settings()
    assert {"llamacpp", "openai"} <= set(backends)
    for name, declared in backends.items():
        body = page.split(f"Backend {name}¶", 1)[1].split("¶", 1)[0]
        assert all(s.name in body for s in declared), name
    judge = page.split("The judge¶", 1)[1].split("¶", 1)[0]
    assert all(s.name in judge for s in JUDGE)
    engine = page.split("The engine¶", 1)[1]
    assert all(s.name in engine for s in ENGINE + RAY_SETTINGS)


def test_the_statuses_and_exit_codes_pages_list_every_one_the_code_has(site):
    hook = _hook()
    statuses, codes = hook.statuses(), hook.exit_codes()
    assert {"ok", "judge_error", "unsupported_language", "no_citations"} <= set(statuses)
    assert set(hook.STATUS_MEANING) == set(statuses), "the docs describe statuses the code does not have"
    assert set(hook.EXIT_MEANING) == set(codes), "the docs describe exit codes the code does not have"
    page = _page(site, "statuses")
    assert all(f"\n{s}\n{hook.STATUS_MEANING[s].replace('`', '')}" in page.replace("`", "") for s in statuses), page
    page = _page(site, "exit-codes")
    assert all(f"\n{code}\n{name}\n" in page for name, code in codes.items()), page
    assert sorted(codes.values()) == [0, 1, 2, 3, 130]


def test_the_cli_reference_lists_every_option_of_every_subcommand(site):
    hook = _hook()
    from genevals.cli import build_parser

    page = _page(site, "cli")
    missing = [f"{name}: {option}" for name, parser in hook._subparsers(build_parser(), "genevals")
               for action in parser._actions
               if action.help != "==SUPPRESS==" or getattr(action, "hidden_help", None) is not None
               for option in action.option_strings
               if name != "genevals" and option not in page.split(f"\n{name}¶", 1)[1].split("¶", 1)[0]]
    assert not missing, missing


def test_readme_is_a_landing_page():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    for link in re.findall(r"\]\((docs/[^)#]+)\)", text):
        assert (REPO / link).exists(), link
    assert (DOCS / "images" / "report.png").stat().st_size < 300_000


def test_the_results_schema_page_shows_a_line_a_real_run_writes_and_every_record_field(site):
    import dataclasses
    import json

    from genevals import types

    hook = _hook()
    page = _page(site, "results")
    written = hook.example_result()
    shown = json.loads(page[page.index("\n{") + 1:page.index("\n}\n") + 2])
    assert shown == written  # the page's line is what a run writes now, key for key and value for value
    assert {"id", "system", "answer", "contexts", "metrics"} <= set(shown)
    for cls in (types.Sample, types.Context, types.MetricResult, types.Claim, types.Verdict):
        body = page.split(f"\n{cls.__name__}¶", 1)[1]
        assert all(f"\n{f.name}\n" in body for f in dataclasses.fields(cls)), cls.__name__
