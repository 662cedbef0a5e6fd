"""Cases: the pytest plugin and ``assert_scores`` (issue 34), with hostile arguments.

Two kinds, both API cases (one expression in its own process, :mod:`hostile.api_driver`):

- ``assert_scores`` called directly through :func:`call`, which turns a failed test (an AssertionError: a missed
  gate, a metric that scored nothing, a judge that failed) into a ValueError saying ``failed the test`` and
  its message, so the runner can tell it from a returned result; a refused argument stays the ValueError or
  TypeError it is, and anything else (AttributeError, OverflowError...) is a traceback the runner reports;
- a real ``python -m pytest`` on a generated test file through :func:`pytest_run`, whose outcome becomes a
  returned string (every test passed), a ValueError (``failed the test: TYPE: message`` or ``refused: TYPE:
  message``, for a test that failed or an argument refused by a ValueError, TypeError or pytest's UsageError),
  or a RuntimeError (any other exception in a test: a traceback inside genevals; pytest's internal error; a
  hang; raw control characters in pytest's output).

The judge: unreachable (``http://127.0.0.1:9/v1``), a :class:`support.fault_server.FaultServer` started by the
case itself in one of its faulty modes, or ``{judge}`` (the corpus's fault server when the judge class runs
too, else the unreachable address: those cases expect what both give).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hostile.cases import ANY, GOOD_ROWS, OK, REFUSED, Case

REPO = Path(__file__).resolve().parents[2]
UNREACHABLE = "http://127.0.0.1:9/v1"
KEY = "sk-hostile-plugin-0123456789"
FAILED, REFUSES = "failed the test", "refused"
#: a failure message longer than this buries what failed
LONGEST_MESSAGE = 20_000
#: this module, as an API case's expression reaches it
ME = '__import__("hostile.cases_plugin", fromlist=["_"])'
#: rows the judge reads (faithfulness): answers checkable against their contexts
JUDGED = [{"id": "ok", "answer": "Paris is in France.", "contexts": ["Paris is in France."]},
          {"id": "bad", "answer": "Paris is in France. The moon is cheese.", "contexts": ["Paris is in France."]}]


# ------------------------------------------------------------------ helpers the expressions call

def judged(marker: str = "") -> list[dict]:
    """:data:`JUDGED` with ``marker`` (a FaultServer fault) added to every answer."""
    return [{**row, "answer": f"{row['answer']} {marker}".strip()} for row in JUDGED]


def _failed(exc: AssertionError) -> ValueError:
    return ValueError(f"{FAILED}: {type(exc).__name__}: {exc}")


def call(*args: Any, **kwargs: Any) -> Any:
    """``assert_scores(*args, **kwargs)``; a failed test (an AssertionError) as a ValueError saying so."""
    from genevals.testing import assert_scores

    try:
        return assert_scores(*args, **kwargs)
    except AssertionError as exc:
        if len(str(exc)) > LONGEST_MESSAGE:
            raise RuntimeError(f"a failure message of {len(str(exc))} characters") from None
        raise _failed(exc) from None


def faulty(tmp: str, marker: str = "", *, metrics=("faithfulness",), server: dict | None = None,
           judge: dict | None = None, **kwargs: Any) -> Any:
    """:func:`call` on :data:`JUDGED` rows (``marker`` added to every answer) against a FaultServer of its own
    (``server``: its settings), judged without retries and without the cache."""
    sys.path.insert(0, str(REPO / "tests"))
    from support.fault_server import FaultServer

    rows = judged(marker)
    with FaultServer(**(server or {})) as fault:
        settings = {"base_url": fault.base_url, "model": "judge", "api_key": KEY, "max_retries": 0,
                    "timeout": 2.0, "cache": False, **(judge or {})}
        return call(rows, list(metrics), judge=settings, out_dir=os.path.join(tmp, "run"), **kwargs)


CONFTEST = '''
import json

import pytest

SEEN = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    if call.excinfo is not None:
        exc = call.excinfo.value
        SEEN.append({"test": item.name, "when": call.when, "type": type(exc).__name__,
                     "bases": [cls.__name__ for cls in type(exc).__mro__], "message": str(exc)[:3000]})
    elif call.when == "call":
        SEEN.append({"test": item.name, "when": "call", "type": None})


def pytest_sessionfinish(session, exitstatus):
    with open("_outcomes.json", "w", encoding="utf-8") as handle:
        json.dump(SEEN, handle)
'''

HEADER = f'''
import pytest

from genevals.testing import assert_scores

ROWS = {list(GOOD_ROWS)!r}
JUDGED = {JUDGED!r}
UNREACHABLE = {UNREACHABLE!r}
'''


def pytest_run(tmp: str, source: str, *args: str, judge: str | None = None, fault: dict | None = None,
               files: dict | None = None, cache: str | None = None, limit: float = 20.0) -> str:
    """Run ``python -m pytest`` on ``source`` (after :data:`HEADER`; ``JUDGE`` names ``judge``, or the URL of a
    FaultServer started here with the settings ``fault``) in ``tmp``, without pytest's cache (or with it in
    ``cache``, relative to ``tmp``), and judge its outcome (see the module's docstring)."""
    if fault is not None:
        sys.path.insert(0, str(REPO / "tests"))
        from support.fault_server import FaultServer

        with FaultServer(**fault) as server:
            return pytest_run(tmp, source, *args, judge=server.base_url, files=files, cache=cache, limit=limit)
    folder = Path(tmp)
    (folder / "conftest.py").write_text(CONFTEST)
    (folder / "test_hostile.py").write_text(HEADER + f"JUDGE = {judge or UNREACHABLE!r}\n" + source)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OPENAI_", "GENEVALS_JUDGE"))}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests"), env.get("PYTHONPATH", "")]))
    argv = [sys.executable, "-m", "pytest", *(("-o", f"cache_dir={cache}") if cache else ("-p", "no:cacheprovider")),
            "-p", "genevals.testing.plugin", "-q",
            "--color=no", "-rN", "-W", "ignore::UserWarning", "test_hostile.py", *args]
    try:
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=limit,
                              errors="replace")
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"pytest hung: killed after {limit:g} s") from None
    output = done.stdout + done.stderr
    if done.returncode == 3 or "INTERNALERROR" in output:
        raise RuntimeError(f"pytest internal error (exit {done.returncode}): {output[-1500:]}")
    if done.returncode == 4:
        raise ValueError(f"{REFUSES}: pytest usage error: {output[-1500:]}")
    if done.returncode not in (0, 1) or not (folder / "_outcomes.json").is_file():
        raise RuntimeError(f"pytest exited {done.returncode} without running the tests: {output[-1500:]}")
    if any(c in output for c in "\x1b\x00\x07\x9b"):
        raise RuntimeError("raw control characters (ESC, NUL, BEL, CSI) in pytest's output")
    seen = json.loads((folder / "_outcomes.json").read_text(encoding="utf-8"))
    said = []
    for outcome in seen:
        if outcome["type"] is None:
            continue
        bases, shown = outcome["bases"], f"{outcome['type']}: {outcome['message']}"
        if "AssertionError" in bases or outcome["type"] == "Failed":
            said.append(f"{FAILED}: {shown}")
        elif {"ValueError", "TypeError", "UsageError"} & set(bases):
            said.append(f"{REFUSES} ({outcome['when']}): {shown}")
        else:
            raise RuntimeError(f"traceback in {outcome['test']} ({outcome['when']}): {shown[:1500]}")
    if said:
        raise ValueError("\n".join(said))
    return f"passed {sum(1 for o in seen if o['when'] == 'call')}"


