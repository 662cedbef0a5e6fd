"""genevals.metrics.retrieval.ranking against reference values from trec_eval, pytrec_eval, ir_measures and ranx.

The vectors are committed under ``tests/data/`` (sources and licences in ``tests/data/README.md``).
trec_eval's own input handling (sort by score desc, ties by docno DESCENDING strcmp; only run topics
averaged unless -c; -M truncation; -l relevance level) is reproduced here in the harness, because genevals
itself uses the retrieved order as given.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pytest

from genevals.metrics.retrieval import ranking as rk

DATA = Path(__file__).resolve().parents[2] / "data"
TREC_FILE = DATA / "trec_eval" / "trec_eval_test_vectors.json"
UNIT_DIR = DATA / "retrieval_unit"

# Values are printed with 4 decimals: the rounding error is at most 5e-5 (plus float noise).
TOL_4DP = 5e-5 + 1e-9


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def trec_sort(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """trec_eval's order: score descending, ties broken by docno in descending strcmp order."""
    rows = sorted(rows, key=lambda r: r["docno"].encode(), reverse=True)
    rows.sort(key=lambda r: -float(r["score"]))  # stable: ties keep docno descending
    return [r["docno"] for r in rows]


def trec_rankings(run: Sequence[Mapping[str, Any]], max_docs: int | None = None) -> dict[str, list[str]]:
    by_topic: dict[str, list[Mapping[str, Any]]] = {}
    for r in run:
        by_topic.setdefault(str(r["qid"]), []).append(r)
    out = {}
    for q, rows in by_topic.items():
        ranking = trec_sort(rows)
        out[q] = ranking[:max_docs] if max_docs else ranking
    return out


def measure_fn(name: str, rel_level: float) -> Callable[[list[str], Mapping[str, float]], float] | None:
    """Our function for a trec_eval measure name, or None when genevals has no counterpart."""
    if name == "map":
        return lambda r, q: rk.average_precision(r, q, rel_level)
    if name == "recip_rank":
        return lambda r, q: rk.reciprocal_rank(r, q, rel_level)
    if name == "ndcg":
        return lambda r, q: rk.ndcg_at_k(r, q, None)
    if name == "set_P":
        return lambda r, q: rk.precision_at_k(r, q, len(r), rel_level) if r else 0.0
    if name == "set_recall":
        return lambda r, q: rk.recall_at_k(r, q, len(r), rel_level) if r else 0.0
    if name == "set_F":  # trec_eval set_F default beta = 1
        return lambda r, q: rk.f1_at_k(r, q, len(r), rel_level) if r else 0.0
    m = re.fullmatch(r"(P|recall|ndcg_cut|success)_(\d+)", name)
    if not m:
        return None
    kind, k = m.group(1), int(m.group(2))
    return {
        "P": lambda r, q: rk.precision_at_k(r, q, k, rel_level),
        "recall": lambda r, q: rk.recall_at_k(r, q, k, rel_level),
        "ndcg_cut": lambda r, q: rk.ndcg_at_k(r, q, k),
        "success": lambda r, q: rk.hit_rate_at_k(r, q, k, rel_level),
    }[kind]


# Measures trec_eval reports that have no counterpart in genevals (checked by name so that a new
# measure appearing in the vectors fails loudly instead of being skipped silently).
UNSUPPORTED_TREC = re.compile(
    r"runid|num_q|num_ret|num_rel|num_rel_ret|num_nonrel_judged_ret|gm_map|gm_bpref|Rprec|Rprec_mult_.*|"
    r"bpref|infAP|iprec_at_recall_.*|11pt_avg.*|map_cut_\d+|relative_P_\d+|set_map|set_relative_P|"
    r"ndcg_rel|Rndcg|rbp|rbp_resid|G|binG|unj_\d+|utility.*|relstring.*|ndcg_\d.*"
)

_TREC = _load(TREC_FILE)


def _case_id(c: Mapping[str, Any]) -> str:
    return c["expected_file"]


def _options(case: Mapping[str, Any]) -> tuple[float, bool, int | None]:
    cmd = case["command"].split()
    rel_level = 1.0
    complete = False
    max_docs = None
    for tok in cmd:
        if m := re.fullmatch(r"-l(\d+)", tok):
            rel_level = float(m.group(1))
        elif tok == "-c":
            complete = True
        elif m := re.fullmatch(r"-M(\d+)", tok):
            max_docs = int(m.group(1))
    return rel_level, complete, max_docs


def test_trec_eval_sort_tie_break() -> None:
    rows = [{"docno": "A", "score": 1.0}, {"docno": "C", "score": 1.0}, {"docno": "B", "score": 2.0},
            {"docno": "B2", "score": 1.0}]
    assert trec_sort(rows) == ["B", "C", "B2", "A"]


