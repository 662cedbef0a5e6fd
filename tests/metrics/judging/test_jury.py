"""Every judge-backed metric on a jury, against real judge servers on 127.0.0.1 (the project's fault server):
the triad judges' values per judge with the spread and the weighted mean, weights breaking a tie, judges x
repeats (a judge's label is its majority over its own repeats, each judge's flip rate in the system figures),
a judge that fails casting no vote, and each server answering only its own judge's calls."""
from __future__ import annotations

from support.fault_server import FaultServer
from support.rag_judge import honest_judge, prompt_kind

from genevals import types
from genevals.api import evaluate
from genevals.types import Context, Sample

CONTEXT = "Paris is in France. The Seine runs through Paris."


def lenient(claim, label):
    return "supported" if "PLANTED" in claim else label


def harsh(content):  # answers nothing of the question: answer_relevance 0 where the honest judge says 1
    if prompt_kind(content) == "answer_relevance":
        return {"parts": [{"part": "the question", "answered": False}], "off_topic": [], "reason": "harsh"}
    if prompt_kind(content) == "context_relevance":  # and no passage is relevant
        reply = honest_judge(content)
        return {"passages": [{**p, "verdict": "not_relevant"} for p in reply["passages"]]}
    return honest_judge(content)


def judges(*servers, **extra):
    return [{"name": name, "base_url": s.base_url, "model": "judge", "cache": False, **extra.get(name, {})}
            for name, s in servers]


def test_the_triad_judges_give_each_judges_value_and_the_spread(tmp_path):
    rows = [Sample("s0", "The Seine runs through Paris.", "Which river runs through Paris?",
                   (Context(CONTEXT, 1), Context("Bins are emptied on Mondays.", 2)),
                   references=("The Seine runs through Paris.",)).to_dict()]
    with FaultServer(replies=honest_judge) as a, FaultServer(replies=harsh) as b:
        results = evaluate(rows, ["answer_relevance", "context_recall", "context_relevance"],
                           judge=judges(("honest", a), ("harsh", b), harsh={"weight": 3}), out_dir=tmp_path / "run")
        assert sum(1 for r in a.requests if r["kind"] == "other") == 3  # one call per metric and judge
        assert sum(1 for r in b.requests if r["kind"] == "other") == 3
    m = results.samples[0].metrics
    rel = m["answer_relevance"]
    assert rel.details["jury"] == {"honest": 1.0, "harsh": 0.0} and rel.details["jury_spread"] == 1.0
    assert rel.value == 0.25  # weighted mean: (1 x 1 + 3 x 0) / 4
    assert set(rel.details["jury_usage"]) == {"honest", "harsh"} and rel.details["usage"]["requests"] == 2
    assert m["context_recall"].details["jury"] == {"honest": 1.0, "harsh": 1.0}
    j = results.meta["jury"]["default"]
    assert j["answer_relevance"]["unit"] == "samples" and j["answer_relevance"]["disagreement_rate"] == 1.0
    assert j["answer_relevance"]["fleiss_kappa"] is None and "not labels" in j["answer_relevance"]["kappa_note"]
    assert j["context_recall"]["disagreement_rate"] == 0.0
    # context_relevance: every judge labels the same chunks, so the jury votes chunk by chunk, with kappas
    items = m["context_relevance"].details["jury_items"]["items"]
    assert items[0]["jury"] == {"honest": "relevant", "harsh": "not_relevant"}
    assert items[0]["label"] == "not_relevant" and items[0]["agreement"] == 0.75  # the harsh judge weighs 3
    assert items[1] == {"index": 1, "jury": {"honest": "not_relevant", "harsh": "not_relevant"},
                        "label": "not_relevant", "agreement": 1.0}
    cr = j["context_relevance"]
    assert (cr["unit"], cr["units"], cr["split_units"]) == ("chunks", 2, 1) and cr["disagreement_rate"] == 0.5
    assert cr["pairwise_kappa"] == {"honest|harsh": 0.0}


