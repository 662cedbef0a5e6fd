"""``--jury FILE`` in real processes, against two real judge servers on 127.0.0.1 that disagree on planted
claims: both verdicts, the majority and the kappas recorded, each server sent its own calls (counted at the
servers), a cached re-run sends none; the dry run prices every judge; bad jury files refused with exit 2."""
import json
import subprocess
import sys

from support.fault_server import FaultServer
from genevals.output import runfolder

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
#: claims marked PLANTED are in no context: the honest judge says unverifiable, the lenient one supported
ANSWERS = ["Marie Curie was born in Warsaw. The PLANTED prize came in 1950.",
           "Marie Curie discovered polonium. She PLANTED roses in Lyon.",
           "Marie Curie was born in Warsaw. Marie Curie discovered polonium."]


def lenient(claim, label):
    return "supported" if "PLANTED" in claim else label


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300,
                          check=False)


def data(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "question": "Who was Marie Curie?", "answer": a,
                                        "contexts": [CONTEXT]}) + "\n" for i, a in enumerate(ANSWERS)))
    return str(path)


def jury_file(tmp_path, honest, dissent, cache, extra=""):
    path = tmp_path / "jury.toml"
    path.write_text(f'[[judge]]\nname = "honest"\nbase_url = "{honest.base_url}"\nmodel = "judge"\n'
                    f'cache_dir = "{cache}"\n\n[[judge]]\nname = "lenient"\nbase_url = "{dissent.base_url}"\n'
                    f'model = "judge"\ncache_dir = "{cache}"\n{extra}')
    return str(path)


def test_two_real_judges_disagree_on_planted_claims_and_a_cached_rerun_sends_nothing(tmp_path):
    source, out, cache = data(tmp_path), tmp_path / "out", tmp_path / "cache"
    with FaultServer() as honest, FaultServer(verdict=lenient) as dissent:
        jury = jury_file(tmp_path, honest, dissent, cache)
        done = genevals("run", source, "--out", str(out), "--metrics", "faithfulness", "--jury", jury, "--no-history")
        assert done.returncode == 0, done.stderr
        # each server its own calls: the first judge decomposes (3) and verifies (3) and is preflighted; the other
        # only verifies the same claims (3) after its own preflight
        assert [r["kind"] for r in honest.requests].count("decompose") == 3
        assert [r["kind"] for r in honest.requests].count("verify") == 3
        assert [r["kind"] for r in dissent.requests].count("decompose") == 0
        assert [r["kind"] for r in dissent.requests].count("verify") == 3
        rows = {r["id"]: r["metrics"]["faithfulness"] for r in
                map(json.loads, (out / "results.jsonl").read_text().splitlines())}
        planted = rows["0"]["details"]["verdicts"][1]
        assert planted["jury"] == {"honest": "unverifiable", "lenient": "supported"}
        assert planted["label"] == "unverifiable" and planted["agreement"] == 0.5  # a tie is unverifiable
        assert "the jury split" in planted["reason"]
        agreed = rows["0"]["details"]["verdicts"][0]
        assert agreed["jury"] == {"honest": "supported", "lenient": "supported"} and agreed["agreement"] == 1.0
        assert rows["0"]["details"]["jury"] == {"honest": 0.5, "lenient": 1.0}
        assert rows["0"]["details"]["jury_spread"] == 0.5 and rows["0"]["value"] == 0.5
        summary = json.loads((out / "summary.json").read_text())
        assert summary["signatures"]["faithfulness"].endswith("|jury:honest=judge*1+lenient=judge*1")
        j = summary["meta"]["jury"]["default"]["faithfulness"]
        assert j["judges"] == ["honest", "lenient"] and j["units"] == 6 and j["split_units"] == 2
        assert j["disagreement_rate"] == 2 / 6
        # 6 claims: honest 4 supported + 2 unverifiable, lenient 6 supported: p_o = 4/6, p_e = 4/6 * 1 -> 0
        assert j["pairwise_kappa"] == {"honest|lenient": 0.0}
        assert abs(j["fleiss_kappa"] - (-0.2)) < 1e-9  # Scott's pi of the same table
        assert j["ci95_jury"][0] <= j["mean_over_judges"] <= j["ci95_jury"][1]
        assert "Fleiss' kappa -0.20 (Cohen's: honest|lenient 0.00), disagreement 33% (2/6 claims split)" \
            in done.stdout

        before = (honest.total, dissent.total)
        again = genevals("run", source, "--out", str(tmp_path / "again"), "--metrics", "faithfulness", "--jury", jury,
                         "--no-history")
        assert again.returncode == 0, again.stderr
        assert (honest.total, dissent.total) == before  # every call of both judges from their caches
        cached = {r["id"]: r["metrics"]["faithfulness"] for r in
                  map(json.loads, (tmp_path / "again" / "results.jsonl").read_text().splitlines())}
        for key, row in rows.items():
            assert cached[key]["details"]["verdicts"] == row["details"]["verdicts"]
            assert cached[key]["details"]["jury_usage"]["lenient"]["cached_requests"] == 1