# ------------------------------------------------------------------ assert_scores, called directly

#: ``call(ROWS, ["token_f1"], ...)``: the arguments (a Python expression's text), expect, where
T = '["token_f1"]'
PLACEHOLDER = "{'base_url': '{judge}', 'model': 'judge', 'max_retries': 0, 'cache': False}"
DIRECT = {
    # fail_under / fail_over as a whole: a mapping of metric -> limit, nothing else
    "fail-under-none": (f"ROWS, {T}, fail_under=None", OK, ()),
    "fail-under-empty-dict": (f"ROWS, {T}, fail_under={{}}", OK, ()),
    "fail-under-list": (f"ROWS, {T}, fail_under=['token_f1']", REFUSED, ("fail_under", "list")),
    "fail-under-empty-list": (f"ROWS, {T}, fail_under=[]", REFUSED, ("fail_under", "list")),
    "fail-under-list-of-pairs": (f"ROWS, {T}, fail_under=[('token_f1', 0.5)]", REFUSED, ("fail_under",)),
    "fail-under-string": (f"ROWS, {T}, fail_under='token_f1'", REFUSED, ("fail_under", "str")),
    "fail-under-cli-string": (f"ROWS, {T}, fail_under='token_f1=0.5'", REFUSED, ("fail_under",)),
    "fail-under-empty-string": (f"ROWS, {T}, fail_under=''", REFUSED, ("fail_under",)),
    "fail-under-number": (f"ROWS, {T}, fail_under=0.5", REFUSED, ("fail_under", "float")),
    "fail-under-set": (f"ROWS, {T}, fail_under={{'token_f1'}}", REFUSED, ("fail_under",)),
    "fail-under-bytes": (f"ROWS, {T}, fail_under=b'token_f1'", REFUSED, ("fail_under",)),
    "fail-under-dataframe": (f"ROWS, {T}, fail_under=pd.DataFrame({{'token_f1': [0.5]}})", REFUSED,
                             ("fail_under",)),
    "fail-over-list": (f"ROWS, {T}, fail_over=['contradiction_rate']", REFUSED, ("fail_over", "list")),
    "fail-over-string": (f"ROWS, {T}, fail_over='contradiction_rate=0.1'", REFUSED, ("fail_over",)),
    "mapping-proxy": (f"ROWS, {T}, fail_under=__import__('types').MappingProxyType({{'token_f1': 0}})", OK, ()),
    # a limit: a finite number inside the metric's range
    "limit-zero": (f"ROWS, {T}, fail_under={{'token_f1': 0}}", OK, ()),
    "limit-numpy": (f"ROWS, {T}, fail_under={{'token_f1': np.float32(0.1)}}", OK, ()),
    "limit-fraction": (f"ROWS, {T}, fail_under={{'token_f1': __import__('fractions').Fraction(1, 10)}}", OK, ()),
    "limit-nan": (f"ROWS, {T}, fail_under={{'token_f1': float('nan')}}", REFUSED, ("fail_under", "token_f1")),
    "limit-numpy-nan": (f"ROWS, {T}, fail_under={{'token_f1': np.nan}}", REFUSED, ("fail_under", "token_f1")),
    "limit-inf": (f"ROWS, {T}, fail_under={{'token_f1': float('inf')}}", REFUSED, ("fail_under", "token_f1")),
    "limit-minus-inf": (f"ROWS, {T}, fail_under={{'token_f1': -float('inf')}}", REFUSED, ("fail_under",)),
    "limit-negative": (f"ROWS, {T}, fail_under={{'token_f1': -0.1}}", REFUSED, ("fail_under", "token_f1")),
    "limit-above-one": (f"ROWS, {T}, fail_under={{'token_f1': 1.5}}", REFUSED, ("fail_under", "token_f1")),
    "limit-huge": (f"ROWS, {T}, fail_under={{'token_f1': 1e308}}", REFUSED, ("fail_under", "token_f1")),
    "limit-5000-digits": (f"ROWS, {T}, fail_under={{'token_f1': 10 ** 5000}}", REFUSED, ("fail_under", "token_f1")),
    "limit-minus-5000-digits": (f"ROWS, {T}, fail_under={{'token_f1': -10 ** 5000}}", REFUSED, ("fail_under",)),
    "limit-string": (f"ROWS, {T}, fail_under={{'token_f1': '0.5'}}", REFUSED, ("fail_under", "token_f1")),
    "limit-empty-string": (f"ROWS, {T}, fail_under={{'token_f1': ''}}", REFUSED, ("fail_under", "token_f1")),
    "limit-none": (f"ROWS, {T}, fail_under={{'token_f1': None}}", REFUSED, ("fail_under", "token_f1")),
    "limit-list": (f"ROWS, {T}, fail_under={{'token_f1': [0.5]}}", REFUSED, ("fail_under", "token_f1")),
    "limit-dict": (f"ROWS, {T}, fail_under={{'token_f1': {{'limit': 0.5}}}}", REFUSED, ("fail_under", "token_f1")),
    "limit-true": (f"ROWS, {T}, fail_under={{'token_f1': True}}", REFUSED, ("fail_under", "token_f1")),
    "limit-false": (f"ROWS, {T}, fail_under={{'token_f1': False}}", REFUSED, ("fail_under", "token_f1")),
    "limit-complex": (f"ROWS, {T}, fail_under={{'token_f1': 1j}}", REFUSED, ("fail_under", "token_f1")),
    "limit-decimal-nan": (f"ROWS, {T}, fail_under={{'token_f1': __import__('decimal').Decimal('NaN')}}",
                          REFUSED, ("fail_under", "token_f1")),
    "over-nan": (f"ROWS, {T}, fail_over={{'contradiction_rate': float('nan')}}", REFUSED,
                 ("fail_over", "contradiction_rate")),
    "over-negative": (f"ROWS, {T}, fail_over={{'contradiction_rate': -1}}", REFUSED,
                      ("fail_over", "contradiction_rate")),
    "over-above-one": (f"ROWS, {T}, fail_over={{'contradiction_rate': 2}}", REFUSED,
                       ("fail_over", "contradiction_rate")),
    "over-string": (f"ROWS, {T}, fail_over={{'contradiction_rate': 'low'}}", REFUSED, ("fail_over",)),
    # metric names
    "name-typo": (f"ROWS, {T}, fail_under={{'token_f2': 0.5}}", REFUSED, ("fail_under", "token_f2", "token_f1")),
    "name-case": (f"ROWS, {T}, fail_under={{'TOKEN_F1': 0.5}}", REFUSED, ("fail_under", "token_f1")),
    "name-empty": (f"ROWS, {T}, fail_under={{'': 0.5}}", REFUSED, ("fail_under", "unknown metric")),
    "name-space": (f"ROWS, {T}, fail_under={{' token_f1': 0.5}}", REFUSED, ("fail_under",)),
    "name-5000-chars": (f"ROWS, {T}, fail_under={{'x' * 5000: 0.5}}", REFUSED, ("fail_under", "unknown metric")),
    "name-escape": (f"ROWS, {T}, fail_under={{'\\x1b[31mred': 0.5}}", REFUSED, ("fail_under",)),
    "name-nul": (f"ROWS, {T}, fail_under={{'token_f1\\x00': 0.5}}", REFUSED, ("fail_under",)),
    "name-int": (f"ROWS, {T}, fail_under={{1: 0.5}}", REFUSED, ("fail_under",)),
    "name-none": (f"ROWS, {T}, fail_under={{None: 0.5}}", REFUSED, ("fail_under",)),
    "name-tuple": (f"ROWS, {T}, fail_under={{('token_f1',): 0.5}}", REFUSED, ("fail_under",)),
    "wrong-direction-over": (f"ROWS, {T}, fail_over={{'token_f1': 0.5}}", REFUSED, ("fail_over", "fail_under")),
    "wrong-direction-under": (f"ROWS, {T}, fail_under={{'contradiction_rate': 0.1}}", REFUSED,
                              ("fail_under", "fail_over")),
    "not-computed-gate": (f"ROWS, {T}, fail_under={{'mrr': 0.5}}", REFUSED, ("mrr",)),
    # worst, max_judge_errors
    "worst-zero": (f"ROWS, {T}, worst=0", OK, ()),
    "worst-string": (f"ROWS, {T}, worst='5'", REFUSED, ("worst",)),
    "worst-float": (f"ROWS, {T}, worst=1.5", REFUSED, ("worst",)),
    "mje-zero": (f"ROWS, {T}, max_judge_errors=0", OK, ()),
    "mje-one": (f"ROWS, {T}, max_judge_errors=1", OK, ()),
    "mje-negative": (f"ROWS, {T}, max_judge_errors=-0.1", REFUSED, ("max_judge_errors",)),
    "mje-above-one": (f"ROWS, {T}, max_judge_errors=1.5", REFUSED, ("max_judge_errors",)),
    "mje-string": (f"ROWS, {T}, max_judge_errors='0.1'", REFUSED, ("max_judge_errors",)),
    # metrics, data, the rest of evaluate's arguments, and names assert_scores does not take
    "metrics-int": ("ROWS, 5", REFUSED, ("metrics",)),
    "data-none": (f"None, {T}", REFUSED, ("data",)),
    "data-int": (f"5, {T}", REFUSED, ("data",)),
    "metrics-generator": (f"ROWS, (m for m in {T})", OK, ()),
    "metrics-generator-unscored": (f"[{{'id': 'a', 'answer': 'x'}}], (m for m in {T})", REFUSED,
                                   (FAILED, "token_f1 scored no sample")),
    "metrics-typo": ("ROWS, ['tokn_f1']", REFUSED, ("tokn_f1", "token_f1")),
    "metrics-list-of-none": ("ROWS, [None]", REFUSED, ("metrics",)),
    "metrics-empty": ("ROWS, []", REFUSED, ("metrics",)),
    "metrics-dict": ("ROWS, {'token_f1': 1}", ANY, ("metrics",)),
    "data-missing-file": (f"TMP + '/nosuch.jsonl', {T}", REFUSED, ("nosuch.jsonl",)),
    "data-empty-list": (f"[], {T}", REFUSED, ("no rows",)),
    "data-dict": (f"{{'answer': 'x'}}, {T}", REFUSED, ("data",)),
    "unknown-argument": (f"ROWS, {T}, fail_undr={{'token_f1': 0.5}}", REFUSED, ("fail_undr", "fail_under")),
    "unknown-argument-worst": (f"ROWS, {T}, worts=3", REFUSED, ("worts", "worst")),
    "unknown-argument-judges": (f"ROWS, {T}, judges={{}}", REFUSED, ("judges", "judge")),
    "keep-samples-false": (f"ROWS, {T}, keep_samples=False", OK, ()),
    "judge-string": (f"ROWS, {T}, judge='gpt-4o'", REFUSED, ("judge",)),
    "judge-config-class": (f"ROWS, {T}, judge=JudgeConfig", REFUSED, ("judge",)),
    "judge-bad-field": (f"ROWS, {T}, judge={{'modle': 'x'}}", REFUSED, ("modle",)),
    "judge-url-int": (f"ROWS, {T}, judge={{'base_url': 5}}", REFUSED, ("base_url",)),
    "judge-preflight-string": (f"ROWS, {T}, judge={{'preflight': 'yes'}}", REFUSED, ("preflight",)),
    "out-dir-empty": (f"ROWS, {T}, out_dir=''", REFUSED, ("out_dir",)),
    "on-error-bad": (f"ROWS, {T}, on_error='ignore'", REFUSED, ("on_error",)),
    # what the command line exits 1 on: a metric asked for that scored nothing
    "unscored-no-references": (f"[{{'id': 'a', 'answer': 'x'}}], {T}", REFUSED, (FAILED, "token_f1")),
    "unscored-every-row-skipped": (f"[{{'id': 'a', 'answer': 5}}], {T}, on_error='skip'", REFUSED,
                                   (FAILED, "skipped")),
    "unscored-one-of-two": ("[{'id': 'a', 'answer': 'x'}], ['token_f1', 'mrr']", REFUSED, (FAILED,)),
    "gate-missed-2000-systems": ("[{**ROWS[0], 'id': 'q', 'system': f's{i}', 'answer': 'x'} for i in range(2000)], "
                                 f"{T}, fail_under={{'token_f1': 0.5}}, worst=1", REFUSED, (FAILED, "token_f1")),
    "gate-missed-long-answers": ("[{**r, 'answer': 'x ' * 100_000} for r in ROWS], "
                                 f"{T}, fail_under={{'token_f1': 0.5}}", REFUSED, (FAILED, "token_f1")),
    "gate-missed": (f"ROWS, {T}, fail_under={{'token_f1': 0.99}}", REFUSED, (FAILED, "token_f1")),
    # what it exits 2 and 3 on: a judge that cannot answer, or failed on more than max_judge_errors
    "unreachable-no-gate": (f"{ME}.JUDGED, ['faithfulness'], judge={{'base_url': {UNREACHABLE!r}, 'model': 'm'}}",
                            REFUSED, (FAILED, "judge", UNREACHABLE)),
    "unreachable-no-model": (f"{ME}.JUDGED, ['faithfulness'], judge={{'base_url': {UNREACHABLE!r}}}", REFUSED,
                             (FAILED, "judge")),
    "unreachable-with-gate": (f"{ME}.JUDGED, ['faithfulness'], judge={{'base_url': {UNREACHABLE!r}, 'model': 'm'}}, "
                              "fail_under={'faithfulness': 0}", REFUSED, (FAILED, "judge")),
    "unreachable-with-cheap": (f"{ME}.JUDGED, ['faithfulness', 'token_f1'], judge={{'base_url': {UNREACHABLE!r}, "
                               "'model': 'm'}", REFUSED, (FAILED, "judge")),
    "unreachable-config": (f"{ME}.JUDGED, ['faithfulness'], judge=JudgeConfig(base_url={UNREACHABLE!r}, model='m', "
                           "max_retries=0)", REFUSED, (FAILED, "judge_error")),
    "unreachable-config-lenient": (f"{ME}.JUDGED, ['faithfulness'], judge=JudgeConfig(base_url={UNREACHABLE!r}, "
                                   "model='m', max_retries=0), max_judge_errors=1", REFUSED,
                                   (FAILED, "faithfulness")),
    "unreachable-no-preflight": (f"{ME}.JUDGED, ['faithfulness'], judge={{'base_url': {UNREACHABLE!r}, 'model': 'm', "
                                 "'preflight': False, 'max_retries': 0}", REFUSED, (FAILED, "judge")),
    "judge-placeholder-500": (f"{ME}.judged('FAULT500'), ['faithfulness'], judge={PLACEHOLDER}", REFUSED,
                              (FAILED, "judge")),
    "judge-placeholder-malformed": (f"{ME}.judged('FAULTMALFORMED'), ['faithfulness'], judge={PLACEHOLDER}",
                                    REFUSED, (FAILED, "judge")),
}

