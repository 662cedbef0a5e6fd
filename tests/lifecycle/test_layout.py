"""The shape issue 48 set, kept: the command's run function drives the lifecycle and no more (at most 60
lines), the pytest side reaches the lifecycle without the command line, and no module grows past 400 lines."""
import inspect
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "genevals"
LONGEST = 400


def test_cmd_run_only_drives_the_lifecycle():
    from genevals.cli.run import cmd_run

    lines = inspect.getsource(cmd_run).splitlines()
    assert len(lines) <= 60, f"cmd_run is {len(lines)} lines"
    assert "Lifecycle(" in inspect.getsource(cmd_run)


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > LONGEST}
    assert not long, f"modules over {LONGEST} lines: {long}"


def test_the_testing_side_imports_no_command_line_module():
    """``import genevals.testing`` and a passing ``assert_scores`` (gates, report, verdict) in a fresh process."""
    code = """
import sys, tempfile
import genevals.testing
from genevals.testing import assert_scores
out = tempfile.mkdtemp()
results = assert_scores([{"id": "a", "answer": "x y", "references": ["x y"]}], ["token_f1"],
                        fail_under={"token_f1": 0.5}, out_dir=out, report=True)
assert results.verdict.passed and results.verdict.report is not None
print(sorted(m for m in sys.modules if m == "genevals.cli" or m.startswith("genevals.cli.")))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
