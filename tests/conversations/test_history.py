"""A turn's history is bounded by the token budget: the oldest turns are dropped first, whole, and the sample
says how many (issue 38)."""
from __future__ import annotations

from conversations import forms

from genevals.conversations.history import HISTORY_TOKENS, Window, tokens, trimmed
from genevals.input.readers import iter_samples
from genevals.types import Sample


def test_tokens_are_words_and_marks():
    assert tokens("How long does it take?") == 6
    assert tokens("") == 0


def test_the_oldest_turns_go_first_whole():
    kept = trimmed([("user", "one two three"), ("assistant", "four five"), ("user", "six")], budget=3)
    assert kept.messages == (("assistant", "four five"), ("user", "six"))
    assert kept.dropped == 1
    assert trimmed([("user", "a b c d")], budget=3).messages == ()  # a turn longer than the budget: left out
    assert trimmed([("user", "a")], budget=0).dropped == 1


def test_a_window_holds_at_most_the_budget():
    window = Window(10)
    for i in range(1000):
        window.add("user", "w " * 4)
    assert window.size <= 10 and window.dropped == 998


def test_the_budget_trims_every_form_alike(tmp_path):
    """With a budget of 12 tokens the third turn of c1 keeps only the second exchange's answer."""
    for write in (forms.native, forms.flat_jsonl, forms.ragas):
        found = {s.id: s for s in iter_samples(write(tmp_path / "in.jsonl"), history_tokens=12)}
        third = found["c1:3"]
        assert third.history == (("user", "When did it open?"), ("assistant", "It opened in 1931.")), write
        assert third.history_dropped == 2
        assert third.to_dict()["history_dropped"] == 2


def test_history_round_trips_through_results_lines():
    sample = Sample(id="c:2", answer="a", question="q", history=(("user", "x"), ("assistant", "y")),
                    history_dropped=3, conversation_id="c", turn=2)
    assert Sample.from_dict(sample.to_dict()) == sample
    plain = Sample(id="1", answer="a")
    assert set(plain.to_dict()) == {"id", "system", "question", "answer", "contexts", "references", "relevant",
                                    "origin"}


def test_a_row_may_carry_its_own_history(tmp_path):
    """A single row with a ``history`` list (BEGIN's form: the previous turn as history) is trimmed too, and the
    count the row already carries (results.jsonl read back as input) is kept."""
    rows = [{"question": "q", "answer": "a", "history": [{"role": "user", "content": "one two"},
                                                         {"role": "assistant", "content": "three"}],
             "history_dropped": 4}]
    (found,) = iter_samples(forms.write_jsonl(tmp_path / "in.jsonl", rows), history_tokens=1)
    assert found.history == (("assistant", "three"),) and found.history_dropped == 5


def test_the_budget_is_a_declared_setting():
    assert HISTORY_TOKENS.name == "history_tokens" and HISTORY_TOKENS.default == 2000 and HISTORY_TOKENS.minimum == 0
