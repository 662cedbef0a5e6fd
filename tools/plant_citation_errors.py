"""Cite the demo's answers, plant citation errors, and measure how many the offline citation check catches.

1. Cite (``datasets/demo/demo_cited.jsonl``): each factual sentence of a demo answer cites, as "[n]" (1-based
   position), the chunk that supports it, chosen WITHOUT the checker under test: among the row's chunks labelled
   relevant (the demo's ``relevant`` grades), the one holding most of the sentence's content words; a second
   relevant chunk joins when it adds at least 0.15 of them (the sentence then needs both). Sentences the demo
   planted as wrong (its contradicted, unsupported and "mixed" tail sentences) are cited the same way, and left
   out of the counts: their citations are wrong because their claims are.
2. Plant, one error per copy of an answer, in a sentence whose claim is right:
   - ``moved``: its citation moved to another retrieved chunk that is not labelled relevant;
   - ``out_of_range``: its citation replaced by one past the last context ([n + 1]);
   - ``removed``: its citation deleted;
   - ``union``: the sentence extended with a fact of another (unlabelled) chunk, "S, and F [g][h]" (untouched:
     only the union of both chunks supports it), then planted by dropping [h].
3. Score every copy with ``citations_local``. A planted error is caught when its sentence is not "supported"
   (or its answer is unscored as ``citation_out_of_range`` / ``no_citations``, which name it). A false alarm is an
   untouched right sentence (in the cited answers and the untouched union copies) that is not "supported".

``python tools/plant_citation_errors.py [--write]`` prints the figures as JSON (--write also rewrites
demo_cited.jsonl); the 95% intervals are Wilson score intervals, and (``_by_answer``) percentile intervals of
a bootstrap over answers (seeded), since the errors planted in one answer are not independent. Deterministic.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from genevals.claims.locate import grounded_fraction
from genevals.grounding.checker import segment, split_claims
from genevals.metrics.citations.local import CitationsLocal
from genevals.types import Sample

DEMO = ROOT / "datasets" / "demo" / "demo.jsonl"
CITED = ROOT / "datasets" / "demo" / "demo_cited.jsonl"
UNION_GAIN = 0.15
_END = re.compile(r"[.!?]+[\"')\u201d\u2019]*\Z")


def wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def cluster_ci(groups: dict, resamples: int = 2000, seed: int = 0) -> list[float]:
    """95% percentile interval of sum(k) / sum(n) over (k, n) per answer, resampling answers (errors planted in
    one answer are not independent)."""
    import numpy as np

    pairs = np.array(list(groups.values()), dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(pairs), size=(resamples, len(pairs)))
    k, n = pairs[picks, 0].sum(axis=1), pairs[picks, 1].sum(axis=1)
    shares = np.sort(k / np.maximum(n, 1))
    return [round(float(shares[int(0.025 * resamples)]), 4), round(float(shares[int(0.975 * resamples) - 1]), 4)]


def wrong_sentences(row: dict, n: int) -> set[int]:
    """The sentences the demo planted as wrong: every one of a contradicted or unsupported answer, the last of a
    mixed one."""
    label = row["metadata"]["demo_label"]
    if label in ("contradiction", "unsupported"):
        return set(range(n))
    return {n - 1} if label == "mixed" else set()


def gold(sentence: str, row: dict) -> list[int]:
    """The chunks (0-based) a sentence cites: see the module docstring."""
    texts = [c["text"] for c in row["contexts"]]
    relevant = [i for i, c in enumerate(row["contexts"]) if c.get("id") in row["relevant"]]
    pool = relevant or list(range(len(texts)))
    ranked = sorted(pool, key=lambda i: -grounded_fraction(sentence, texts[i]))
    best = ranked[0]
    if not relevant and grounded_fraction(sentence, texts[best]) < 0.5:
        return []
    chosen = [best]
    for other in ranked[1:2]:
        if grounded_fraction(sentence, texts[best], texts[other]) - grounded_fraction(sentence, texts[best]) \
                >= UNION_GAIN:
            chosen.append(other)
    return chosen


def cite(text: str, refs: list[int]) -> str:
    """The sentence with "[n]" markers before its final punctuation."""
    marks = "".join(f"[{r + 1}]" for r in refs)
    if not marks:
        return text
    end = _END.search(text)
    at = end.start() if end else len(text)
    return f"{text[:at]} {marks}{text[at:]}"


def build(row: dict) -> tuple[list[dict], str]:
    """The answer's sentences ({text, refs, right, factual}) and the cited answer."""
    spans = segment(row["answer"])
    factual = {s for s in split_claims(row["answer"])}
    wrong = wrong_sentences(row, len([s for s in spans if s in factual]))
    sentences, k = [], 0
    for s, e in spans:
        text = row["answer"][s:e]
        is_factual = (s, e) in factual
        refs = gold(text, row) if is_factual else []
        sentences.append({"text": text, "refs": refs, "factual": is_factual,
                          "right": is_factual and k not in wrong and bool(refs)})
        k += is_factual
    return sentences, join(sentences)


def join(sentences: list[dict]) -> str:
    return " ".join(cite(s["text"], s["refs"]) for s in sentences)


def union_fact(row: dict, refs: list[int]) -> int | None:
    """A retrieved chunk, not labelled relevant, whose first sentence can extend a sentence citing ``refs``."""
    for j, c in enumerate(row["contexts"]):
        if j not in refs and c.get("id") not in row["relevant"] and c["text"].strip():
            return j
    return None


