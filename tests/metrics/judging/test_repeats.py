"""Repeated judging (``JudgeConfig(repeats=N)``): seeds and cache keys per repeat, majority verdicts with their
agreement, ties, failed repeats, shuffled claims, the note at temperature 0, the generic repeats of the other
judges, the dry run's estimate, and the per-system flip rate and judge-variance interval. Driven through the
real metrics, client, cache and parsing by a provider that answers by seed (the protocol's one method)."""
from __future__ import annotations

import json
from collections import Counter

import pytest
from support.seed_judge import SENTENCES, BySeed, flips

import genevals
from genevals import types
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig, JudgeConfigError
from genevals.judge.protocol import Completion, PermanentError, Usage
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.metrics.judging.repeats import Scores, majority
from genevals.metrics.rubric.rubric import Rubric
from genevals.types import Context, Sample, Verdict

ANSWER = "Paris is in France. The Seine runs through Paris. Paris has ten million cats. Lyon is big."
SAMPLE = Sample(id="s1", answer=ANSWER, question="Tell me about Paris.",
                contexts=(Context(text="Paris is in France. The Seine runs through Paris.", rank=1),))


def faith(provider, **config):
    config.setdefault("cache", False)
    return Faithfulness(JudgeConfig(provider=provider, backoff_base=0.001, max_retries=0, **config))


def by_text(details):
    claims = {c["index"]: c["text"] for c in details["claims"]}
    return {claims[v["claim_index"]]: v for v in details["verdicts"]}


def test_majority_ties_go_to_unverifiable_and_failed_repeats_are_no_vote():
    assert majority(["supported", "contradicted", "supported"]) == ("supported", pytest.approx(2 / 3))
    assert majority(["supported", "contradicted"]) == ("unverifiable", 0.5)
    assert majority(["contradicted", None, None]) == ("contradicted", 1.0)
    assert majority([None, None]) == ("unverifiable", 0.0)


def test_majority_verdicts_agreement_and_each_repeats_score():
    p = BySeed(flips)
    out = faith(p, repeats=3).score([SAMPLE])[0]
    f = out["faithfulness"]
    v = by_text(f.details)
    assert v["Paris has ten million cats."]["repeats"] == ["supported", "contradicted", "supported"]
    assert (v["Paris has ten million cats."]["label"], v["Paris has ten million cats."]["agreement"]) == \
        ("supported", pytest.approx(2 / 3))
    assert v["Lyon is big."]["repeats"] == ["unverifiable", "unverifiable", "supported"]
    assert v["Lyon is big."]["label"] == "unverifiable"
    assert v["Paris is in France."]["agreement"] == 1.0
    # majority: 3 of 4 supported; per repeat: 3/4, 2/4, 4/4
    assert f.value == 0.75 and out["unverifiable_rate"].value == 0.25
    r = f.details["repeats"]
    assert r["values"] == [0.75, 0.5, 1.0] and r["statuses"] == ["ok"] * 3
    assert r["mean"] == pytest.approx(0.75) and r["spread"] == 0.5
    assert (r["unit"], r["units"], r["unstable"]) == ("claims", 4, 2)
    assert "tie is unverifiable" in r["policy"]


def test_each_repeat_sends_its_seed_and_reshuffles_the_claims():
    p = BySeed(flips)
    faith(p, repeats=3, seed=7).score([SAMPLE])
    kinds = Counter((kind, seed) for kind, seed, _ in p.requests)
    assert kinds == {("decompose", 7): 1, ("verify", 7): 1, ("verify", 8): 1, ("verify", 9): 1}
    orders = {seed: claims for kind, seed, claims in p.requests if kind == "verify"}
    assert orders[7] == SENTENCES  # the first repeat is the unrepeated request, in the answer's order
    assert sorted(orders[8]) == sorted(SENTENCES) and [orders[8], orders[9]] != [SENTENCES, SENTENCES]


def test_a_tie_is_unverifiable():
    out = faith(BySeed(flips), repeats=2).score([SAMPLE])[0]
    v = by_text(out["faithfulness"].details)
    cats = v["Paris has ten million cats."]
    assert cats["repeats"] == ["supported", "contradicted"] and cats["label"] == "unverifiable"
    assert "tie counts as unverifiable" in cats["reason"] and cats["agreement"] == 0.5


def test_a_failed_repeat_is_no_verdict_and_its_status_is_kept():
    def labels(seed, text):
        return PermanentError("seed 1 is down") if seed == 1 else flips(seed, text)

    out = faith(BySeed(labels), repeats=3).score([SAMPLE])[0]
    f = out["faithfulness"]
    assert f.status == "ok"
    r = f.details["repeats"]
    assert r["statuses"] == ["ok", "judge_error", "ok"] and r["values"] == [0.75, None, 1.0]
    assert r["failures"][0]["repeat"] == 1 and "seed 1 is down" in r["failures"][0]["reason"]
    lyon = by_text(f.details)["Lyon is big."]
    assert lyon["repeats"] == ["unverifiable", None, "supported"] and lyon["label"] == "unverifiable"  # 1-1 tie
    assert lyon["agreement"] == 0.5


def test_every_repeat_failed_is_a_judge_error():
    out = faith(BySeed(lambda seed, text: PermanentError("down")), repeats=3).score([SAMPLE])[0]
    f = out["faithfulness"]
    assert f.status == types.JUDGE_ERROR and f.value is None
    assert "every judge repeat failed" in f.reason
    assert f.details["repeats"]["statuses"] == ["judge_error"] * 3


