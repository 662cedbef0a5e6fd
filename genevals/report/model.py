"""The page's data: one JSON document (``format`` 2) built from one or more run folders by :func:`build_data`.

results.jsonl is read twice, streamed. Pass 1 turns each row at once into compact values
(:class:`~genevals.report.values.SampleValues`: 29 bytes per sample in memory, values spilled to a temporary
file and read back one metric at a time); summaries, histograms, rank and verdict counts and paired
comparisons (:mod:`genevals.report.stats`) use every sample. Pass 2 reads back only the lines of the samples
the page embeds: at most ``max_detailed_samples`` with their texts (hallucination-review material first,
:func:`select_detailed`) and at most ``max_table_samples`` with their values, for the table and scatter plot.

What each metric means on the page (lower is better, drawn on 0-1, banded) comes from the runs'
outputs.json (:func:`genevals.report.bands.metric_facts`). Every string from the files is cleaned as hostile
input (:mod:`genevals.report.clean`).
"""
from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Mapping  # not typing's: its isinstance is several times slower (66,000 a run)
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from genevals.stats import comparisons
from genevals.output import thresholds
from genevals.output.languages import language_line
from genevals.report import bands, stats
from genevals.report.jury import page_jury
from genevals.report.clean import (CLAIMS_METRIC, claim_labels, flat_meta, invented_of, judge_info, num,
                                   page_repeats, page_summary, sample_texts, text)
from genevals.report.load import Run, declaration, load_run, unique_names
from genevals.report.citations import page_citations
from genevals.report.conversations import attach_turns, page_conversations, turn_fields
from genevals.report.rag import page_rag
from genevals.report.held import add_held, held_lines, held_texts
from genevals.report.samples import page_samples, select_detailed, table_samples
from genevals.report.values import SampleValues
from genevals.stats import DEFAULT_SEED

FORMAT = 2
#: Samples whose texts (question, answer, contexts, references, judge claims) the page embeds, by default.
MAX_DETAILED_SAMPLES = 2_000
#: Retrieved contexts the page embeds with the detailed samples' texts, in all: past it, the remaining samples come
#: without texts, as past MAX_DETAILED_SAMPLES (2,000 TREC topics of 1,000 documents made a 132 MB page and a
#: 1 GB report build; 200,000 contexts are about 13 MB of page)
MAX_PAGE_CONTEXTS = 200_000
#: Samples whose values (without texts) the page embeds for its table and scatter plot, by default.
MAX_TABLE_SAMPLES = 10_000
#: What makes two judge descriptions the same judge; their other fields (the context kind of one sample, the
#: prompt version of one metric) vary within a run and are listed together, so each judge is shown once.
JUDGE_IDENTITY = ("backend", "model", "base_url", "method", "weights_hash")


class _Numbering(list):
    """Keys numbered 0, 1, ... in the order first seen (``self[i]`` is key ``i``)."""

    def __init__(self) -> None:
        super().__init__()
        self.position: dict[Hashable, int] = {}

    def __call__(self, key: Hashable) -> int:
        if key not in self.position:
            self.position[key] = len(self)
            self.append(key)
        return self.position[key]


class _Notes:
    """The judges and judge warnings found in summaries and in the claims metric's details."""

    def __init__(self) -> None:
        self.judges: dict[str, dict[str, list[str]]] = {}  # identity -> field -> its values, in order seen
        self.warnings: set[str] = set()
        self.invented = [0, 0]  # claims not in their answer, samples with any

    def invented_warning(self) -> None:
        claims, samples = self.invented
        if claims:
            self.warnings.add(
                f"Judge quality: the judge returned {claims} claim(s) in {samples} sample(s) that are not in the "
                "answer (invented, or copied from the prompt's worked example). They are not counted or listed "
                "as the answers' claims; each such sample's details show them with the judge's replies.")

    def judge(self, value: Any) -> None:
        info = judge_info(value)
        if info is not None:
            fields = self.judges.setdefault(json.dumps([info.get(k) for k in JUDGE_IDENTITY]), {})
            for key, v in info.items():
                if v not in fields.setdefault(key, []):
                    fields[key].append(v)

    def judge_list(self) -> list[dict[str, str]]:
        """Each judge once, a field that varied reading "a, b"."""
        return [{k: ", ".join(vs) for k, vs in fields.items()} for fields in self.judges.values()]

    def meta(self, meta: Any) -> None:
        for key, value in (meta.items() if isinstance(meta, Mapping) else ()):
            if "warning" in str(key).lower():
                # {family: warning} (judge_warnings) reads "family: warning", never as a raw dict
                items = ([f"{text(k)}: {text(v)}" for k, v in value.items() if v] if isinstance(value, Mapping)
                         else value if isinstance(value, list) else [value])
                self.warnings.update(text(item) for item in items if item)
            elif str(key).lower() == "judge":
                self.judge(value)
            elif str(key) in ("qrels_judged_by", "contexts_kept") and isinstance(value, Mapping) \
                    and value.get("note"):  # qrels made by `genevals label`; a deep run's documents listed
                self.warnings.add(text(value["note"]))
            elif str(key) == "judge_agreement" and isinstance(value, Mapping) and value.get("passed") is False:
                self.warnings.add(text(value.get("line")))  # --require-agreement failed: the judge may not gate


