"""``from_history``: a claim that only repeats what the user said in an earlier turn is its own verdict label,
neither supported nor a hallucination, and outside faithfulness' shares (issue 38). The real Faithfulness metric
runs on a scripted judge (its prompts, client, parsing and arithmetic)."""
from __future__ import annotations

import pytest
from support.judge_scripts import claims_of

from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.metrics.faithfulness.verdicts import scored_outputs
from genevals.metrics.judging.parse import parse_verdicts
from genevals.types import FROM_HISTORY, Claim, Context, Sample, Verdict

ANSWER = "You live in Grabow. The mill is 5 km from Grabow. It has a blue roof."
CLAIMS = {"claims": [{"claim": "You live in Grabow.", "source": "You live in Grabow"},
                     {"claim": "The mill is 5 km from Grabow.", "source": "The mill is 5 km from Grabow"},
                     {"claim": "The mill has a blue roof.", "source": "It has a blue roof"}]}


def verify(messages):
    """The user's own words are from history, the distance is in the passage, the date is not."""
    labels = {"live in Grabow": FROM_HISTORY, "5 km": "supported", "roof": "unverifiable"}
    return {"verdicts": [{"id": i, "context": 1 if "5 km" in text else 0,
                          "quote": "5 km from Grabow" if "5 km" in text else "",
                          "label": next(label for key, label in labels.items() if key in text), "reason": "."}
                         for i, text in claims_of(messages).items()]}


def scored(history):
    judge = Faithfulness(JudgeConfig(provider=ScriptedProvider({"decompose": CLAIMS, "verify": verify}),
                                     cache=False))
    sample = Sample("c:2", ANSWER, "How far is it?", (Context("The mill is 5 km from Grabow.", 1),),
                    history=history, conversation_id="c" if history else None, turn=2 if history else None)
    return judge.score([sample])[0]


def test_a_repeated_user_fact_is_from_history_and_not_counted():
    result = scored((("user", "I live in Grabow. Where is the old mill?"), ("assistant", "By the river.")))
    faith = result["faithfulness"]
    labels = [v["label"] for v in faith.details["verdicts"]]
    assert labels == [FROM_HISTORY, "supported", "unverifiable"]
    # supported / (claims - from_history) = 1 / 2, not 1 / 3
    assert faith.value == pytest.approx(0.5)
    assert result["unverifiable_rate"].value == pytest.approx(0.5)
    assert result["contradiction_rate"].value == 0.0
    assert faith.details["counts"][FROM_HISTORY] == 1


def test_without_history_the_label_is_unknown():
    """A single answer has no earlier turn: the judge may not use the label (the schema has no such value, and a
    reply giving it is an unknown label: re-asked, then counted as missing)."""
    result = scored(())
    faith = result["faithfulness"]
    assert FROM_HISTORY not in faith.details["counts"]
    assert any("unknown label 'from_history'" in issue for issue in faith.details["issues"])


def test_the_parser_reads_the_label_only_with_history():
    reply = '{"verdicts": [{"id": 1, "context": 0, "quote": "", "label": "from history", "reason": "."}]}'
    assert parse_verdicts(reply, {1}, history=True)[0][1]["label"] == FROM_HISTORY
    assert parse_verdicts(reply, {1})[0] == {}


def test_an_answer_that_only_repeats_the_user_has_no_claims_of_its_own():
    claims = [Claim(0, "You live in Grabow.", ((0, 18),))]
    out = scored_outputs(claims, [Verdict(0, FROM_HISTORY)], {})
    assert out["faithfulness"].status == "no_claims" and "from_history" in out["faithfulness"].reason
    assert Verdict.from_dict(Verdict(0, FROM_HISTORY).to_dict()).label == FROM_HISTORY


def test_a_claim_resolved_from_the_history_is_not_invented():
    """The decomposer replaces "it" with what an earlier turn named: those words are not the answer's, nor the
    question's, but the claim is still the answer's."""
    script = {"decompose": {"claims": [{"claim": "The old Grabow water mill has a blue roof.", "source": "It has a blue roof"}]},
              "verify": {"verdicts": [{"id": 1, "context": 1, "quote": "blue roof", "label": "supported",
                                       "reason": "."}]}}
    judge = Faithfulness(JudgeConfig(provider=ScriptedProvider(script), cache=False))
    turn = Sample("c:2", "It has a blue roof.", "What does it look like?", (Context("The old mill: a blue roof.", 1),),
                  history=(("user", "Where is the old Grabow water mill?"), ("assistant", "By the river.")))
    assert judge.score([turn])[0]["faithfulness"].value == 1.0
    alone = Sample("1", "It has a blue roof.", "What does it look like?", (Context("The old mill: a blue roof.", 1),))
    assert judge.score([alone])[0]["faithfulness"].status != "ok"  # the same claim without history is invented


def test_the_offline_checker_marks_a_repeated_user_fact():
    """The local grounding checker (no LLM): a sentence the contexts do not hold, made of what the user said two
    turns earlier, is from_history and in no share; the same sentence in a single answer is unsupported."""
    from genevals.metrics.faithfulness.grounding import Grounding

    answer = "Marie Curie discovered polonium. Your grandmother was born in Lublin in 1921."
    contexts = (Context("Marie Curie discovered polonium in 1898 together with Pierre Curie.", 1),)
    history = (("user", "My grandmother was born in Lublin in 1921 and loved chemistry."),
               ("assistant", "That is a lovely story."))
    turn = Sample("c:2", answer, "Who discovered polonium?", contexts, history=history)
    alone = Sample("1", answer, "Who discovered polonium?", contexts)
    metric = Grounding()
    with_history, without = metric.score([turn, alone])
    labels = [v["label"] for v in with_history["faithfulness"].details["verdicts"]]
    assert labels[1] == FROM_HISTORY, with_history["faithfulness"].details["verdicts"]
    assert [v["label"] for v in without["faithfulness"].details["verdicts"]][1] != "supported"
    assert with_history["faithfulness"].value > without["faithfulness"].value
