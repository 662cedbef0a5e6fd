"""Text rules shared by the LLM judge and the local grounding checker: words, content words, refusals."""
from __future__ import annotations

import re

from genevals.language.sentences import LOOSE

#: A word: letters and digits, with one trailing apostrophe part ("company's", "don't").
WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")

#: Words too common to say what a sentence is about.
STOPWORDS = frozenset("""
about above after again against also although among another around because been before being below between
both could does doing during each either every from further have having here however into itself just many more
most much must other otherwise over same should since some such than that their them then there these they this
those through under until very were what when where whether which while will with within without would your
based given passage passages include includes including according overall also well
""".split())


def content_words(text: str) -> list[str]:
    """The lowercased words of ``text`` that can carry content: longer than 3 letters (or a number), and not
    in :data:`STOPWORDS`, in order of appearance."""
    return [w for w in (t.lower() for t in WORD.findall(text)) if (len(w) > 3 or w.isdigit()) and w not in STOPWORDS]


# sentence ends (in every script: genevals.language.sentences), and clause joints that can carry a claim after a
# refusal ("..., but X is Y")
_SENTENCE = re.compile(LOOSE + r"|[,;]\s+(?=(?:but|however|although|though|yet|instead)\b)", re.I)
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:do\s+not|don'?t|cannot|can'?t|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:know|answer|say|determine|tell|find|provide|help)"
    r"|(?:cannot|can'?t|can\s+not|unable\s+to|not\s+able\s+to|impossible\s+to)\s+(?:be\s+)?"
    r"(?:answered|answer|determined|determine|found|find|provided|provide|say|tell|verified|verify)"
    r"|(?:no|not\s+enough|insufficient|lacks?(?:\s+the)?|without\s+(?:enough|sufficient))\s+"
    r"(?:relevant\s+|specific\s+|sufficient\s+)?(?:information|details|data|context)"
    r"|(?:does|do|did)\s*n[o']?t\s+(?:contain|provide|mention|include|specify|say|state|give)"
    r"|i'?m\s+sorry|i\s+apologi[sz]e|as\s+an\s+ai\b|no\s+answer)",
    re.I)
REFUSAL_REST_CHARS = 20


def detect_refusal(answer: str) -> str | None:
    """The refusal phrase when the answer abstains ("I don't know", "cannot be answered from the context").

    The answer is split into sentences (and clauses after ", but" / ", however" ...); it is a refusal when
    at least one part matches a refusal pattern and the parts that do not match hold fewer than 20
    characters together, so "The context does not say X, but Y is Z" (an answer with a claim) is scored.
    """
    sentences = [s for s in _SENTENCE.split(answer.strip()) if s.strip()]
    hits = [(_REFUSAL.search(s), s) for s in sentences]
    matched = [m.group(0) for m, _ in hits if m]
    if not matched:
        return None
    rest = sum(len(s.strip()) for m, s in hits if not m)
    return matched[0] if rest < REFUSAL_REST_CHARS else None