#: every parameter x hostile values: value slug -> expression
VALUES = {"none": "None", "list": "[1]", "dict": "{'a': 1}", "string": "'x'", "nan": "float('nan')",
          "inf": "float('inf')", "negative": "-1", "huge": "1e308", "5000-digits": "10 ** 5000", "true": "True"}
#: assert_scores's own parameters -> the values it takes (the rest are refused, naming the parameter)
OWN = {"fail_under": ("none",), "fail_over": ("none",), "worst": ("5000-digits",), "max_judge_errors": ()}
#: genevals.evaluate's, passed through -> the values it takes, among the first six; evaluate's own mistakes with
#: 5,000 digits are left out here (chunk_size: islice's ValueError; seed: taken, then the summary cannot be
#: written as JSON)
PASSED = {"options": ("none",), "column_map": ("none",), "seed": (), "workers": ("none",),
          "chunk_size": ("none",), "meta": ("none",), "judge": ("none",), "out_dir": ("none", "string"),
          "progress": ("none",)}
FIRST_SIX = ("none", "list", "string", "nan", "5000-digits", "true")


def matrix() -> list[Case]:
    found = []
    for table, values in ((OWN, tuple(VALUES)), (PASSED, FIRST_SIX)):
        for name, takes in table.items():
            for value in values:
                if name in ("chunk_size", "seed") and value == "5000-digits":
                    continue
                expression = VALUES[value] if value != "string" or name != "out_dir" else "TMP + '/run'"
                found.append(Case(id=f"plugin-matrix-{name}-{value}", cls="plugin",
                                  expect=OK if value in takes else REFUSED, where=() if value in takes else (name,),
                                  api=f"{ME}.call(ROWS, {T}, {name}={expression})", limit=15))
    return found