def extend(text: str, fact: str) -> str:
    end = _END.search(text)
    core = text[:end.start()] if end else text
    fact = fact.rstrip(".")
    return f"{core}, and {fact[0].lower()}{fact[1:]}."


def plant(row: dict, sentences: list[dict]) -> list[tuple[str, str, int, list[dict]]]:
    """(kind, id suffix, planted sentence, sentences) of each planted copy, and the untouched union copies
    (kind "union_ok")."""
    n = len(row["contexts"])
    out = []
    for i, s in enumerate(sentences):
        if not s["right"]:
            continue

        def copy(at: int = i, **change) -> list[dict]:
            return [({**t, **change} if k == at else dict(t)) for k, t in enumerate(sentences)]

        others = [j for j, c in enumerate(row["contexts"]) if j not in s["refs"] and c.get("id") not in row["relevant"]]
        if others:
            out.append(("moved", f"moved{i}", i, copy(refs=[others[0]])))
        out.append(("out_of_range", f"oor{i}", i, copy(refs=[n])))  # [n + 1]: one past the last context
        out.append(("removed", f"removed{i}", i, copy(refs=[])))
        h = union_fact(row, s["refs"])
        if h is not None and len(s["refs"]) == 1:
            fact = row["contexts"][h]["text"]
            first = fact[slice(*segment(fact)[0])]
            text = extend(s["text"], first)
            out.append(("union_ok", f"union{i}", i, copy(text=text, refs=[s["refs"][0], h])))
            out.append(("union", f"unionpart{i}", i, copy(text=text, refs=[s["refs"][0]])))
    return out


def sample_of(row: dict, answer: str, suffix: str = "") -> Sample:
    from genevals.types import Context

    contexts = tuple(Context(c["text"], k + 1, c.get("id"), c.get("doc_id"), c.get("score"))
                     for k, c in enumerate(row["contexts"]))
    return Sample(id=row["id"] + (f"-{suffix}" if suffix else ""), answer=answer, question=row["question"],
                  contexts=contexts, system=row["system"])


def verdicts(result: dict) -> tuple[str, list[str]]:
    """The answer's status and each of its sentences' verdicts (sentence order)."""
    head = result["citation_recall"]
    sentences = head.details.get("sentences", [])
    return head.status, [s.get("verdict", head.status) for s in sentences]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite datasets/demo/demo_cited.jsonl")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    cited_rows, items = [], []
    for row in rows:
        if row["metadata"]["demo_label"] == "refusal":
            cited_rows.append(dict(row))
            continue
        sentences, answer = build(row)
        cited_rows.append({**row, "answer": answer})
        items.append((row, "untouched", "", None, sentences))
        items.extend((row, kind, suffix, i, copy) for kind, suffix, i, copy in plant(row, sentences))
    if args.write:
        CITED.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in cited_rows), encoding="utf-8")
    metric = CitationsLocal()
    results = metric.score([sample_of(row, join(s), suffix) for row, _, suffix, _, s in items])
    caught, planted, alarms, untouched = Counter(), Counter(), 0, 0
    missed = []
    by_answer: dict[tuple[str, str], list[int]] = {}  # (system, id) -> [caught, planted, alarms, untouched]
    for (row, kind, suffix, at, sentences), result in zip(items, results):
        status, found = verdicts(result)
        if status != "ok" and kind in ("untouched", "union_ok") and any(s["right"] for s in sentences):
            raise SystemExit(f"{row['system']}/{row['id']}-{suffix}: unscored ({status}): "
                             f"{result['citation_recall'].reason}")
        tally = by_answer.setdefault((row["system"], row["id"]), [0, 0, 0, 0])
        if kind in ("untouched", "union_ok"):
            for k, s in enumerate(sentences):
                if s["right"] and (kind == "untouched" or k == at):
                    untouched += 1
                    tally[3] += 1
                    if status != "ok" or found[k] != "supported":
                        alarms += 1
                        tally[2] += 1
                        missed.append(f"false alarm {row['system']}/{row['id']}-{suffix} #{k}: {found[k]}")
            continue
        planted[kind] += 1
        hit = status in ("citation_out_of_range", "no_citations") or (status == "ok" and found[at] != "supported")
        caught[kind] += hit
        tally[0] += hit
        tally[1] += 1
        if not hit:
            missed.append(f"missed {kind} {row['system']}/{row['id']}-{suffix} #{at}: {status} {found}")
    total, got = sum(planted.values()), sum(caught.values())
    figures = {
        "script": "tools/plant_citation_errors.py", "metric": metric.signature(),
        "answers_cited": len([r for r in rows if r["metadata"]["demo_label"] != "refusal"]),
        "planted": total, "caught": got, "caught_share": round(got / total, 4), "caught_ci95": wilson(got, total),
        "caught_ci95_by_answer": cluster_ci({a: t[:2] for a, t in by_answer.items() if t[1]}),
        "by_kind": {k: {"planted": planted[k], "caught": caught[k]} for k in sorted(planted)},
        "untouched_sentences": untouched, "false_alarms": alarms, "false_alarm_share": round(alarms / untouched, 4),
        "false_alarm_ci95": wilson(alarms, untouched),
        "false_alarm_ci95_by_answer": cluster_ci({a: t[2:] for a, t in by_answer.items() if t[3]}),
        "answers": len(by_answer), "misses": missed,
    }
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
