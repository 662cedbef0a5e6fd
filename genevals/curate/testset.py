"""The curated set written: ``testset.jsonl`` in ``genevals generate``'s format (:mod:`genevals.generate.outputs`
owns the file names and the write aside and rename) and ``card.json`` with every count beside its n.

A row: ``id`` (``SAMPLE@SYSTEM``, ``#2``... when two run folders share one), ``question``, ``answer`` empty (the
place of the next system's answer, as in a generated set), ``references`` (a reviewer's correction first when
there is one, then the run's references), ``contexts`` and ``relevant`` as the run had them, ``language`` when
the run set one, and ``metadata``: ``rules`` (which rules chose it), ``reference_source`` (``reviewer`` when the
first reference is a reviewer's correction, ``run`` when the run's, None when there is none), ``reviewer``,
``answer_seen`` (the answer the run scored), ``disputed`` (why), ``duplicates`` (the samples dropped as its
duplicates) and ``provenance`` (run folder, results line, sample id, system, trace and span id, window).
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from genevals.curate import rules as rule_set
from genevals.curate.candidates import Candidate, read_run, read_traces
from genevals.curate.config import CurateConfig, CurateError
from genevals.curate.dedup import deduplicate
from genevals.generate.outputs import CARD, TESTSET, write_aside


@dataclass(frozen=True)
class Outcome:
    """The rows written, the card, and for each rule that chose nothing, why (``rule name -> reason``)."""

    rows: list[dict[str, Any]]
    card: dict[str, Any]
    chose_nothing: dict[str, str]


def _metrics_seen(candidates: list[Candidate]) -> list[str]:
    seen: dict[str, None] = {}
    for c in candidates:
        metrics = c.row.get("metrics")
        for name in (metrics if isinstance(metrics, dict) else ()):
            seen.setdefault(str(name), None)
    return list(seen)


def _check_metric(name: str, seen: list[str], option: str) -> None:
    if name not in seen:
        raise CurateError(f"{option}: no result of the run folders has the metric {name[:80]!r} (they have: "
                          f"{', '.join(seen)[:300] or 'none'})")


def row_of(c: Candidate, row_id: str, rules: list[str], duplicates: list[dict[str, Any]]) -> dict[str, Any]:
    references = [r for r in c.row.get("references") or [] if isinstance(r, str)] \
        if isinstance(c.row.get("references"), list) else []
    source = "run" if references else None
    if c.correction is not None:
        references = [c.correction.text] + [r for r in references if r != c.correction.text]
        source = "reviewer"
    trace = c.row.get("trace") if isinstance(c.row.get("trace"), dict) else {}
    provenance = {"run": str(c.run), "line": c.line, "sample_id": c.id, "system": c.system,
                  "trace_id": trace.get("trace_id"), "span_id": trace.get("span_id"), "window": c.window}
    metadata = {"rules": rules, "reference_source": source,
                "reviewer": c.correction.reviewer if c.correction else None, "answer_seen": c.text("answer"),
                "disputed": c.disputed or None, "duplicates": duplicates, "provenance": provenance}
    row: dict[str, Any] = {"id": row_id, "question": c.text("question"), "answer": "", "references": references}
    if isinstance(c.row.get("contexts"), list):
        row["contexts"] = c.row["contexts"]
    if isinstance(c.row.get("relevant"), dict):
        row["relevant"] = c.row["relevant"]
    if isinstance(c.row.get("language"), str):
        row["language"] = c.row["language"]
    row["metadata"] = metadata
    return row


def curate(config: CurateConfig, emit: Callable[[str], None] = print) -> Outcome:
    """Read, choose, de-duplicate and write (``config.out``/testset.jsonl and card.json); CurateError for input
    it cannot use, before anything is written."""
    if config.review is not None and len(config.runs) != 1:
        raise CurateError("--review names one review store: give one run folder with it")
    candidates: list[Candidate] = []
    sources = []
    for run in config.runs:
        these = list(read_traces(run, config.trace_format) if run.is_file() else read_run(run, config.review))
        sources.append({"run": str(run), "samples": len(these), "window": these[0].window if these else None})
        candidates += these
    no_question = [c for c in candidates if not c.text("question").strip()]
    candidates = [c for c in candidates if c.text("question").strip()]
    seen = _metrics_seen(candidates)
    band_metric = config.band_metric or (seen[0] if seen else "")
    for rule in config.rules:
        if rule.kind == "low":
            _check_metric(rule.metric, seen, f"--rule {rule.name}")
        if rule.kind == "sample" and config.band_metric is not None:
            _check_metric(config.band_metric, seen, "--band-metric")
    per_rule, draw, chosen_by = {}, None, {}
    for rule in config.rules:
        chosen, about = rule_set.choose(rule, candidates, band_metric, config.seed)
        draw = about if about is not None else draw
        per_rule[rule.name] = chosen
        for i in chosen:
            chosen_by.setdefault(i, []).append(rule.name)
    order = sorted(chosen_by)
    union = [candidates[i] for i in order]
    kept, duplicates = deduplicate([(c.text("question"), c.text("answer")) for c in union], config.near)
    dropped_by: dict[int, list[dict[str, Any]]] = {}
    for d in duplicates:
        gone = union[d.dropped]
        dropped_by.setdefault(d.kept, []).append({"run": str(gone.run), "line": gone.line, "sample_id": gone.id,
                                                  "system": gone.system, "kind": d.kind, "ratio": d.ratio})
    rows, ids = [], Counter()
    for i in kept:
        c = union[i]
        base = f"{c.id}@{c.system}"
        ids[base] += 1
        rows.append(row_of(c, base if ids[base] == 1 else f"{base}#{ids[base]}", chosen_by[order[i]],
                           dropped_by.get(i, [])))
    kept_rules = Counter(r for row in rows for r in row["metadata"]["rules"])
    card = {
        "kind": "curated",
        "sources": sources,
        "candidates": len(candidates),
        "left_out_no_question": len(no_question),
        "rules": {name: {"chosen": len(chosen), "n": len(candidates), "written": kept_rules[name]}
                  for name, chosen in per_rule.items()},
        "chosen": {"value": len(union), "n": len(candidates)},
        "duplicates": {"exact": sum(d.kind == "exact" for d in duplicates),
                       "near": sum(d.kind == "near" for d in duplicates), "n": len(union),
                       "near_threshold": config.near,
                       "method": "sha256 of normalised question+answer; rapidfuzz fuzz.ratio >= near_threshold"},
        "references_from_reviewers": {"value": sum(r["metadata"]["reference_source"] == "reviewer" for r in rows),
                                      "n": len(rows)},
        "per_system": {s: {"written": sum(r["metadata"]["provenance"]["system"] == s for r in rows),
                           "candidates": sum(c.system == s for c in candidates)}
                       for s in sorted({c.system for c in candidates})},
        "written": len(rows),
        "seed": config.seed,
        "sample": draw,
    }
    config.out.mkdir(parents=True, exist_ok=True)
    write_aside(config.out / TESTSET, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    write_aside(config.out / CARD, json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    emit(f"curate: {len(candidates)} samples from {len(config.runs)} source(s)"
         + (f" ({len(no_question)} without a question left out)" if no_question else ""))
    for name, chosen in per_rule.items():
        emit(f"  rule {name}: chose {len(chosen)} of {len(candidates)}")
    emit(f"  chosen by any rule: {len(union)}; duplicates removed: {card['duplicates']['exact']} exact, "
         f"{card['duplicates']['near']} near (rapidfuzz ratio >= {config.near:g}); references from reviewers: "
         f"{card['references_from_reviewers']['value']}")
    emit(f"wrote {config.out / TESTSET} ({len(rows)} rows) and {config.out / CARD}")
    nothing = {rule.name: rule_set.why_none(rule.kind, candidates) for rule in config.rules
               if not per_rule[rule.name]}
    return Outcome(rows, card, nothing)