@pytest.mark.parametrize("case", _TREC["cases"], ids=_case_id)
def test_trec_eval_case(case: Mapping[str, Any]) -> None:
    qrels_all = {q: {d: float(v) for d, v in docs.items()} for q, docs in _TREC["inputs"][case["qrels"]].items()}
    rel_level, complete, max_docs = _options(case)
    runs = trec_rankings(_TREC["inputs"][case["run"]], max_docs)
    topics = sorted(qrels_all) if complete else sorted(q for q in runs if q in qrels_all)
    expected = case["expected"]
    assert expected["all"].get("num_q", len(topics)) == len(topics)

    checked = 0
    unsupported: set[str] = set()
    for measure, want_all in expected["all"].items():
        fn = measure_fn(measure, rel_level)
        if fn is None:
            assert UNSUPPORTED_TREC.fullmatch(measure), f"unclassified trec_eval measure {measure}"
            unsupported.add(measure)
            continue
        per_q = {q: fn(runs.get(q, []), qrels_all[q]) for q in topics}
        for q, got in per_q.items():
            if q in expected:
                want = expected[q][measure]
                assert got == pytest.approx(want, abs=TOL_4DP), f"{case['expected_file']} {measure} topic {q}"
                checked += 1
        mean = sum(per_q.values()) / len(per_q)
        assert mean == pytest.approx(want_all, abs=TOL_4DP), f"{case['expected_file']} {measure} all"
        checked += 1
    assert checked > 0
    # The mandatory measures are present whenever trec_eval printed them.
    for must in ("map", "recip_rank", "P_5"):
        if must in expected["all"]:
            assert must not in unsupported


def test_trec_eval_cases_cover_required_measures() -> None:
    seen = set()
    for case in _TREC["cases"]:
        seen.update(case["expected"]["all"])
    for name in ("map", "recip_rank", "P_5", "recall_5", "ndcg_cut_10", "success_1"):
        assert name in seen


# --------------------------------------------------------------------------------------------------
# pytrec_eval's own unit tests (q1 only; q2 has an empty run)

_PTE_FILE = UNIT_DIR / "pytrec_eval_unit_cases.json"
_PTE = _load(_PTE_FILE)


@pytest.mark.parametrize("case", _PTE["cases"], ids=lambda c: f"{c['measure']}-{c['expected_q1']}")
def test_pytrec_eval_unit(case: Mapping[str, Any]) -> None:
    qrels = {d: float(v) for d, v in _PTE["qrels"]["q1"].items()}
    ranking = trec_sort([{"docno": d, "score": s} for d, s in case["run_q1"].items()])
    fn = measure_fn(case["measure"], 1.0)
    assert fn is not None, case["measure"]
    assert fn(ranking, qrels) == pytest.approx(case["expected_q1"], abs=1e-7)


# --------------------------------------------------------------------------------------------------
# ir_measures tests run through the pytrec_eval provider (trec_eval values)

_IRM_FILE = UNIT_DIR / "ir_measures_pytrec_eval_cases.json"
_IRM = _load(_IRM_FILE)

# ir_measures names genevals does not implement, by name.
IRM_UNSUPPORTED = {
    "NumRet": "count, not a metric", "NumQ": "count", "NumRel": "count",
    "SetRelP": "relative precision not implemented", "SetAP": "set_map not implemented",
    "IPrec": "interpolated precision not implemented", "infAP": "inferred AP not implemented",
}


def _irm_fn(measure: str) -> tuple[Callable[[list[str], Mapping[str, float]], float] | None, str]:
    m = re.fullmatch(r"(\w+)(?:\(([^)]*)\))?(?:@([\d.]+))?", measure)
    assert m, measure
    name, params, cut = m.group(1), m.group(2) or "", m.group(3)
    opts = dict(p.strip().split("=", 1) for p in params.split(",") if "=" in p) if params else {}
    if name in IRM_UNSUPPORTED:
        return None, IRM_UNSUPPORTED[name]
    rel = float(opts.pop("rel", 1))
    if "gains" in params:
        return None, "custom gain maps not supported"
    if opts.pop("judged_only", None) == "True":
        return None, "judged_only precision not supported"
    beta = float(opts.pop("beta", 1.0))
    if beta != 1.0:
        return None, f"F-beta with beta={beta} not supported (genevals has F1)"
    assert not opts, f"unhandled ir_measures options {opts} in {measure}"
    k = int(cut) if cut else None
    if name == "AP":
        return (lambda r, q: rk.average_precision(r, q, rel)), ""
    if name == "RR":
        return (lambda r, q: rk.reciprocal_rank(r, q, rel)), ""
    if name == "nDCG":
        return (lambda r, q: rk.ndcg_at_k(r, q, k)), ""
    if name == "P" and k:
        return (lambda r, q: rk.precision_at_k(r, q, k, rel)), ""
    if name == "R" and k:
        return (lambda r, q: rk.recall_at_k(r, q, k, rel)), ""
    if name == "Success" and k:
        return (lambda r, q: rk.hit_rate_at_k(r, q, k, rel)), ""
    if name == "SetP":
        return (lambda r, q: rk.precision_at_k(r, q, len(r), rel) if r else 0.0), ""
    if name == "SetR":
        return (lambda r, q: rk.recall_at_k(r, q, len(r), rel) if r else 0.0), ""
    if name == "SetF":
        return (lambda r, q: rk.f1_at_k(r, q, len(r), rel) if r else 0.0), ""
    raise AssertionError(f"unclassified ir_measures measure {measure}")