def test_each_repeat_is_cached_under_its_own_key(tmp_path):
    p = BySeed(flips)
    first = faith(p, repeats=3, cache=True, cache_dir=str(tmp_path)).score([SAMPLE])[0]
    assert len(p.requests) == 4
    p2 = BySeed(flips)
    again = faith(p2, repeats=3, cache=True, cache_dir=str(tmp_path)).score([SAMPLE])[0]
    assert p2.requests == []  # every repeat answered from the cache
    assert again["faithfulness"].details["repeats"]["values"] == first["faithfulness"].details["repeats"]["values"]


def test_temperature_zero_with_a_seed_blind_judge_asks_once_and_says_so():
    provider = ScriptedProvider({"decompose": {"claims": [{"claim": "Paris is in France.",
                                                           "source": "Paris is in France."}]},
                                 "verify": {"verdicts": [{"id": 1, "context": 1, "label": "supported"}]}})
    metric = Faithfulness(JudgeConfig(provider=provider, cache=False, repeats=3))
    out = metric.score([SAMPLE])[0]
    assert provider.count("verify") == 1 and "repeats" not in out["faithfulness"].details
    assert "asked once" in metric.warning and "--judge-temperature" in metric.warning
    warm = Faithfulness(JudgeConfig(provider=provider, cache=False, repeats=3, temperature=0.7))
    warm.score([SAMPLE])
    assert provider.count("verify") == 4 and warm.warning is None


def test_repeats_must_be_a_whole_number_at_least_one():
    with pytest.raises(JudgeConfigError, match="repeats: expected a whole number from 1 to 100"):
        JudgeConfig(repeats=0)
    with pytest.raises(JudgeConfigError, match="repeats: expected a whole number"):
        JudgeConfig(repeats=2.5)


def test_the_dry_run_estimates_every_repeat():
    one = faith(BySeed(flips), dry_run=True).score([SAMPLE])[0]["faithfulness"].details["dry_run"]
    three = faith(BySeed(flips), dry_run=True, repeats=3).score([SAMPLE])[0]["faithfulness"]
    est = three.details["dry_run"]
    assert (one["requests"], est["requests"]) == (2, 4)  # 1 decompose + 1 verify per repeat
    assert est["prompt_tokens"] > 2 * one["prompt_tokens"] - one["prompt_tokens"] // 2
    assert "3 judge repeats" in three.reason


class RubricBySeed(BySeed):
    async def complete(self, messages, schema, params):
        self.requests.append(("rubric", params["seed"], []))
        score = {0: 5, 1: 3, 2: 5}[params["seed"]]
        reply = {"scores": {"coherence": {"reason": "r", "score": score}}}
        return Completion(text=json.dumps(reply), usage=Usage(10, 5))


def test_other_judges_are_scored_per_repeat_median_and_usage_summed():
    p = RubricBySeed(None)
    metric = Rubric(JudgeConfig(provider=p, cache=False, repeats=3), criteria={"coherence": "coherent"},
                    default_criteria=False)
    out = metric.score([SAMPLE])[0]["rubric_coherence"]
    assert sorted(seed for _, seed, _ in p.requests) == [0, 1, 2]
    assert out.value == 1.0  # median of (5-1)/4, (3-1)/4, (5-1)/4
    r = out.details["repeats"]
    assert r["values"] == [1.0, 0.5, 1.0] and r["spread"] == 0.5 and r["unstable"] == 1
    assert out.details["usage"]["requests"] == 3 and out.details["usage"]["prompt_tokens"] == 30


def test_run_summary_flip_rate_spread_and_judge_variance_interval():
    samples = [Sample(id=f"s{i}", answer=ANSWER, question="q", contexts=SAMPLE.contexts) for i in range(6)]
    res = genevals.evaluate(samples, metrics=["faithfulness"], judge=JudgeConfig(provider=BySeed(flips), cache=False,
                                                                                 repeats=3))
    summary = res.summary()
    r = summary["meta"]["judge_repeats"]["default"]["faithfulness"]
    assert (r["unstable"], r["units"], r["flip_rate"]) == (12, 24, 0.5)  # 2 of 4 claims flip in every sample
    assert r["mean_spread"] == 0.5 and r["mean_over_repeats"] == pytest.approx(0.75)
    assert r["repeats"] == 3 and r["failed_repeats"] == 0
    usual = summary["systems"]["default"]["faithfulness"]["ci95"]
    assert usual == [0.75, 0.75]  # every sample's majority score is 0.75: no band from samples alone
    low, high = r["ci95_judge"]
    assert low < 0.75 < high  # the repeats' spread widens it
    assert "flip rate 0.500 (12/24 claims not unanimous)" in res.to_table()
    assert "repeats:3" in summary["signatures"]["faithfulness"]
    assert not any(k.startswith("repeats:") for k in summary["corpus"]["default"])


def test_scores_add_up_by_joining_as_corpus_statistics_do():
    total: Counter = Counter()
    for row in ([1.0, 0.0], [0.5], [0.25, 0.75]):
        total.update({"s": Scores([tuple(row)]), "n": 1})
    assert sorted(total["s"]) == [(0.25, 0.75), (0.5,), (1.0, 0.0)] and total["n"] == 3


def test_verdict_repeats_round_trip():
    v = Verdict(0, "supported", repeats=("supported", None, "contradicted"), agreement=0.5)
    d = v.to_dict()
    assert d["repeats"] == ["supported", None, "contradicted"] and d["agreement"] == 0.5
    back = Verdict.from_dict(d)
    assert back == v and back.scores == {}
    assert "repeats" not in Verdict(0, "supported").to_dict()
    with pytest.raises(ValueError, match="verdict repeats"):
        Verdict.from_dict({**d, "repeats": ["maybe"]})
