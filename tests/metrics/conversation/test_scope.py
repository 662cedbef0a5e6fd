"""Where a conversation metric's value goes and what transcript its judge reads: the last turn of each
conversation (counted by the planning pass), turns numbered back from it, the history budget's cut said."""
from __future__ import annotations

import pytest

from genevals import types
from genevals.metrics.base import Unscored
from genevals.metrics.conversation.knowledge_retention import KnowledgeRetention
from genevals.metrics.conversation.scope import LEFT_OUT, transcript
from genevals.types import Sample

HISTORY = (("system", "Be brief."), ("user", "I live in Grabow."), ("assistant", "Noted."),
           ("user", "Where can I swim?"), ("assistant", "Lake Grabow."))


def turn(cid, n, history=(), dropped=0, system="default"):
    return Sample(f"{cid}:{n}", f"answer {n}", f"question {n}", history=history, history_dropped=dropped,
                  conversation_id=cid, turn=n, system=system)


def test_transcript_numbers_turns_back_from_the_last():
    found = transcript(turn("c", 3, HISTORY), consecutive=True)
    assert found.system == ("Be brief.",)
    assert [(t.number, t.user, t.assistant) for t in found.turns] == [
        (1, "I live in Grabow.", "Noted."), (2, "Where can I swim?", "Lake Grabow."), (3, "question 3", "answer 3")]
    assert "User (turn 1): I live in Grabow.\nAssistant (turn 1): Noted." in found.render()


def test_a_budget_cut_is_said_and_a_turn_without_its_question_shows_so():
    found = transcript(turn("c", 5, HISTORY[2:], dropped=4), consecutive=True)
    assert [t.number for t in found.turns] == [3, 4, 5] and found.turns[0].user == LEFT_OUT
    assert found.render().splitlines()[0] == "(4 earlier message(s) left out: the history budget keeps the latest)"
    assert found.details()["history_dropped"] == 4


def test_turn_numbers_with_gaps_are_positions():
    metric = KnowledgeRetention()
    metric.prepare([turn("g", n, HISTORY if n == 9 else ()) for n in (0, 5, 9)])  # flat rows numbered with gaps
    scope = metric.scope(turn("g", 9, HISTORY))[1]
    assert scope["turns_seen"] == [1, 2, 3] and scope["turn_numbers"] == "position in the transcript"


def test_value_goes_on_the_last_turn_of_each_system_s_conversation():
    metric = KnowledgeRetention()
    metric.prepare([turn("c", 1), turn("c", 2), turn("c", 1, system="b")])
    with pytest.raises(Unscored) as caught:
        metric.scope(turn("c", 1))
    assert caught.value.status == types.NOT_LAST_TURN and caught.value.details["carried_by"] == "c:2"
    assert metric.scope(turn("c", 2, HISTORY[:3]))[1]["scope"] == "the whole conversation"
    assert metric.scope(turn("c", 1, system="b"))[1]["scope"] == "the whole conversation"
    # a sample the planning pass did not show (scored outside a run) is judged up to its turn, and says so
    assert "up to this turn" in metric.scope(turn("other", 2, HISTORY[:3]))[1]["scope"]


def test_rows_that_are_no_conversation():
    metric = KnowledgeRetention()
    with pytest.raises(Unscored) as caught:
        metric.scope(Sample("s", "an answer", "a question"))
    assert caught.value.status == "not_conversation"
    own = Sample("s", "an answer", "a question", history=HISTORY)  # a row with its own history
    assert metric.scope(own)[1]["scope"] == "the row and its own history"


def test_an_answer_without_a_question_is_not_said_to_be_cut():
    found = transcript(turn("c", 2, (("assistant", "Hello, how can I help?"),)), consecutive=True)
    assert found.turns[0].user == "(none)"
