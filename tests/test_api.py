"""genevals.evaluate raises its caveats as Python warnings of class genevals.GenevalsWarning (issue 12): the
offline checker standing in for the LLM judge, and samples the judge failed on (a real server answering 500),
in a real Python process as a user runs it."""
import subprocess
import sys
import textwrap

from support.fault_server import FaultServer

SCRIPT = textwrap.dedent("""
    import sys, warnings
    import genevals
    rows = [{"id": "1", "answer": "Marie Curie was born in Warsaw.", "contexts": ["Marie Curie was born in Warsaw."]},
            {"id": "2", "answer": "Marie Curie was born. FAULT500.", "contexts": ["Marie Curie was born in Warsaw."]}]
    judge = genevals.JudgeConfig(base_url=sys.argv[1], model="j", cache=False, max_retries=0) if sys.argv[1:] else None
    res = genevals.evaluate(rows, ["faithfulness"], judge=judge)
    print("scored", res.summary()["systems"]["default"]["faithfulness"]["scored"])
    warnings.simplefilter("error", genevals.GenevalsWarning)
    try:
        genevals.evaluate(rows, ["faithfulness"], judge=judge)
    except genevals.GenevalsWarning as exc:
        print("raised", type(exc).__name__)
""")


def python(*args):
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=300)


def test_offline_faithfulness_warns_with_a_genevals_warning():
    done = python()
    assert done.returncode == 0, done.stderr
    assert "GenevalsWarning: grounding: no judge endpoint or model configured: faithfulness comes from the " \
           "local grounding checker" in done.stderr
    assert "scored 2" in done.stdout and "raised GenevalsWarning" in done.stdout


def test_judge_failures_warn_with_counts():
    with FaultServer() as server:
        done = python(server.base_url)
    assert done.returncode == 0, done.stderr
    assert "GenevalsWarning: faithfulness: the judge failed on 1 of 2 samples (1 judge_error, 0 parse_error)" \
           in done.stderr
    assert "raised GenevalsWarning" in done.stdout


def test_unknown_field_warns_with_did_you_mean():
    script = textwrap.dedent("""
        import genevals
        genevals.evaluate([{"id": "1", "answer": "Paris", "refrences": ["Paris"]}], ["exact_match"])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "GenevalsWarning: " in done.stderr and "unknown field 'refrences' is ignored; did you mean 'references'?" \
        in done.stderr
