"""The text rules the LLM judge and the local grounding checker share: content words and refusals."""
from __future__ import annotations

import pytest

from genevals.text import REFUSAL_REST_CHARS, content_words, detect_refusal


def test_content_words():
    # kept: words over 3 letters that are not stopwords, and numbers of any length; in order, lowercased
    assert content_words("The company's 3 new stores opened in 2014, with 120 staff.") == [
        "company's", "3", "stores", "opened", "2014", "120", "staff"]
    assert content_words("Paris paris PARIS") == ["paris", "paris", "paris"]  # duplicates kept
    assert content_words("based on the given passages, they were there") == []  # all stopwords or short
    assert content_words("don't won't") == ["don't", "won't"]
    assert content_words("") == []


@pytest.mark.parametrize("answer,phrase", [
    ("I don't know.", "I don't know"),
    ("I do not know the answer.", "I do not know"),
    ("I cannot answer this based on the context provided.", "I cannot answer"),
    ("Unable to answer based on given passages.", "Unable to answer"),
    ("This cannot be determined from the passages.", "cannot be determined"),
    ("There is not enough information to say.", "not enough information"),
    ("The passages do not say. Sorry.", "do not say"),
    ("I'm sorry, but there is no information about that.", "I'm sorry"),
    ("As an AI, I can't help with that.", "As an AI"),
    ("No answer.", "No answer"),
    ("I don't know. Paris is quite big!", "I don't know"),  # the rest holds 19 characters
])
def test_refusals(answer, phrase):
    assert detect_refusal(answer) == phrase


@pytest.mark.parametrize("answer", [
    "Paris is the capital of France.",
    "",
    # a claim after the disclaimer: scored
    "The context does not mention her height, but Marie Curie was born in Warsaw.",
    "I don't know the exact date. The bridge opened in the spring and carries eight lanes.",
    "I don't know. Paris is quite big!!",  # the rest holds 20 characters: not a refusal
    "Knowledge is power.",
])
def test_not_refusals(answer):
    assert detect_refusal(answer) is None


def test_rest_threshold():
    assert REFUSAL_REST_CHARS == 20 and len("Paris is quite big!!") == 20