def test_weights_break_a_tie_and_a_failed_judge_casts_no_vote(tmp_path):
    rows = [{"id": "0", "answer": "Paris is in France. The PLANTED tower is blue.", "contexts": [CONTEXT]}]
    with FaultServer() as a, FaultServer(verdict=lenient) as b, FaultServer() as down:
        jury = judges(("honest", a), ("lenient", b), ("down", down), lenient={"weight": 2},
                      down={"max_retries": 0, "base_url": down.base_url + "/leak-error500"})
        r = evaluate(rows, ["faithfulness"], judge=jury, out_dir=tmp_path / "run").samples[0].metrics["faithfulness"]
    planted = r.details["verdicts"][1]
    assert planted["jury"] == {"honest": "unverifiable", "lenient": "supported", "down": None}
    assert planted["label"] == "supported" and abs(planted["agreement"] - 2 / 3) < 1e-9
    assert r.details["jury_statuses"]["down"] == types.JUDGE_ERROR and r.value == 1.0
    assert r.details["jury"] == {"honest": 0.5, "lenient": 1.0, "down": None}


def test_judges_times_repeats(tmp_path):
    rows = [{"id": "0", "answer": "Paris is in France. The PLANTED tower is blue.", "contexts": [CONTEXT]}]
    with FaultServer() as a, FaultServer(verdict=lenient, fail_seeds={1}) as b:
        jury = judges(("honest", a), ("lenient", b), lenient={"repeats": 3, "temperature": 0.7, "max_retries": 0})
        results = evaluate(rows, ["faithfulness"], judge=jury, out_dir=tmp_path / "run")
        seeds = sorted(r["body"]["seed"] for r in b.requests if r["kind"] == "verify")
        assert seeds == [0, 1, 2]  # its three repeats, only at its own server
        assert sorted(r["body"]["seed"] for r in a.requests if r["kind"] == "verify") == [0]
    r = results.samples[0].metrics["faithfulness"]
    rep = r.details["jury_repeats"]["lenient"]
    assert rep["statuses"] == ["ok", "judge_error", "ok"] and rep["n"] == 3
    assert r.details["verdicts"][1]["jury"] == {"honest": "unverifiable", "lenient": "supported"}
    assert results.meta["jury"]["default"]["faithfulness"]["flip_rate"] == {"honest": None, "lenient": 0.0}
    assert "judge_repeats" not in results.meta  # each judge's repeats are the jury's, not one judge's


def test_a_resumed_run_recomputes_the_jury_figures_from_the_results_file(tmp_path):
    rows = [{"id": str(i), "answer": a, "contexts": [CONTEXT]}
            for i, a in enumerate(["Paris is in France. The PLANTED tower is blue.", "Paris is in France."])]
    source = tmp_path / "d.jsonl"
    source.write_text("".join(__import__("json").dumps(r) + "\n" for r in rows))
    with FaultServer() as a, FaultServer(verdict=lenient) as b:
        jury = judges(("honest", a), ("lenient", b))
        first = evaluate(str(source), ["faithfulness"], judge=jury, out_dir=tmp_path / "run")
        lines = (tmp_path / "run" / "results.jsonl").read_text().splitlines()
        (tmp_path / "run" / "results.jsonl").write_text(lines[0] + "\n")  # the second sample was lost
        before = (a.total, b.total)
        again = evaluate(str(source), ["faithfulness"], judge=jury, out_dir=tmp_path / "run", resume=True)
        assert a.total - before[0] == 2 and b.total - before[1] == 1  # only the lost sample is judged again
    mine, theirs = first.meta["jury"]["default"]["faithfulness"], again.meta["jury"]["default"]["faithfulness"]
    for key in ("units", "split_units", "fleiss_kappa", "pairwise_kappa", "judge_means"):
        assert mine[key] == theirs[key], key
