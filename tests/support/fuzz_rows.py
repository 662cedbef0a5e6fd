"""An independent model of the documented input rules, and hypothesis strategies for hostile rows: shared by
the reader fuzz tests (tests/test_io_fuzz.py) and the command-line fuzz tests (tests/cli/test_fuzz.py)."""
from __future__ import annotations

import math
from collections import Counter

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from genevals.input.conversation_rows import CONSUMED
from genevals.input.readers import InputError
from genevals.input.rows import ALIASES, KNOWN_FIELDS
from genevals.types import Sample

_BASE = settings(deadline=None, print_blob=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])


def fuzz(n: int) -> settings:
    return settings(_BASE, max_examples=n)
MISSING = object()  # the field is absent from the row


def report(name: str, counts: Counter) -> str:
    line = (f"fuzz {name}: {counts['cases']} cases tried, {counts['errors']} errors located, "
            f"{counts['skipped']} skipped (blank), {counts['valid']} valid")
    print(line)
    return line


# ------------------------------------------------------------------ an independent model of the rules

def _missing(v) -> bool:
    return v is MISSING or v is None or (isinstance(v, float) and math.isnan(v))


def _is_id(v) -> bool:
    return isinstance(v, (str, int)) and not isinstance(v, bool)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def expect(row, line: int, seen: dict) -> tuple[str, object]:
    """("error", field or None) or ("ok", expected-values dict), following README's input rules."""
    if not isinstance(row, dict):
        return "error", None
    get = lambda k: row.get(k, MISSING)  # noqa: E731
    answer = get("answer")
    if _missing(answer) or not isinstance(answer, str):
        return "error", "answer"
    question = get("question")
    if not _missing(question) and not isinstance(question, str):
        return "error", "question"
    system = get("system")
    system = "default" if _missing(system) or system == "" else system
    if not isinstance(system, str):
        return "error", "system"
    sid = get("id")
    if _missing(sid) or sid == "":
        sid = str(line)
    elif not _is_id(sid):
        return "error", "id"
    sid = str(sid)
    if (system, sid) in seen:
        return "error", "id"
    contexts = get("contexts")
    texts = []
    if not (_missing(contexts) or contexts == ""):
        if not isinstance(contexts, list):
            return "error", "contexts"
        for i, item in enumerate(contexts):
            if isinstance(item, str):
                texts.append(item)
                continue
            if not isinstance(item, dict):
                return "error", f"contexts[{i}]"
            text = item.get("text", item.get("content"))
            if _missing(text):  # a context of ids only (retrieval reads them): no text, not an error
                if item.get("id") is None and item.get("doc_id") is None:
                    return "error", f"contexts[{i}]"
                text = ""
            elif not isinstance(text, str):
                return "error", f"contexts[{i}].text"
            if item.get("score") is not None and (not _is_num(item["score"]) or not math.isfinite(item["score"])):
                return "error", f"contexts[{i}].score"
            for name in ("id", "doc_id"):
                if item.get(name) is not None and not _is_id(item[name]):
                    return "error", f"contexts[{i}].{name}"
            texts.append(text)
    refs = get("references")
    if _missing(refs):
        refs = ()
    elif isinstance(refs, str):
        refs = (refs,) if refs else ()
    elif isinstance(refs, list):
        for i, r in enumerate(refs):
            if not isinstance(r, str):
                return "error", f"references[{i}]"
        refs = tuple(refs)
    else:
        return "error", "references"
    rel = get("relevant")
    if _missing(rel) or rel == "":  # an empty cell: no labels
        rel = None
    elif _is_id(rel):  # one id: a one-element list
        rel = {str(rel): 1.0}
    elif isinstance(rel, list):
        for i, r in enumerate(rel):
            if not _is_id(r):
                return "error", f"relevant[{i}]"
        rel = {str(r): 1.0 for r in rel}
    elif isinstance(rel, dict):
        for k, g in rel.items():
            if g is None:  # an unlabelled key (how a Parquet struct column fills other rows' keys)
                continue
            if not _is_num(g) or not math.isfinite(g) or not -100 <= g <= 100:  # grades beyond overflow 2^g
                return "error", f"relevant.{k}"
        rel = {str(k): float(g) for k, g in rel.items() if g is not None}
    else:
        return "error", "relevant"
    seen[(system, sid)] = line
    return "ok", {"id": sid, "answer": answer, "question": "" if _missing(question) else question,
                  "system": system, "texts": texts, "references": refs, "relevant": rel}