#: ``faulty(TMP, MARKER, ...)``: a FaultServer of the case's own in a faulty mode; expect, where
FAULTS = {
    "clean": ("''", OK, ()),
    "clean-gate-missed": ("'', fail_under={'faithfulness': 0.9}", REFUSED, (FAILED, "faithfulness", "moon")),
    "500": ("'FAULT500'", REFUSED, (FAILED, "judge")),
    "500-lenient": ("'FAULT500', max_judge_errors=1", REFUSED, (FAILED, "faithfulness")),
    "malformed": ("'FAULTMALFORMED'", REFUSED, (FAILED, "judge")),
    "body": ("'FAULTBODY'", ANY, (FAILED, "judge")),
    "trunc": ("'FAULTTRUNC'", ANY, (FAILED,)),
    "wrong-id": ("'FAULTWRONGID'", ANY, (FAILED,)),
    "quote": ("'FAULTQUOTE'", ANY, (FAILED,)),
    "invent": ("'FAULTINVENT'", ANY, (FAILED,)),
    "429-no-retries": ("'FAULT429'", REFUSED, (FAILED, "judge")),
    "auth": ("'FAULTAUTH'", REFUSED, (FAILED, "judge")),
    "hang": ("'FAULTHANG', server={'hang_seconds': 3}, judge={'timeout': 0.5}", REFUSED, (FAILED, "judge")),
    "unknown-model": ("'', server={'models': {'other'}}", REFUSED, (FAILED, "judge")),
    "no-model-listed": ("'', server={'listed': []}, judge={'model': None}", REFUSED, (FAILED, "judge")),
    "echo-plain": ("'FAULTECHO echo=plain', fail_under={'faithfulness': 0.99}", REFUSED, (FAILED,)),
    "echo-base64": ("'FAULTECHO echo=base64', fail_under={'faithfulness': 0.99}", REFUSED, (FAILED,)),
    "wrong-key": ("'', server={'api_key': 'sk-right'}", REFUSED, (FAILED, "judge")),
}