def _scan_row(row: Mapping[str, Any], k: int, store: SampleValues, metrics: _Numbering, notes: _Notes) -> None:
    """Record one results row's values, statuses and verdict counts in ``store`` (its texts are not kept)."""
    row_metrics = row.get("metrics")
    for name, metric in (row_metrics.items() if isinstance(row_metrics, Mapping) else ()):
        if not isinstance(metric, Mapping):
            continue
        name = text(name)
        m = metrics(name)
        status = text(metric.get("status") or "ok")
        value = num(metric.get("value"), None)  # full precision for the comparisons
        if status == "ok" and value is not None:
            store.set_value(k, m, value)
        else:
            store.set_status(k, m, status, text(metric.get("reason")))
        details = metric.get("details")
        if name == CLAIMS_METRIC and isinstance(details, Mapping):
            labels = claim_labels(details)
            if labels is not None:
                store.set_verdicts(k, labels)
            notes.judge(details.get("judge"))
            invented = len(invented_of(details))
            if invented:
                notes.invented[0] += invented
                notes.invented[1] += 1
            if details.get("warning"):
                notes.warnings.add(text(details["warning"]))


def _systems(runs: Sequence[Run], run_names: Sequence[str], keys: Sequence[tuple[int, str]],
             sizes: Sequence[int]) -> list[dict[str, Any]]:
    """Each system's label ("run/system" for a system name found in more than one run), run, sample count,
    summary and corpus scores."""
    seen_in: dict[str, set[int]] = {}
    for r, system in keys:
        seen_in.setdefault(system, set()).add(r)
    labels: list[str] = []
    out = []
    for (r, system), count in zip(keys, sizes):
        label = f"{run_names[r]}/{system}" if len(runs) > 1 and len(seen_in[system]) > 1 else system
        base, i = label, 2
        while label in labels:
            label, i = f"{base}#{i}", i + 1
        labels.append(label)
        summary = runs[r].summary
        summary_systems, corpus = summary.get("systems"), summary.get("corpus")
        metrics = summary_systems.get(system) if isinstance(summary_systems, Mapping) else None
        corpus = corpus.get(system) if isinstance(corpus, Mapping) else None
        repeats = summary.get("meta", {}).get("judge_repeats") if isinstance(summary.get("meta"), Mapping) else None
        jury = summary.get("meta", {}).get("jury") if isinstance(summary.get("meta"), Mapping) else None
        out.append({"label": label, "system": system, "run": r, "n": count, "summary": page_summary(metrics),
                    "corpus": {text(k): num(v) for k, v in (corpus.items() if isinstance(corpus, Mapping) else ())
                               if num(v) is not None},
                    "repeats": page_repeats(repeats.get(system) if isinstance(repeats, Mapping) else None),
                    "jury": page_jury(jury.get(system) if isinstance(jury, Mapping) else None)})
    return out