def compare(items: list, rows: list, source: str, counts: Counter, lines: list[int] | None = None) -> None:
    assert len(items) == len(rows), (len(items), len(rows))
    seen: dict = {}
    for index, (item, row) in enumerate(zip(items, rows)):
        line = lines[index] if lines else index + 1
        kind, want = expect(row, line, seen)
        counts["cases"] += 1
        if kind == "error":
            counts["errors"] += 1
            assert isinstance(item, InputError), f"row {line} {row!r:.300}: expected an error in {want}, got {item!r:.300}"
            assert item.source == source and item.line == line, item
            assert item.field == want, f"row {row!r:.300}: error names {item.field!r}, expected {want!r}: {item}"
            assert str(item).startswith(f"{source}:{line}: "), item
            continue
        counts["valid"] += 1
        assert isinstance(item, Sample), f"row {line} {row!r:.300}: expected a Sample, got {item}"
        got = {"id": item.id, "answer": item.answer, "question": item.question, "system": item.system,
               "texts": [c.text for c in item.contexts], "references": item.references,
               "relevant": dict(item.relevant) if item.relevant is not None else None}
        assert got == want, (row, got, want)
        assert item.origin == f"{source}:{line}"


# ------------------------------------------------------------------ strategies

# Plain text never starting with "[" or "{": such strings are parsed as JSON by the readers in every format
# (see test_json_looking_text_in_jsonl_is_parsed below).
text = st.text(max_size=30).filter(lambda s: s[:1] not in "[{")
nasty_scalar = st.one_of(st.none(), st.just(float("nan")), st.booleans(), st.integers(-10**12, 10**12),
                         st.floats(allow_nan=False, allow_infinity=False), text)
#: keys a nested object may have: none the reader gives a meaning to (a field, an alias such as ragas' "response",
#: a conversation's "turns"), which the model above does not follow: hypothesis found {"turns": false}
_NAMED = frozenset(KNOWN_FIELDS) | frozenset(ALIASES) | CONSUMED
free_key = text.filter(lambda k: k not in _NAMED)
json_value = st.recursive(nasty_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                st.dictionaries(free_key, inner, max_size=3)),
                          max_leaves=6)
context_obj = st.fixed_dictionaries({"text": st.one_of(text, nasty_scalar)},
                                    optional={"id": st.one_of(text, st.integers(0, 99), nasty_scalar),
                                              "doc_id": st.one_of(text, nasty_scalar),
                                              "score": st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                                                                 nasty_scalar)})
ids = st.one_of(st.sampled_from(["q1", "q2", "1", "2", ""]), st.integers(0, 3), text, nasty_scalar)
fields = {
    "id": ids,
    "answer": st.one_of(text, text, nasty_scalar, json_value),
    "question": st.one_of(text, nasty_scalar),
    "system": st.one_of(st.sampled_from(["a", "b", ""]), nasty_scalar),
    "contexts": st.one_of(st.lists(st.one_of(text, context_obj), max_size=4), nasty_scalar, json_value),
    "references": st.one_of(text, st.lists(text, max_size=3), st.lists(nasty_scalar, max_size=2), nasty_scalar),
    "relevant": st.one_of(st.lists(st.one_of(st.sampled_from(["1", "2", "c1"]), st.integers(0, 5)), max_size=3),
                          st.dictionaries(st.sampled_from(["1", "2", "c1"]),
                                          st.one_of(st.integers(0, 3), st.floats(0, 3), nasty_scalar,
                                                    st.sampled_from([-1024, 1024, 101, -101, 100, -100])),
                                          max_size=3),
                          nasty_scalar),
}
row_strategy = st.one_of(
    st.fixed_dictionaries({}, optional=fields),
    st.fixed_dictionaries({"answer": text}, optional={k: v for k, v in fields.items() if k != "answer"}),
    st.fixed_dictionaries({"answer": text}, optional={k: v for k, v in fields.items() if k != "answer"}),
    json_value,  # not an object at all
)
rows_strategy = st.lists(row_strategy, min_size=1, max_size=12)