# ------------------------------------------------------------------ a real pytest on a generated test file

def marked(arguments: str, call: str = "genevals()") -> str:
    """A test marked ``@pytest.mark.genevals(ARGUMENTS)`` that calls the fixture as ``call``."""
    return f"\n@pytest.mark.genevals({arguments})\ndef test_marked(genevals):\n    {call}\n"


def plain(body: str) -> str:
    """A test whose body is ``body`` (one line)."""
    return f"\ndef test_plain():\n    {body}\n"


G = "data=ROWS, metrics=['token_f1']"
J = "data=JUDGED, metrics=['faithfulness']"
U = "judge={'base_url': UNREACHABLE, 'model': 'm'}"
F = "judge={'base_url': JUDGE, 'model': 'judge', 'max_retries': 0, 'cache': False}"
NO_REFS = "[{'id': 'a', 'answer': 'x'}]"
LAYERED = '''
pytestmark = pytest.mark.genevals(metrics=["token_f1"], fail_under={"token_f1": 0.99})

@pytest.mark.genevals(data=ROWS)
class TestLayers:
    @pytest.mark.genevals(fail_under={"token_f1": 0.1})
    def test_closest_wins(self, genevals):
        genevals()
'''
TWICE = '''
@pytest.mark.genevals(metrics=["token_f1"])
def test_twice(genevals, tmp_path):
    genevals(ROWS)
    genevals(ROWS, out_dir=None)
    assert (tmp_path / "genevals" / "report.html").is_file() and (tmp_path / "genevals-2" / "report.html").is_file()
'''
PARAMETRIZED = '''
@pytest.mark.parametrize("limit", [0.0, 0.1, 0.2])
def test_each(genevals, limit):
    genevals(ROWS, metrics=["token_f1"], fail_under={"token_f1": limit})
'''
ESCAPES = ("[{**r, 'id': '\\x1b[2J' + r['id'], 'system': '\\x1b[31mred', 'answer': '\\x07\\x1b]0;x\\x07' + "
           "r['answer'] + '\\x00\\x9b'} for r in ROWS]")