def _thresholds(given: Any, runs: Sequence[Run]) -> dict[str, dict[str, Any]]:
    """The thresholds asked for, else the ``--fail-under`` / ``--fail-over`` ones the runs recorded; metric ->
    {"limit", "kind"} (:mod:`genevals.output.thresholds`)."""
    found = thresholds.normalise(given)
    if not found:
        for run in runs:
            meta = run.summary.get("meta")
            for kind in thresholds.KINDS:
                recorded = meta.get(kind) if isinstance(meta, Mapping) else None
                if isinstance(recorded, Mapping):
                    found.update({str(k): thresholds.Threshold(str(k), float(v), kind)
                                  for k, v in recorded.items() if num(v) is not None})
    return {name: t.to_dict() for name, t in found.items()}


def _seed(summary: Mapping[str, Any]) -> int | None:
    seed = summary.get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def _run_info(run: Run, name: str, n_samples: int) -> dict[str, Any]:
    summary = run.summary
    signatures, skipped = summary.get("signatures"), summary.get("skipped")
    signatures = signatures if isinstance(signatures, Mapping) else {}
    return {"name": name, "path": str(run.path), "genevals_version": text(summary.get("genevals_version")),
            "seed": _seed(summary), "n_samples": n_samples,
            "signatures": {text(k): text(v) for k, v in signatures.items()},
            "skipped": len(skipped) if isinstance(skipped, list) else 0, "meta": flat_meta(summary.get("meta")),
            # the run's languages, as the terminal says them (summary.json's ``language``)
            "language": language_line(summary.get("language"))}


def _stored_comparisons(runs: Sequence[Run], systems: Sequence[tuple[int, str]]):
    """``known(a, b, metric)`` for :func:`genevals.stats.comparisons.compare_systems`: the comparison a run's
    summary.json already holds for two of its own systems (made by the same function, seed and resamples when
    the run ended), so the Compare tab shows those figures without bootstrapping them again."""
    stored: dict[tuple[int, str, str, str], Mapping[str, Any]] = {}
    for r, run in enumerate(runs):
        for c in run.summary.get("comparisons") or ():
            try:
                if all(num(c[k], None) is not None for k in ("n_pairs", "mean_difference", "p_value")) \
                        and len(c["ci95"]) == 2 and isinstance(c["significant"], bool):
                    stored[(r, str(c["a"]), str(c["b"]), str(c["metric"]))] = c
            except (KeyError, TypeError):  # a summary from before issue 37, or edited by hand: computed instead
                continue

    def known(a: int, b: int, metric: str) -> Mapping[str, Any] | None:
        (run_a, name_a), (run_b, name_b) = systems[a], systems[b]
        return stored.get((run_a, name_a, name_b, metric)) if run_a == run_b else None
    return known


def _signature_skips(runs: Sequence[Run], systems: Sequence[tuple[int, str]], metrics: Sequence[str],
                     pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int, str], str]:
    """(a, b, metric) -> why, for each pair of systems of two runs that scored the metric under signatures that
    differ (:func:`genevals.signature.signature_difference`): those are not compared, and the page says why."""
    from genevals.signature import signature_difference, signature_of

    families = {m: d["family"] for m in metrics
                if isinstance(d := declaration(runs, m), Mapping) and isinstance(d.get("family"), str)}
    whys: dict[tuple[int, int, str], str | None] = {}
    out = {}
    for a, b in pairs:
        (ra, _), (rb, _) = systems[a], systems[b]
        for m in metrics if ra != rb else ():
            if (ra, rb, m) not in whys:
                whys[(ra, rb, m)] = signature_difference(signature_of(m, runs[ra].summary.get("signatures"), families),
                                                         signature_of(m, runs[rb].summary.get("signatures"), families))
            if whys[(ra, rb, m)] is not None:
                out[(a, b, m)] = whys[(ra, rb, m)]
    return out


def _leaderboard(system_info: Sequence[Mapping[str, Any]], facts: Sequence[Mapping[str, Any]],
                 page_comparisons: Sequence[Mapping[str, Any]], gated: Sequence[str],
                 apart: Mapping[tuple[int, int, str], str]) -> dict[str, Any]:
    """The Overview's leaderboard (:func:`genevals.stats.comparisons.leaderboard`) from the page's own summaries and
    paired comparisons (the Compare tab's), so the two tabs show the same figures; systems by their labels."""
    labels = [info["label"] for info in system_info]
    summaries = {info["label"]: {name: dict(s, coverage=bands.coverage(s)) for name, s in info["summary"].items()}
                 for info in system_info}
    named = [dict(c, a=labels[c["a"]], b=labels[c["b"]]) for c in page_comparisons]
    present = [f["name"] for f in facts if any(f["name"] in info["summary"] for info in system_info)]
    directions = {f["name"]: "lower" if f["lower_better"] else "higher" for f in facts}
    return comparisons.leaderboard(labels, summaries, named, comparisons.headline_metrics(present, gated),
                                   directions, {m: why for (_, _, m), why in apart.items()})


