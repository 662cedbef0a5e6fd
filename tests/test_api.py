"""genevals.evaluate raises its caveats as Python warnings of class genevals.GenevalsWarning (issue 12): the
offline checker standing in for the LLM judge, and samples the judge failed on (a real server answering 500),
in a real Python process as a user runs it."""
import json
import subprocess
import sys
import textwrap

import pytest
from support.fault_server import FaultServer

from genevals import evaluate

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
    assert "GenevalsWarning: grounding: no judge configured: faithfulness is scored offline" in done.stderr
    assert "faithfulness comes from the local grounding checker (no LLM). Out of sample" in done.stderr
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


# ------------------------------------------------------------------ what evaluate() accepts (issue 22, point 3)

ARGUMENTS_SCRIPT = textwrap.dedent("""
    import json, os, sys, tempfile, warnings
    import numpy as np
    import pandas as pd
    import genevals
    warnings.simplefilter("ignore", genevals.GenevalsWarning)
    rows = [{"id": str(i), "answer": "Paris", "references": ["Paris"], "contexts": [{"id": "c", "text": "Paris"}],
             "relevant": {"c": np.int64(1)}} for i in range(3)]
    folder = tempfile.mkdtemp()
    a_file = os.path.join(folder, "a_file")
    open(a_file, "w").close()
    out = {}
    res = genevals.evaluate((r for r in rows), ["exact_match", "recall@1"], out_dir=os.path.join(folder, "gen"))
    out["generator"] = res.summary()["systems"]["default"]["exact_match"]["scored"]
    with open(os.path.join(folder, "gen", "results.jsonl")) as handle:
        out["generator_lines"] = sum(1 for _ in handle)
    scored = lambda res, name: res.summary()["systems"]["default"][name]["scored"]
    out["iterator"] = scored(genevals.evaluate(iter(rows), ["exact_match"]), "exact_match")
    frame = pd.DataFrame([{"answer": "a", "relevant": {"c": np.float32(2.0)}, "contexts": ["c"]}])
    out["numpy_grades"] = scored(genevals.evaluate(frame, ["recall@1"]), "recall@1")
    bad = {"none": dict(data=None), "int": dict(data=5), "dict": dict(data=rows[0]),
           "metric_none": dict(metrics=[None]), "metric_empty": dict(metrics=[]), "out_file": dict(out_dir=a_file),
           "out_under_file": dict(out_dir=a_file + "/x"),
           "options": dict(options={"rogue": {"use_stemmer": True}}), "column_map": dict(column_map={"answr": "x"}),
           "typos": dict(metrics=["rogue", "tokn_f1"]), "seed": dict(seed=-1), "workers": dict(workers=0)}
    for name, change in bad.items():
        call = {"data": rows, "metrics": ["exact_match"], **change}
        try:
            genevals.evaluate(call.pop("data"), call.pop("metrics"), **call)
            out[name] = "accepted"
        except ValueError as exc:
            out[name] = [type(exc).__name__, str(exc)]
        except Exception as exc:
            out[name] = ["NOT A ValueError: " + type(exc).__name__, str(exc)]
    print(json.dumps(out))
""")


def test_evaluate_takes_any_iterable_and_refuses_what_it_cannot_use_clearly():
    done = subprocess.run([sys.executable, "-c", ARGUMENTS_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["generator"] == 3 and out["generator_lines"] == 3 and out["iterator"] == 3  # today: 0 samples
    assert out["numpy_grades"] == 1
    expected = {
        "none": ("InputError", "data: expected a file path (JSONL, CSV or Parquet), a pandas DataFrame or an iterable "
                               "of row dicts, got NoneType"),
        "int": ("InputError", "got int"),
        "dict": ("InputError", "got one dict: pass a list of row dicts"),
        "metric_none": ("UnknownMetric", "metric names must be non-empty strings, got None"),
        "metric_empty": ("UnknownMetric", "no metric named"),
        "out_file": ("InputError", "out_dir: "),
        "out_under_file": ("InputError", "cannot be created: "),
        "options": ("UnknownMetric", "options: unknown metric family 'rogue'; did you mean 'rouge'?"),
        "column_map": ("InputError", "column_map: unknown field 'answr'; did you mean 'answer'?"),
        "typos": ("UnknownMetric", "unknown metrics 'rogue' (did you mean 'rouge'?), 'tokn_f1' (did you mean "
                                   "'token_f1'?)"),
        "seed": ("InputError", "seed: expected a whole number from 0 to 18,446,744,073,709,551,615, got -1"),
        "workers": ("InputError", "workers: expected a whole number from 1 to 256, got 0"),
    }
    for name, (kind, message) in expected.items():
        assert out[name][0] == kind and message in out[name][1], (name, out[name])
    assert out["out_file"][1].endswith("a_file: exists and is not a folder")


@pytest.mark.parametrize("change,message", [
    (dict(data=""), "data: the path is empty"),  # was read as ".", the current folder
    (dict(progress=5), "progress: expected a function called as progress(done, total), or None, got int"),
    (dict(meta=5), "meta: expected a mapping of names to values, got int"),
    (dict(judge="gpt-4o"), "judge: expected a JudgeConfig, a mapping of its fields"),  # was silently ignored
    (dict(judge=5), "judge: expected a JudgeConfig, a mapping of its fields"),
    (dict(judge={"concurrency": 0}), "judge: judge concurrency: expected a whole number 1 or more, got 0"),
    (dict(judge={"modle": "x"}), "judge: judge modle: unknown judge setting (did you mean 'model'?)"),
    (dict(workers=10**20), "workers: expected a whole number from 1 to 256, got a larger number"),  # OverflowError in a semaphore
    (dict(metrics=[None]), "metrics: metric names must be non-empty strings"),
    (dict(metrics=["recall@0"]), "metric 'recall@0': cutoffs must be whole numbers from 1 to 10,000"),
    (dict(options={"retrieval": {"cutoffs": [1.5]}}), "options['retrieval']: cutoffs: expected a whole number"),
    (dict(options={"faithfulness": {"max_claims": 0}}), "options['faithfulness']: max_claims: expected a whole"),
    (dict(out_dir="o" * 300), "out_dir: " + "o" * 300 + ": File name too long"),  # was a bare OSError
    (dict(out_dir="o" * 300 + "/run"), "out_dir: " + "o" * 300 + "/run: File name too long"),
    (dict(out_dir=""), "out_dir: the path is empty"),  # was the current folder
])
def test_an_argument_that_cannot_work_is_refused_naming_it(tmp_path, change, message):
    call = {"data": [{"answer": "Paris", "references": ["Paris"]}], "metrics": ["exact_match"],
            "out_dir": tmp_path / "out", **change}
    with pytest.raises(ValueError) as err:
        evaluate(call.pop("data"), call.pop("metrics"), **call)
    assert message in str(err.value)
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_judge_may_be_a_mapping_of_its_fields():
    from genevals.judge.backends.scripted import ScriptedProvider

    reply = {"passages": [{"id": 1, "verdict": "relevant", "sentence": "Paris is the capital.", "reason": ""}]}
    provider = ScriptedProvider({"context_relevance": reply})
    rows = [{"question": "Capital of France?", "answer": "Paris", "contexts": ["Paris is the capital."]}]
    res = evaluate(rows, ["context_relevance"], judge={"provider": provider, "cache": False})
    assert res.samples[0].metrics["context_relevance"].value == 1.0 and provider.calls  # the mapping's judge