#: slug: (source, extra pytest arguments, options of pytest_run, expect, where)
PYTESTS = {
    "marker-pass": (marked(G + ", fail_under={'token_f1': 0.1}"), (), {}, OK, ()),
    "marker-gate-missed": (marked(G + ", fail_under={'token_f1': 0.99}"), (), {}, REFUSED,
                           (FAILED, "token_f1", "worst samples")),
    "marker-fail-under-list": (marked(G + ", fail_under=['token_f1']"), (), {}, REFUSED, (REFUSES, "fail_under")),
    "marker-fail-under-string": (marked(G + ", fail_under='token_f1=0.5'"), (), {}, REFUSED,
                                 (REFUSES, "fail_under")),
    "marker-fail-under-tuple": (marked(G + ", fail_under=('token_f1', 0.5)"), (), {}, REFUSED,
                                (REFUSES, "fail_under")),
    "marker-limit-nan": (marked(G + ", fail_under={'token_f1': float('nan')}"), (), {}, REFUSED,
                         (REFUSES, "fail_under", "token_f1")),
    "marker-limit-negative": (marked(G + ", fail_under={'token_f1': -1}"), (), {}, REFUSED,
                              (REFUSES, "fail_under", "token_f1")),
    "marker-limit-above-one": (marked(G + ", fail_under={'token_f1': 2}"), (), {}, REFUSED,
                               (REFUSES, "fail_under", "token_f1")),
    "marker-limit-5000-digits": (marked(G + ", fail_under={'token_f1': 10 ** 5000}"), (), {}, REFUSED,
                                 (REFUSES, "fail_under")),
    "marker-limit-string": (marked(G + ", fail_under={'token_f1': 'high'}"), (), {}, REFUSED,
                            (REFUSES, "fail_under")),
    "marker-unknown-metric": (marked(G + ", fail_under={'tokenf1': 0.5}"), (), {}, REFUSED,
                              (REFUSES, "tokenf1", "did you mean 'token_f1'")),
    "marker-fail-over-list": (marked(G + ", fail_over=['contradiction_rate']"), (), {}, REFUSED,
                              (REFUSES, "fail_over")),
    "marker-wrong-direction": (marked(G + ", fail_over={'token_f1': 0.5}"), (), {}, REFUSED,
                               (REFUSES, "fail_over", "fail_under")),
    "marker-worst-string": (marked(G + ", worst='3'"), (), {}, REFUSED, (REFUSES, "worst")),
    "marker-worst-negative": (marked(G + ", worst=-1"), (), {}, REFUSED, (REFUSES, "worst")),
    "marker-max-judge-errors-nan": (marked(G + ", max_judge_errors=float('nan')"), (), {}, REFUSED,
                                    (REFUSES, "max_judge_errors")),
    "marker-positional": (marked("ROWS"), (), {}, REFUSED, (REFUSES, "keyword arguments only")),
    "marker-unknown-argument": (marked(G + ", fail_undr={'token_f1': 0.5}"), (), {}, REFUSED,
                                (REFUSES, "fail_undr", "fail_under")),
    "marker-data-int": (marked("data=5, metrics=['token_f1']"), (), {}, REFUSED, (REFUSES, "data")),
    "marker-data-missing": (marked("data='nosuch.jsonl', metrics=['token_f1']"), (), {}, REFUSED,
                            (REFUSES, "nosuch.jsonl")),
    "marker-data-file": (marked("data='data.jsonl', metrics=['token_f1']"), (),
                         {"files": {"data.jsonl": "".join(json.dumps(r) + "\n" for r in GOOD_ROWS)}}, OK, ()),
    "marker-metrics-typo": (marked("data=ROWS, metrics=['tokn_f1']"), (), {}, REFUSED, (REFUSES, "token_f1")),
    "marker-judge-string": (marked(G + ", judge='gpt-4o'"), (), {}, REFUSED, (REFUSES, "judge")),
    "marker-judge-class": (marked(G + ", judge=__import__('genevals').JudgeConfig"), (), {}, REFUSED,
                           (REFUSES, "judge")),
    "marker-out-dir-none": (marked(G + ", out_dir=None"), (), {}, OK, ()),
    "fixture-out-dir-a-file": (marked(G, "genevals(out_dir='conftest.py')"), (), {}, REFUSED,
                               (REFUSES, "out_dir")),
    "fixture-override-list": (marked(G, "genevals(fail_under=['token_f1'])"), (), {}, REFUSED,
                              (REFUSES, "fail_under")),
    "fixture-positional-metrics": (marked("fail_under={'token_f1': 0.1}", "genevals(ROWS, ['token_f1'])"), (), {},
                                   OK, ()),
    "fixture-three-positionals": (marked("", "genevals(ROWS, ['token_f1'], 5)"), (), {}, REFUSED,
                                  (REFUSES, "positional")),
    "fixture-override-wins": (marked(G + ", fail_under={'token_f1': 0.99}", "genevals(fail_under={'token_f1': 0})"),
                              (), {}, OK, ()),
    "no-data": (marked("metrics=['token_f1']"), (), {}, REFUSED, (FAILED, "no data to score")),
    "bare-marker": ("\n@pytest.mark.genevals\ndef test_bare(genevals):\n    genevals(ROWS, metrics=['token_f1'])\n",
                    (), {}, OK, ()),
    "layered-markers": (LAYERED, (), {}, OK, ()),
    "fixture-twice": (TWICE, (), {}, OK, ()),
    "parametrized": (PARAMETRIZED, (), {}, OK, ()),
    "strict-markers": (marked(G), ("--strict-markers",), {}, OK, ()),
    "unknown-option": (marked(G), ("--genevals-judge=x",), {}, REFUSED, (REFUSES, "--genevals-judge")),
    "unscored-no-references": (marked(f"data={NO_REFS}, metrics=['token_f1']"), (), {}, REFUSED,
                               (FAILED, "token_f1 scored no sample")),
    "control-characters-in-output": (marked(f"data={ESCAPES}, metrics=['token_f1'], fail_under={{'token_f1': 0.99}}"),
                                     (), {}, REFUSED, (FAILED, "token_f1")),
    "unreachable-no-gate": (marked(f"{J}, {U}"), (), {}, REFUSED, (FAILED, "judge")),
    "unreachable-with-gate": (marked(f"{J}, {U}, fail_under={{'faithfulness': 0}}"), (), {}, REFUSED,
                              (FAILED, "judge")),
    "unreachable-assert-scores": (plain(f"assert_scores(JUDGED, ['faithfulness'], {U})"), (), {}, REFUSED,
                                  (FAILED, "judge")),
    "unreachable-judge-config": (marked(f"{J}, judge=__import__('genevals').JudgeConfig(base_url=UNREACHABLE, "
                                        "model='m', max_retries=0)"), (), {}, REFUSED, (FAILED, "judge_error")),
    "unreachable-lenient": (marked(f"{J}, judge=__import__('genevals').JudgeConfig(base_url=UNREACHABLE, "
                                   "model='m', max_retries=0), max_judge_errors=1"), (), {}, REFUSED,
                            (FAILED, "faithfulness")),
    "fault-clean": (marked(f"{J}, {F}, fail_under={{'faithfulness': 0.5}}"), (), {"fault": {}}, OK, ()),
    "fault-clean-gate-missed": (marked(f"{J}, {F}, fail_under={{'faithfulness': 0.9}}"), (), {"fault": {}},
                                REFUSED, (FAILED, "moon is cheese", "unverifiable")),
    "fault-500": (marked(f"data=[{{**r, 'answer': r['answer'] + ' FAULT500'}} for r in JUDGED], "
                         f"metrics=['faithfulness'], {F}"), (), {"fault": {}}, REFUSED, (FAILED, "judge")),
    "fault-malformed": (marked(f"data=[{{**r, 'answer': r['answer'] + ' FAULTMALFORMED'}} for r in JUDGED], "
                               f"metrics=['faithfulness'], {F}"), (), {"fault": {}}, REFUSED, (FAILED, "judge")),
    "fault-unknown-model": (marked(f"{J}, {F}"), (), {"fault": {"models": {"other"}}}, REFUSED, (FAILED, "judge")),
    "cache-pass": (marked(G), (), {"cache": ".cache"}, OK, ()),
    "cache-judge-class": (marked(G + ", judge=__import__('genevals').JudgeConfig"), (), {"cache": ".cache"},
                          REFUSED, (REFUSES, "judge")),
    "cache-judge-config": (marked(G + ", judge=__import__('genevals').JudgeConfig(model='m')"), (),
                           {"cache": ".cache"}, OK, ()),
    "cache-judge-no-cache": (marked(G + ", judge={'cache': False}"), (), {"cache": ".cache"}, OK, ()),
    "cache-under-a-file": (marked(G), (), {"cache": "conftest.py/cache"}, OK, ()),
    "cache-under-proc": (marked(G), (), {"cache": "/proc/genevals-cache"}, OK, ()),
    "cache-clear": (marked(G), ("--cache-clear",), {"cache": ".cache"}, OK, ()),
    "judge-placeholder-500": (marked(f"data=[{{**r, 'answer': r['answer'] + ' FAULT500'}} for r in JUDGED], "
                                     f"metrics=['faithfulness'], {F}"), (), {"judge": "{judge}"}, REFUSED,
                              (FAILED, "judge")),
}


def cases() -> list[Case]:
    found = matrix()
    found += [Case(id=f"plugin-direct-{slug}", cls="plugin", expect=expect, where=where, api=f"{ME}.call({args})",
                  limit=15) for slug, (args, expect, where) in DIRECT.items()]
    # the key the judge is sent never reaches the message or the run folder, whatever the server echoes
    found += [Case(id=f"plugin-fault-{slug}", cls="plugin", expect=expect, where=where,
                   api=f"{ME}.faulty(TMP, {args})", limit=15, secrets=(KEY,))
              for slug, (args, expect, where) in FAULTS.items()]
    found += [Case(id=f"plugin-pytest-{slug}", cls="plugin", expect=expect, where=where, limit=30,
                   api=f"{ME}.pytest_run(TMP, {source!r}, *{tuple(args)!r}, **{options!r})")
              for slug, (source, args, options, expect, where) in PYTESTS.items()]
    return found