@pytest.mark.parametrize("case", _IRM["cases"], ids=lambda c: c["measure"])
def test_ir_measures_pytrec_eval(case: Mapping[str, Any]) -> None:
    fn, why = _irm_fn(case["measure"])
    if fn is None:
        pytest.skip(f"{case['measure']}: {why}")
    qrels = {q: {d: float(v) for d, v in docs.items()} for q, docs in case["qrels"].items()}
    runs = trec_rankings(case["run"])
    places = case["tolerance_places"]
    tol = 0.5 * 10 ** -places + 1e-9 if places else 1e-7
    got = {q: fn(runs[q], qrels.get(q, {})) for q in runs if q in qrels}
    for q, want in case["per_query"].items():
        assert got[q] == pytest.approx(want, abs=tol), f"{case['measure']} query {q}"
    if case["aggregate"] is not None:
        assert sum(got.values()) / len(got) == pytest.approx(case["aggregate"], abs=tol)


# --------------------------------------------------------------------------------------------------
# ranx unit tests (already-ranked lists)

_RANX_FILE = UNIT_DIR / "ranx_unit_cases.json"
_RANX = _load(_RANX_FILE)


def _dedupe(ids: Sequence[Any]) -> list[str]:
    seen: set[str] = set()
    out = []
    for x in ids:
        s = str(x)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def _ranx_fn(metric: str) -> tuple[Callable[[list[str], Mapping[str, float]], float] | None, str]:
    m = re.match(r"([a-z_\-]+)(?:@(\d+))?", metric)
    assert m, metric
    name, k = m.group(1), int(m.group(2)) if m.group(2) else None
    if name == "r-precision":
        return None, "r-precision not implemented"
    if name == "map":  # ranx map@k on a ranking no longer than k == trec_eval map
        return (lambda r, q: rk.average_precision(r[:k] if k else r, q)), ""
    if name == "mrr":
        return (lambda r, q: rk.reciprocal_rank(r[:k] if k else r, q)), ""
    if name == "recall":
        return (lambda r, q: rk.recall_at_k(r, q, k)), ""
    if name == "dcg":
        return (lambda r, q: rk.dcg_at_k(r, q, k, "linear")), ""
    if name == "ndcg":
        return (lambda r, q: rk.ndcg_at_k(r, q, k)), ""
    if name == "dcg_burges":
        return (lambda r, q: rk.dcg_at_k(r, q, k, "exp")), ""
    if name == "ndcg_burges":
        return (lambda r, q: rk.ndcg_exp_at_k(r, q, k)), ""
    raise AssertionError(f"unclassified ranx metric {metric}")


def _ranx_query(q: Mapping[str, Any]) -> tuple[list[str], dict[str, float]]:
    if "graded_qrels" in q:
        qrels = {str(d): float(g) for d, g in q["graded_qrels"].items()}
    else:
        qrels = {str(d): 1.0 for d in q["relevant"]}
    return _dedupe(q["ranking"]), qrels


@pytest.mark.parametrize("case", _RANX["cases"], ids=lambda c: f"{c['test']}-{c['metric']}")
def test_ranx_unit(case: Mapping[str, Any]) -> None:
    fn, why = _ranx_fn(case["metric"])
    if fn is None:
        pytest.skip(f"{case['metric']}: {why}")
    queries = case.get("queries") or [case]
    values = [fn(*_ranx_query(q)) for q in queries]
    assert sum(values) / len(values) == pytest.approx(case["expected"], rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------------------------------
# Optional live cross-check with pytrec_eval (the trec_eval C code) on random rankings.

def test_live_pytrec_eval_random() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    import random

    rnd = random.Random(7)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    rankings: dict[str, list[str]] = {}
    for qi in range(200):
        q = f"q{qi}"
        docs = [f"d{j}" for j in range(30)]
        qrels[q] = {d: rnd.choice([0, 0, 0, 1, 2, 3]) for d in rnd.sample(docs, 15)}
        if not any(v >= 1 for v in qrels[q].values()):
            qrels[q]["d0"] = 1
        retrieved = rnd.sample(docs, rnd.randint(1, 20))
        rankings[q] = retrieved
        # distinct descending scores, so trec_eval keeps our order
        run[q] = {d: float(len(retrieved) - i) for i, d in enumerate(retrieved)}
    measures = {"map", "recip_rank", "P_5", "recall_10", "ndcg_cut_3", "ndcg_cut_10", "success_1", "ndcg"}
    ev = pytrec_eval.RelevanceEvaluator(qrels, measures)
    res = ev.evaluate(run)
    for q, vals in res.items():
        qr = {d: float(v) for d, v in qrels[q].items()}
        for m, want in vals.items():
            fn = measure_fn(m, 1.0)
            assert fn is not None
            assert fn(rankings[q], qr) == pytest.approx(want, abs=1e-9), (q, m)
            assert math.isfinite(want)