def build_data(run_dirs: Sequence[str | Path], thresholds: Any = None,
               max_detailed_samples: int = MAX_DETAILED_SAMPLES,
               max_table_samples: int | None = MAX_TABLE_SAMPLES,
               declared: Callable[[str], Mapping[str, Any] | None] | None = None,
               min_coverage: float = bands.DEFAULT_MIN_COVERAGE, all_pairs: bool = False,
               on_values: Callable[[SampleValues, list[tuple[int, str]], list[str]], None] | None = None,
               held: Sequence[Any] | None = None) -> dict[str, Any]:
    """The JSON document the page renders: runs, systems, metrics, samples, aggregates and comparisons.

    The page gets the texts of at most ``max_detailed_samples`` samples and the values of at most
    ``max_table_samples`` (None: all); everything else counts every sample. ``declared(name)``: an output's
    declaration for runs whose folder has no outputs.json (the caller knows the metrics; the report does not).
    ``thresholds``: :class:`~genevals.output.thresholds.Threshold` objects, or a mapping metric -> minimum; a mean
    covering less than ``min_coverage`` of its samples gets no band. ``on_values(store, systems, metrics)``: is
    handed every sample's values once they are read (the run history keeps some, without another pass).
    ``held``: per run, the values it still holds in memory (:mod:`genevals.report.held`), or None: its
    results.jsonl is then read for the values.
    """
    if not run_dirs:
        raise ValueError("no run folders given")
    runs = [load_run(d) for d in run_dirs]
    run_names = unique_names(runs)
    systems, metrics, notes = _Numbering(), _Numbering(), _Notes()
    for r, run in enumerate(runs):  # summary order first, so systems and metrics keep the summary's order
        summary_systems = run.summary.get("systems")
        for system, names in (summary_systems.items() if isinstance(summary_systems, Mapping) else ()):
            systems((r, text(system)))
            for name in names if isinstance(names, Mapping) else ():
                metrics(text(name))

    store = SampleValues()
    for r, run in enumerate(runs):  # pass 1: values only
        notes.meta(run.summary.get("meta"))
        if held is not None and held[r] is not None:
            add_held(held[r], store, lambda system, r=r: systems((r, text(system))), lambda name: metrics(text(name)))
            continue
        for number, row in run.rows():
            k = store.slot(systems((r, text(row.get("system", "default")))), text(row.get("id")), number)
            _scan_row(row, k, store, metrics, notes)
    store.finish(len(metrics))
    if on_values is not None:
        on_values(store, list(systems), list(metrics))
    n = len(store)
    sizes = np.bincount(np.asarray(store.sys, dtype=np.int64), minlength=len(systems)).tolist()

    detailed = select_detailed(store, max_detailed_samples)
    embedded = table_samples(n, detailed, max_table_samples)
    vc = np.frombuffer(store.vc, dtype=np.int32).reshape(-1, 3)
    hallucinated = (vc[:, 1] > 0) | (vc[:, 2] > 0)
    # Pass 2: reading only the embedded samples' lines, their ids and origins, and the detailed ones' texts
    # (within MAX_PAGE_CONTEXTS contexts: a detailed sample past it comes without texts).
    chosen = set(detailed)
    heads: dict[int, tuple[str, str]] = {}
    texts: dict[int, dict[str, Any]] = {}
    turns: dict[int, dict[str, Any]] = {}  # conversation turns' fields, for the conversation view
    contexts_left = MAX_PAGE_CONTEXTS
    for r, run in enumerate(runs):
        wanted = {store.line[k]: k for k in embedded if systems[store.sys[k]][0] == r}
        from_held = held is not None and held[r] is not None  # the records from memory, not the file
        lines = (held_lines(held[r], wanted, {number for number, k in wanted.items() if k in chosen}) if from_held
                 else run.lines(wanted))
        for number, row in lines:
            k = wanted[number]
            heads[k] = (text(row.get("id")), text(row.get("origin")))
            if row.get("conversation_id") is not None:
                turns[k] = turn_fields(row)
            if k in chosen:
                listed = row.get("contexts")
                contexts_left -= len(listed) if isinstance(listed, list) else 0
                if contexts_left < 0:
                    chosen.discard(k)
                    continue
                texts[k] = held_texts(row) if from_held else sample_texts(row)
                rag = page_rag(row.get("metrics"), texts[k]["a"], texts[k]["ctx"], texts[k]["refs"])
                if rag is not None:  # the RAG judges' drill-down
                    texts[k]["rag"] = rag
                cit = page_citations(row.get("metrics"), texts[k]["a"], texts[k]["ctx"])
                if cit is not None:  # the citation check's sentences and chips
                    texts[k]["cit"] = cit
    detailed = [k for k in detailed if k in chosen]
    n_hallucinated_detailed = int(hallucinated[np.asarray(detailed, dtype=np.int64)].sum()) if detailed else 0
    samples = page_samples(store, embedded, heads, texts, metrics)
    attach_turns(samples, embedded, turns, texts)
    del heads, texts, turns

    notes.invented_warning()
    system_info = _systems(runs, run_names, systems, sizes)
    missing = [s for s, info in enumerate(system_info) if not info["summary"]]
    for s, summary in stats.summaries_from_samples(store, metrics, missing).items():
        system_info[s]["summary"] = summary
    labels = [info["label"] for info in system_info]
    facts = [bands.metric_facts(name, declaration(runs, name) or (declared(name) if declared else None),
                                stats.seen_range(store, m))
             for m, name in enumerate(metrics)]
    seed = next((s for s in map(_seed, (run.summary for run in runs)) if s is not None), DEFAULT_SEED)
    page_thresholds = _thresholds(thresholds, runs)
    apart = _signature_skips(runs, list(systems), list(metrics), stats.meaningful_pairs(list(systems), all_pairs))
    page_comparisons = stats.compare_systems(store, labels, metrics, seed, groups=list(systems), all_pairs=all_pairs,
                                             known=_stored_comparisons(runs, systems),
                                             skip=lambda a, b, m: (a, b, m) in apart)
    per_run = [0] * len(runs)
    for (r, _system), count in zip(systems, sizes):
        per_run[r] += count
    return {
        "format": FORMAT,
        "runs": [_run_info(run, run_names[r], per_run[r]) for r, run in enumerate(runs)],
        "systems": system_info,
        "metrics": facts,
        "bands": bands.bands_table(),
        "thresholds": page_thresholds,
        "min_coverage": float(min_coverage),
        "judges": notes.judge_list(),
        "warnings": sorted(notes.warnings),
        "seed": seed,
        "comparisons": page_comparisons,
        "leaderboard": _leaderboard(system_info, facts, page_comparisons, list(page_thresholds), apart),
        # pairs of systems of two runs whose metric was scored under other signatures: not compared, and why
        "not_compared": [{"a": a, "b": b, "metric": m, "why": why} for (a, b, m), why in apart.items()],
        "comparison_pairs": "all" if all_pairs else "meaningful",
        # meaningful pairs with no question id in common (ids defaulted to row numbers): the Compare tab says so
        "unshared_ids": [list(pair) for pair in stats.unshared_pairs(store, stats.meaningful_pairs(list(systems),
                                                                                                  all_pairs))],
        "coverage": {"total": n, "detailed": len(detailed), "embedded": len(embedded),
                     "flagged": n - store.flagged.count(0), "max_detailed": max(0, int(max_detailed_samples)),
                     # set when the contexts' bound, not the samples', left detailed samples without texts
                     "max_contexts": MAX_PAGE_CONTEXTS if contexts_left < 0 else None,
                     "max_table": max_table_samples, "hallucinated": int(hallucinated.sum()),
                     "hallucinated_detailed": n_hallucinated_detailed},
        "histograms": stats.histograms(store, facts, len(systems)),
        "ranks": stats.ranks(store, metrics.position.get(stats.RANK_METRIC), len(systems)),
        "verdicts": stats.verdict_totals(store, len(systems)),
        "samples": samples,
        "conversations": page_conversations(samples),
    }