def test_dry_run_prices_every_judge(tmp_path):
    source, out = data(tmp_path), tmp_path / "dry"
    prices = ('prices = {judge = {input_per_1k = 1.0, output_per_1k = 2.0}}\n')
    with FaultServer() as honest, FaultServer(verdict=lenient) as dissent:
        jury = jury_file(tmp_path, honest, dissent, tmp_path / "cache", prices)
        done = genevals("run", source, "--out", str(out), "--metrics", "faithfulness,answer_relevance", "--jury", jury,
                        "--dry-run", "--no-history")
        assert honest.total == 0 and dissent.total == 0, done.stderr
    row = json.loads((out / "results.jsonl").read_text().splitlines()[0])["metrics"]["faithfulness"]
    usage = row["details"]["jury_usage"]
    assert usage["honest"]["estimated_requests"] == 2 and usage["lenient"]["estimated_requests"] == 1
    assert usage["honest"]["estimated_cost_usd"] is None and usage["lenient"]["estimated_cost_usd"] > 0
    jury = json.loads((out / "summary.json").read_text())["meta"]["jury"]["default"]
    assert jury["faithfulness"]["cost"]["honest"] is None and jury["faithfulness"]["cost"]["lenient"] > 0
    assert jury["answer_relevance"]["cost"]["lenient"] > 0  # every judge-backed metric, every judge priced
    assert "estimated cost honest no price, lenient $" in done.stdout


def test_bad_jury_files_are_refused_naming_file_line_and_key(tmp_path):
    source = data(tmp_path)
    cases = {
        "typo.toml": ('[[judge]]\nmodel = "a"\n\n[[judge]]\nmodle = "b"\n',
                      "typo.toml: line 4: judge 2: unknown key 'modle' (did you mean 'model'?)"),
        "one.json": ('[{"model": "a"}]', "a jury needs at least 2 judges, got 1"),
        "key.yaml": ("- {model: a}\n- {model: b, api_key: sk-123}\n",
                     "key.yaml: line 2: judge 2: key 'api_key': keys are not written in jury files"),
        "temp.toml": ('[[judge]]\nmodel = "a"\n[[judge]]\nmodel = "b"\ntemperature = -1\n',
                      "line 3: judge 2: key 'temperature'"),
        "same.json": ('[{"model": "a"}, {"model": "a"}]', "judge 2: key 'name': 'a' is already judge 1's name"),
        "env.json": ('[{"model": "a"}, {"model": "b", "api_key_env": "GENEVALS_NO_SUCH_KEY"}]',
                     "the environment variable GENEVALS_NO_SUCH_KEY is not set"),
        "broken.json": ('[{"model": "a"},', "line 1, column 17: not valid JSON"),
        "jury.txt": ("x", "unknown jury file type '.txt'"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        done = genevals("run", source, "--metrics", "faithfulness", "--jury", str(tmp_path / name), "--no-history")
        assert done.returncode == 2, (name, done.stderr)
        assert message in done.stderr, (name, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_metric_that_cannot_take_a_jury_says_so(tmp_path):
    jury = tmp_path / "jury.json"
    jury.write_text('[{"model": "a", "base_url": "http://127.0.0.1:9/v1"}, '
                    '{"model": "b", "base_url": "http://127.0.0.1:9/v1"}]')
    done = genevals("run", data(tmp_path), "--metrics", "pairwise", "--jury", str(jury), "--no-history")
    assert done.returncode == 2, done.stderr
    assert "metric 'pairwise' cannot be judged by a jury" in done.stderr and "Traceback" not in done.stderr


def test_each_judges_key_comes_from_its_environment_variable_and_is_never_written(tmp_path):
    import os

    keys = {"JURY_KEY_A": "sk-jury-a-0123456789abcdef", "JURY_KEY_B": "sk-jury-b-0123456789abcdef"}
    source = tmp_path / "d.jsonl"
    source.write_text(json.dumps({"id": "0", "answer": "Marie Curie was born in Warsaw. FAULTECHO echo=escaped",
                                  "contexts": [CONTEXT]}) + "\n")
    out, history = tmp_path / "out", tmp_path / "history.sqlite"
    # b outweighs a and disagrees: its verdicts (their reasons echoing its key, JSON-escaped) are the majority's
    with FaultServer(api_key=keys["JURY_KEY_A"]) as a, \
            FaultServer(api_key=keys["JURY_KEY_B"], verdict=lambda claim, label: "contradicted") as b:
        jury = tmp_path / "jury.yaml"
        jury.write_text(f"- {{name: a, base_url: '{a.base_url}', model: judge, api_key_env: JURY_KEY_A, cache: false}}\n"
                        f"- {{name: b, base_url: '{b.base_url}', model: judge, api_key_env: JURY_KEY_B, cache: false, weight: 2}}\n")
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(source), "--out", str(out), "--metrics",
                               "faithfulness", "--jury", str(jury)], capture_output=True, text=True, timeout=300,
                              env={**os.environ, **keys, "GENEVALS_HISTORY": str(history)}, check=False)
        assert done.returncode == 0, done.stderr
        assert a.total and b.total  # each server accepted only its own key (401 for any other)
    row = json.loads((out / "results.jsonl").read_text())["metrics"]["faithfulness"]
    assert row["status"] == "ok" and set(row["details"]["jury"]) == {"a", "b"}
    assert {v["label"] for v in row["details"]["verdicts"]} == {"contradicted"}  # b's verdicts, b's reasons
    assert "checked with ***" in json.dumps(row["details"]["verdicts"])  # the mask, where b wrote its key
    written = b"".join(p.read_bytes() for p in [*out.iterdir(), history] if p.is_file()) + done.stdout.encode() \
        + done.stderr.encode()
    for key in keys.values():
        assert key.encode() not in written


def test_validate_takes_a_jury_and_validates_its_majority(tmp_path):
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps({"id": str(i), "context": CONTEXT, "response": a,
                                            "hallucinated": "PLANTED" in a}) + "\n" for i, a in enumerate(ANSWERS)))
    out = tmp_path / "val"
    with FaultServer() as honest, FaultServer(verdict=lenient) as dissent:
        jury = jury_file(tmp_path, honest, dissent, tmp_path / "cache", 'weight = 2\n')
        done = genevals("validate", str(labelled), "--judge", "llm", "--jury", jury, "--out", str(out), "--quiet",
                        "--resamples", "20")
        assert done.returncode == 0, done.stderr
        assert [r["kind"] for r in dissent.requests].count("verify") == 3
    # the lenient judge outweighs the honest one: the planted claims are supported, so nothing is flagged
    confusion = json.loads((out / "validation.json").read_text())["response_level"]["confusion"]
    assert confusion == {"tp": 0, "fp": 0, "fn": 2, "tn": 1}
    wrong = genevals("validate", str(labelled), "--judge", "local", "--jury", jury, "--out", str(out))
    assert wrong.returncode == 2 and "--jury: takes --judge llm, not --judge local" in wrong.stderr


