"""The gates' accuracy as the card states it (``gate_accuracy``): measured on people's data by the project's
benchmarks, not on the set at hand, and packaged in ``gate_figures.json`` beside this module.

That file is written by ``benchmarks/bench_gates_answerability.py --card`` from the committed
``benchmarks/gates_answerability.json`` and ``benchmarks/gates_language.json`` and by nothing else;
``tests/generate/gates/test_measured.py`` checks that it holds exactly their figures. Each share there is
``{"value": k / n, "k": k, "n": n, "ci": [low, high]}`` with the Wilson 95% interval

    centre = (p + z^2 / 2n) / (1 + z^2 / n),  half = z sqrt(p (1 - p) / n + z^2 / 4n^2) / (1 + z^2 / n),  z = 1.96.

A judge gate's accuracy is its judge's: the figures name the judge they were measured with, and a set checked
by another judge has not been measured.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

PATH = Path(__file__).with_name("gate_figures.json")


@functools.lru_cache(maxsize=1)
def _packaged() -> str:
    return PATH.read_text(encoding="utf-8")


def _share(figure: dict[str, Any]) -> str:
    low, high = figure["ci"]
    # the interval as stored (4 decimals): rounding it again to 3 could move a bound (0.2065 to 0.206)
    return f"{figure['value']:.3f} ({figure['k']}/{figure['n']}; 95% {low:.4f}-{high:.4f})"


def _windows(by_language: dict[str, Any]) -> str:
    kept = {lang: f["kept_in_own"]["share"] for lang, f in by_language.items()}
    caught = {lang: f["rejected_in_other"]["share"] for lang, f in by_language.items()}

    def span(shares: dict[str, float]) -> str:
        low, high = min(shares, key=shares.get), max(shares, key=shares.get)
        return f"{shares[low]:.3f} ({low}) to {shares[high]:.3f} ({high})"

    return (f"wrong_language on XQuAD's answer windows in {len(by_language)} languages: kept in their own language "
            f"{span(kept)}; rejected when another language is asked {span(caught)}")


def gate_accuracy() -> dict[str, Any]:
    """The packaged figures, with what they say in words (each number read from them)."""
    figures = json.loads(_packaged())
    solve, alone = figures["unanswerable_from_source"], figures["not_self_contained"]
    ro = figures["wrong_language"]["ro"]
    lexical = solve["baseline_lexical_overlap_cv"]
    says = [
        f"unanswerable_from_source with {solve['judge']} on {solve['data']}: passes as answerable with precision "
        f"{_share(solve['precision'])}, recall {_share(solve['recall'])}, rejects "
        f"{_share(solve['rejection_rate_on_negatives'])} of the negatives ({solve['judge_errors']} of "
        f"{solve['pairs']} calls unreadable, counted as rejections); a lexical rule (question-word overlap, "
        f"threshold chosen out of sample): precision {_share(lexical['precision'])}, recall "
        f"{_share(lexical['recall'])}; the judge is "
        + ("better than" if solve["better_than_best_baseline"] else "NO better than")
        + f" the best trivial baseline ({solve['best_baseline']})",
        f"not_self_contained on {alone['data']}: {alone['false_positives']} false positives in {alone['n']} "
        f"({alone['false_positive_rate']['ci'][1]:.3f} at most, 95%); "
        f"{alone['pointing_caught']} of {alone['pointing']} questions that do cite their text caught"
        + ("" if alone["ro_phrase_table"] else " (no Romanian phrase table)"),
        f"wrong_language on {ro['n']} Romanian questions: kept when Romanian is asked {_share(ro['kept_as_ro'])}; "
        f"rejected when English is asked {_share(ro['rejected_as_en'])}, Italian {_share(ro['rejected_as_it'])} "
        f"({ro['why']})",
        _windows(figures["wrong_language"]["xquad_answer_windows"]),
    ]
    return {**figures, "says": says}
