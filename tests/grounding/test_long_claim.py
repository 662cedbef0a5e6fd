"""A claim of 200 KB (one sentence of 40,000 numbers, names, dates and words the evidence holds) is read in linear time
(issue 52, 16b): the overlap test looked at every token taken before, and each number and name was bound against
every other word of the claim once per occurrence (quadratic; minutes for this claim). The same claim through
``genevals run -m grounding`` is the hostile case ``issue52k-grounding-claim-200k``. The tokens are those the
quadratic reading gave: checked on a short claim against a plain re-implementation of it."""
from __future__ import annotations

import time

from genevals.grounding import phrases

CONTEXT = "Paris is the capital and largest city of France; Lyon is a large city with 12 bridges on Monday."


def _claim(n: int) -> str:
    return "Paris is " + " ".join(f"Paris {i % 97} capital France Lyon city large Monday" for i in range(n)) + "."


def _bound_before(token, tokens, evidence) -> bool:
    """Evidence.bound as it was: every other word and name of the claim, looked up clause by clause."""
    mates = [o for o in tokens if o is not token and o.kind in ("word", "name")]
    if not mates:
        return token.in_aligned
    key = token.text.lower()
    for words, numbers, _ in evidence.clauses:
        here = key in numbers if token.kind == "number" else (key in words or key.rstrip("s") in words
                                                              or key + "s" in words)
        if here and any(m.text.lower()[:4] in {w[:4] for w in words if len(w) >= 4} or m.text.lower() in words
                        for m in mates):
            return True
    return False


def test_a_200_kb_claim_is_read_in_seconds():
    claim = _claim(4500)
    assert len(claim) > 200_000
    evidence = phrases.evidence_of((CONTEXT,))
    start = time.process_time()
    tokens = phrases.claim_tokens(claim, evidence, evidence)
    assert time.process_time() - start < 3.0
    assert len(tokens) > 20_000 and all(t.in_context for t in tokens if t.kind in ("name", "word"))


def test_the_tokens_are_those_of_the_quadratic_reading():
    claim = _claim(12) + " Buzz Aldrin flew 4 times, not on Tuesday."
    evidence = phrases.evidence_of((CONTEXT,))
    tokens = phrases.claim_tokens(claim, evidence, evidence)
    spans = [(t.start, t.end) for t in tokens]
    assert spans == sorted(spans) and all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # no overlap
    checked = 0
    for t in (t for t in tokens if t.kind in ("number", "name")):
        aligned = t.text in evidence.numbers if t.kind == "number" else evidence.has_name(t.text)
        if aligned:  # found in the evidence: bound or not, as the quadratic reading said
            raw = phrases.Token(t.text, t.start, t.end, t.kind, t.in_context, True)
            assert t.in_aligned == _bound_before(raw, tokens, evidence), t
            checked += 1
    assert checked > 12