def test_the_conversation_judges_take_a_jury(tmp_path):
    """Issue 38: knowledge_retention, conversation_relevance and conversation_completeness on two real judges (the
    rule judge and one that sees no retention failure), in a real process: one request per conversation, metric and
    judge at each judge's server, each judge's value on the last turn, the per-turn votes and kappas in the summary
    and on the terminal; a cached re-run sends nothing."""
    from metrics.conversation.test_conversation_judges import FAMILIES, ROWS, kind_of, rule_judge

    def blind(content):  # sees no failure: the user's facts never count against a turn
        reply = rule_judge(content)
        return {**reply, "failures": []} if kind_of(content) == "knowledge_retention" else reply

    source, out, cache = tmp_path / "chat.jsonl", tmp_path / "out", tmp_path / "cache"
    source.write_text("".join(json.dumps(r) + "\n" for r in ROWS[:2]))
    metrics = ",".join(FAMILIES)
    with FaultServer(replies=rule_judge) as honest, FaultServer(replies=blind) as dissent:
        jury = jury_file(tmp_path, honest, dissent, cache)
        done = genevals("run", str(source), "--out", str(out), "--metrics", metrics, "--jury", jury, "--no-history")
        assert done.returncode == 0, done.stderr
        for server in (honest, dissent):  # moved and kept: one call each per metric, the other turns none
            kinds = [kind_of(r["body"]["messages"][0]["content"]) for r in server.requests]
            assert all(kinds.count(f) == 2 for f in FAMILIES), kinds
        before = (honest.total, dissent.total)
        again = genevals("run", str(source), "--out", str(tmp_path / "again"), "--metrics", metrics, "--jury", jury,
                         "--no-history")
        assert again.returncode == 0, again.stderr
        assert (honest.total, dissent.total) == before
    rows = {r["id"]: r["metrics"] for _, r in runfolder.iter_rows(out)}  # one line per conversation, per turn
    retention = rows["moved:4"]["knowledge_retention"]
    assert retention["status"] == "ok" and retention["details"]["jury"] == {"honest": 1 - 1 / 3, "lenient": 1.0}
    assert abs(retention["value"] - (2 / 3 + 1) / 2) < 1e-12
    split = [i for i in retention["details"]["jury_items"]["items"] if i["label"] is None]
    assert [(i["turn"], i["jury"]) for i in split] == [(3, {"honest": "failed", "lenient": "kept"})]
    assert rows["moved:2"]["knowledge_retention"]["status"] == "not_last_turn"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["signatures"]["knowledge_retention"].endswith("|jury:honest=judge*1+lenient=judge*1")
    j = summary["meta"]["jury"]["default"]
    assert (j["knowledge_retention"]["units"], j["knowledge_retention"]["split_units"]) == (4, 1)
    assert j["conversation_relevance"]["fleiss_kappa"] == 1.0
    assert "knowledge_retention: Fleiss' kappa" in done.stdout and "(1/4 turns split)" in done.stdout
