"""Cases: citations (issue 34). ``--citation-pattern`` values that backtrack catastrophically, do not compile, or are
too large, too deep or match nothing but the empty string; answers whose markers are many (20k-80k), non-ASCII
numbers, huge numbers or not markers at all; ``citations`` fields of every hostile shape. The offline metric
(``citations_local``) reads them, so no judge is needed; each case runs under a small limit, so a hang shows.

The API cases (:func:`check`) also read each sample's status: a reason saying "internal error" (what
``[²]`` gave the judged metric) is a failure even when the run returns.
"""
from __future__ import annotations

from hostile.cases import ANY, GOOD_ROWS, OK, REFUSED, Case, jsonl, line, run_case, with_raw

METRICS = "exact_match,citations_local"
PATTERN = "--citation-pattern"
#: two contexts, so "[3]" is out of range and "[1]" is not
CONTEXTS = [{"id": "c1", "text": "Paris is the capital and largest city of France."},
            {"id": "c2", "text": "Lyon is a large city in France."}]
ISSUE = r"\[see ((?:\w+\s?)+)\]"


def _row(answer: str, **extra) -> dict:
    return {"id": "h", "question": "What is the capital of France?", "answer": answer, "contexts": CONTEXTS,
            "references": ["Paris"], **extra}


def _file(*middle: str) -> bytes:
    """Good row 1, the hostile lines (JSON text) from line 2, good row 3."""
    return jsonl(line(GOOD_ROWS[0]), *middle, line(GOOD_ROWS[2]))


def _answer(answer: str, **extra) -> bytes:
    return _file(line(_row(answer, **extra)))


# ------------------------------------------------------------------ --citation-pattern

#: slug -> (pattern, answer): patterns that backtrack exponentially in Python's re, on answers made to trigger
#: it; RE2 runs each in linear time (the sample is then scored or has a status; never a hang)
CATASTROPHIC = {
    "issue-400": (ISSUE, "[see " + "word " * 79 + "!"),
    "issue-40k": (ISSUE, "[see " + "word " * 8000 + "!"),
    "issue-1m": (ISSUE, "[see " + "word " * 200_000 + "!"),
    "issue-many-brackets": (ISSUE, ("[see " + "word " * 30 + "! ") * 2000),
    "nested-plus": (r"((a+)+)b", "a" * 50_000),
    "alternation-same": (r"((a|a)*)b", "a" * 50_000),
    "alternation-overlap": (r"((a|aa)+)c", "a" * 50_000),
    "optional-in-plus": (r"((?:x|x?)+)y", "x" * 50_000),
    "dot-star-repeat": (r"((?:.*a){10})x", "a" * 20_000),
    "words-unclosed": (r"\[((?:\w+\s*)+)\]", "[" + "word " * 50_000),
    "digits-commas": (r"\[((?:\d+,?)+)\]", "[" + "1," * 50_000),
    "email-like": (r"(([a-z]+\.)+[a-z]+)@x", "a." * 50_000),
    "anchored-classic": (r"^(([a-z])+.)+[A-Z]([a-z])+$", "a" * 50_000 + "!"),
    "unicode-words": (r"\[((?:[\pL\pN]+\s?)+)\]", "[" + "wörd " * 50_000),
    "many-markers": (r"\{\{(\d+)\}\}", "Paris is the capital " + "{{3}}" * 40_000 + "."),
    "many-markers-sentences": (r"\{\{(\d+)\}\}", "Fact {{3}}. " * 10_000),
    "every-character": (r"(.)", "abc " * 5_000),
    "whole-answer": (r"(?s)(.+)", "word " * 50_000),
    # RE2 finds each match in linear time, but here each search reads to the end of the answer: quadratic
    # over the matches, so the scan of the answer stops at its time bound and that sample is an error
    "read-ahead-quadratic": (r"(a*b|a)", "a" * 400_000),
}

#: slug -> pattern: usable patterns (scored, or a status for the sample; never refused)
USABLE = {
    "braces": r"\{\{(\d+)\}\}",
    "named-ref": r"<(?P<ref>\d+)>",
    "named-ref-not-first": r"(<)(?P<ref>\d+)(>)",
    "ref-group-optional": r"(?:\[(?P<ref>\d+)\]|\{x\})",
    "twenty-groups": "".join(f"({c})?" for c in "abcdefghijklmnopqrs") + r"\[(\d+)\]",
    "greek-class": r"\[(\p{Greek}+)\]",
    "case-insensitive": r"(?i)\[source (\d+)\]",
    "literal-backslash-c": r"\\C(\d)",
    "unicode-literal": r"【(\d+)】",
    "ref-always-empty": r"\[(\d*?)",
    "long-but-allowed": "(?:" + "|".join(f"cite{i:03d}" for i in range(120)) + r")-(\d+)",
}

#: slug -> (pattern, what the message must also name): refused before scoring, naming --citation-pattern
REFUSED_PATTERNS = {
    "backreference": (r"(\d)\1", "backreferences"),
    "named-backreference": (r"(?P<ref>\d)(?P=ref)", "backreferences"),
    "lookahead": (r"\[(?=\d)(\d+)\]", "lookaround"),
    "negative-lookahead": (r"\[(?!x)(\d+)\]", "lookaround"),
    "lookbehind": (r"(?<=\[)(\d+)", "lookaround"),
    "atomic-group": (r"(?>\[(\d+)\])", "RE2"),
    "possessive": (r"\[(\d++)\]", "RE2"),
    "verbose-flag": (r"(?x) \[ (\d+) \]", "RE2"),
    "conditional": (r"(\[)?(\d+)(?(1)\])", "RE2"),
    "recursion": (r"\((?R)?\)", "RE2"),
    "unclosed-group": (r"\[(\d+\]", "missing )"),
    "unclosed-class": ("[", "missing ]"),
    "nothing-to-repeat": ("*", "RE2"),
    "bad-range-repeat": ("a{2,1}", "RE2"),
    "trailing-backslash": ("\\", "RE2"),
    "unknown-escape": (r"\q(\d)", "RE2"),
    "unknown-class": (r"\p{Nope}(\d)", "RE2"),
    "bad-group-name": (r"(?P<1ref>x", "RE2"),
    "repeat-too-large": (r"(a{1001})", "RE2"),
    "nested-repeat": (r"((?:\w{1000}){1000})", "RE2"),
    "program-too-large": (r"(\pL{1000})", "too large"),
    "program-too-large-many": (r"(\pL{1000})" * 60, "RE2"),
    "one-byte": (r"\[(\C+)\]", "\\C"),
    "too-long-1001": ("(" + "a" * 999 + ")", "1,000 characters"),
    "too-long-100k": ("(" + "a" * 100_000 + ")", "1,000 characters"),
    "nested-groups-5000": ("(" * 5000 + "a" + ")" * 5000, "1,000 characters"),
    "nested-noncapturing-5000": ("(?:" * 5000 + "(a)" + ")" * 5000, "1,000 characters"),
    "nested-groups-400": ("(" * 400 + "a" + ")" * 400, "groups"),
    "groups-21": ("".join(f"({c})" for c in "abcdefghijklmnopqrstu"), "21 groups"),
    "groups-300": ("(a)" * 300, "300 groups"),
    "empty": ("", "expected a regular expression"),
    # issue 52 (16b): without a group the whole match ("[3]") was read as the reference, every marker out of range
    "no-group": (r"\[\d+\]", "no group"),
    "a-space": (" ", "no group"),
    "star": ("x*", "empty string"),
    "optional": ("a?", "empty string"),
    "word-boundary": (r"\b", "empty string"),
    "start": ("^", "empty string"),
    "end": ("$", "empty string"),
    "alternation-empty": ("|", "empty string"),
    "empty-group": ("()", "empty string"),
    "lazy-star": (r"(\d*?)", "empty string"),
}


def _where(pattern: str) -> tuple[str, ...]:
    """What a refusal names: the option, and the pattern's start as the message quotes it (repr, cut)."""
    quoted = repr(pattern[:40])[1:-1] if pattern else ""
    return (PATTERN, quoted[:20]) if quoted else (PATTERN,)


def patterns() -> list[Case]:
    out: list[Case] = []
    for slug, (pattern, answer) in CATASTROPHIC.items():
        out.append(run_case(f"citations-pattern-{slug}", "citations", OK, _answer(answer), metrics=METRICS,
                            extra=(PATTERN, pattern), limit=12))
    for slug, pattern in USABLE.items():
        answer = "Paris is the capital of France {{3}} <3> [3] (source 3) 【3】 cite007-3 \\C3 ψ [αβ]."
        out.append(run_case(f"citations-pattern-usable-{slug}", "citations", OK, _answer(answer), metrics=METRICS,
                            extra=(PATTERN, pattern), limit=10))
    for slug, (pattern, why) in REFUSED_PATTERNS.items():
        out.append(run_case(f"citations-pattern-refused-{slug}", "citations", REFUSED,
                            _answer("Paris is the capital of France [1]."), metrics=METRICS,
                            extra=(PATTERN, pattern), where=(*_where(pattern), why), limit=6))
    # a pattern that is not UTF-8 (argv bytes arrive as lone surrogates)
    out.append(run_case("citations-pattern-refused-not-utf8", "citations", REFUSED, _answer("Paris [1]."),
                        metrics=METRICS, extra=(PATTERN, "\\[(\udcff\\d)\\]"), where=(PATTERN, "UTF-8"), limit=6))
    # the judged metric reads the same option (no judge configured: its offline variant)
    out.append(run_case("citations-pattern-refused-judged-metric", "citations", REFUSED, _answer("Paris [1]."),
                        metrics="exact_match,citations", extra=(PATTERN, r"(\d)\1"),
                        where=(PATTERN, "backreferences"), limit=6))
    return out


# ------------------------------------------------------------------ markers in the answer (the default forms)

#: slug -> answer; each scored or unscored with a status, quickly, whatever the markers
ANSWERS = {
    "markers-20k-sentences": "Word [1]. " * 20_000,
    "markers-20k-one-sentence": "Paris is the capital " + "[3]" * 20_000 + " of France.",
    "markers-80k-one-sentence": "Paris is the capital " + "[3]" * 80_000 + " of France.",
    "markers-20k-distinct": "Paris is the capital " + "".join(f"[{i}]" for i in range(3, 20_003)) + ".",
    "markers-21k-mixed-forms": "Paris is the capital (Source 3) ^3 [3]. " * 7000,
    "superscript": "Paris is the capital of France [²].",
    "arabic-indic": "Paris is the capital of France [١].",
    # full-width forms are markers since issue 35, read as [3]: out of range like "beyond-contexts" (no model load)
    "fullwidth-digit": "Paris is the capital of France [３].",
    "fullwidth-brackets": "Paris is the capital of France 【3】.",
    "fullwidth-lenticular-source": "Paris is the capital of France 【３†source】.",
    "fullwidth-square-list": "Paris is the capital of France ［３，３］.",
    "caret-5000-digits": "Paris is the capital of France ^" + "9" * 5000 + ".",
    "caret-superscript": "Paris is the capital of France ^².",
    "caret-list-superscript": "Paris is the capital of France ^3,².",
    "caret-50k-list": "Paris is the capital of France ^" + "3," * 50_000 + "3.",
    "bracket-5000-digits": "Paris is the capital of France [" + "9" * 5000 + "].",
    "bracket-leading-zeros": "Paris is the capital of France [0000000000000000000003].",
    "zero": "Paris is the capital of France [0].",
    "negative": "Paris is the capital of France [-1].",
    "exponent": "Paris is the capital of France [1e3].",
    "beyond-contexts": "Paris is the capital of France [3].",
    "range-beyond": "Paris is the capital of France [1-3].",
    "range-huge": "Paris is the capital of France [1-99999999999].",
    "range-reversed": "Paris is the capital of France [3-1].",
    "range-superscript": "Paris is the capital of France [¹-³].",
    "empty-parts": "Paris is the capital of France [3,,;;3].",
    "source-superscript": "Paris is the capital of France (Source ²).",
    "source-spaces": "Paris is the capital of France (source" + " " * 100_000 + "3).",
    "source-50k-and": "Paris is the capital of France (Sources " + "3 and " * 20_000 + "3).",
    "unknown-id": "Paris is the capital of France [c9].",
    "nested-brackets": "Paris is the capital of France [[3]].",
    "brackets-only": "[3]" * 1000,
    "open-brackets-100k": "Paris is the capital of France " + "[" * 100_000,
    "close-brackets-100k": "Paris is the capital of France " + "]" * 100_000,
    "carets-100k": "Paris is the capital of France " + "^" * 100_000,
    "bracket-spaces-100k": "Paris is the capital of France [" + " " * 100_000 + "].",
    "half-markers-50k": "Paris is the capital of France " + "[3" * 50_000,
    "abbreviations-20k": "Dr. " * 20_000 + "Paris is the capital of France [3].",  # the splitter was quadratic
    "nul-and-markers": "Paris is the capital\x00 of France [3]\x00.",
}


def answers() -> list[Case]:
    # 20k sentences take seconds to split and write (linear: 80k take four times as long), hence the limit
    return [run_case(f"citations-answer-{slug}", "citations", OK, _answer(answer), metrics=METRICS,
                     limit=30 if "sentences" in slug or "forms" in slug else 12) for slug, answer in ANSWERS.items()]


# ------------------------------------------------------------------ the citations field

#: slug -> (JSON text of the field, expected): one list per sentence of a one-sentence answer, or claims
FIELDS = {
    "superscript-string": ('[["²"]]', OK),
    "arabic-string": ('[["١"]]', OK),
    "superscript-in-claim": ('[{"text": "capital of France", "contexts": "²"}]', OK),
    "digits-5000-string": ('[["' + "9" * 5000 + '"]]', OK),
    "int-30-digits": ("[[" + "9" * 30 + "]]", OK),
    "int-1000-digits": ("[[" + "9" * 1000 + "]]", OK),
    "int-4000-digits": ("[[" + "9" * 4000 + "]]", REFUSED),
    "int-5000-digits": ("[[" + "9" * 5000 + "]]", ANY),
    "zero": ("[[0]]", OK),
    "negative": ("[[-1]]", OK),
    "exponent-string": ('[["1e3"]]', OK),
    "leading-zeros": ('[["0003"]]', OK),
    "empty-string": ('[[""]]', OK),
    "long-string": ('[["' + "x" * 100_000 + '"]]', OK),
    "many-refs": ("[[" + ",".join(["3"] * 50_000) + "]]", OK),
    "many-distinct-refs": ("[[" + ",".join(str(i) for i in range(3, 30_003)) + "]]", OK),
    "too-many-sentences": ("[" + ",".join(["[3]"] * 20_000) + "]", OK),
    "no-sentences": ("[]", OK),
    "float": ("[[1.5]]", REFUSED),
    "float-huge": ("[[1e400]]", REFUSED),
    "nan": ("[[NaN]]", REFUSED),
    "true": ("[[true]]", REFUSED),
    "null-ref": ("[[null]]", REFUSED),
    "nested-list": ("[[[1]]]", REFUSED),
    "deep-list": ("[" * 200 + "1" + "]" * 200, REFUSED),
    "object-ref": ("[[{}]]", REFUSED),
    "string-field": ('"²"', REFUSED),
    "int-field": ("5", REFUSED),
    "object-field": ('{"1": [1]}', REFUSED),
    "string-entry": ('["²"]', REFUSED),
    "int-entry": ("[3]", REFUSED),
    "claim-text-int": ('[{"text": 5, "contexts": [1]}]', REFUSED),
    "claim-contexts-object": ('[{"text": "capital", "contexts": {"a": 1}}]', REFUSED),
    "claim-contexts-bool": ('[{"text": "capital", "contexts": true}]', REFUSED),
    "claim-contexts-float": ('[{"text": "capital", "contexts": 2.5}]', REFUSED),
    "claim-without-text-mixed": ('[{"text": "capital", "contexts": [3]}, [3]]', OK),
}


def fields() -> list[Case]:
    out = []
    for slug, (literal, expect) in FIELDS.items():
        row = with_raw(_row("Paris is the capital of France.", citations=None), ("citations",), literal)
        where = ("in.jsonl:2", "citations") if expect != OK else ()
        out.append(run_case(f"citations-field-{slug}", "citations", expect, _file(row), metrics=METRICS,
                            where=where, limit=10))
    return out


# ------------------------------------------------------------------ through the API, each sample's status read

#: slug -> (row fields, the status every citation output must have)
STATUS_ROWS = {
    "superscript-marker": ({"answer": "Paris is the capital of France [²]."}, "no_citations"),
    "arabic-marker": ({"answer": "Paris is the capital of France [١]."}, "no_citations"),
    "caret-superscript": ({"answer": "Paris is the capital of France ^²."}, "no_citations"),
    "caret-5000-digits": ({"answer": "Paris is the capital of France ^" + "9" * 5000 + "."}, "citation_out_of_range"),
    "zero-marker": ({"answer": "Paris is the capital of France [0]."}, "citation_out_of_range"),
    "field-superscript": ({"answer": "Paris is the capital of France.", "citations": [["²"]]},
                          "citation_out_of_range"),
    "field-5000-digits": ({"answer": "Paris is the capital of France.", "citations": [["9" * 5000]]},
                          "citation_out_of_range"),
    "field-claim-superscript": ({"answer": "Paris is the capital of France.",
                                 "citations": [{"text": "capital of France", "contexts": ["²"]}]},
                                "citation_out_of_range"),
    "field-huge-int": ({"answer": "Paris is the capital of France.", "citations": [[10 ** 999]]},
                       "citation_out_of_range"),
    "field-count-mismatch": ({"answer": "Paris is the capital of France.", "citations": [[1], [2]]}, "error"),
}


def check(tmp: str, slug: str, metric: str = "citations_local", pattern: str | None = None) -> str:
    """Score the row of STATUS_ROWS[slug] with ``metric`` (the judged one with a scripted judge, which the
    statuses come before); raise RuntimeError (a failure, not a clear error) when any citation output's status
    is not the one expected or its reason says "internal error". Returns the status."""
    import genevals
    from genevals.judge.backends.scripted import ScriptedProvider

    fields, expected = STATUS_ROWS[slug]
    row = {**_row(""), **fields}
    judge = None
    if metric == "citations":
        judge = genevals.JudgeConfig(provider=ScriptedProvider({"citations": {"sentences": []}},
                                                               route=lambda messages: "citations"), cache=False)
    options = {metric: {"pattern": pattern}} if pattern else None
    results = genevals.evaluate([row], [metric], judge=judge, options=options)
    for result in results:
        for name, m in result.metrics.items():
            if not name.startswith("citation") and name != "miscited":
                continue
            if "internal error" in (m.reason or "") or m.status != expected:
                raise RuntimeError(f"{name}: status {m.status}, expected {expected}: {m.reason}")
    return expected


#: slug -> (the judge's reply to the citation check, the status of a sample citing [1] for one sentence)
REPLIES = {
    "passage-5000-digits": ('{"sentences": [{"id": 1, "supported": true, "cited": [{"passage": ' + "9" * 5000
                            + ', "alone": true, "quote": ""}], "supported_by": [], "reason": ""}]}', "parse_error"),
    "passage-5000-digit-string": ({"sentences": [{"id": 1, "supported": True, "reason": "", "supported_by": [],
                                                  "cited": [{"passage": "9" * 5000, "alone": True, "quote": ""}]}]},
                                  "parse_error"),
    "id-superscript": ({"sentences": [{"id": "²", "supported": True, "cited": [], "supported_by": [],
                                       "reason": ""}]}, "parse_error"),
    "supported-by-nested": ({"sentences": [{"id": 1, "supported": True, "cited": [], "supported_by": [[1], {}],
                                            "reason": ""}]}, "ok"),
}


def judged(tmp: str, slug: str) -> str:
    """The judged citation metric on one cited sentence, the scripted judge replying REPLIES[slug]; RuntimeError
    when the status is not the one expected (an "internal error" is not)."""
    import genevals
    from genevals.judge.backends.scripted import ScriptedProvider

    reply, expected = REPLIES[slug]
    judge = genevals.JudgeConfig(provider=ScriptedProvider({"citations": reply}, route=lambda messages: "citations"),
                                 cache=False)
    results = genevals.evaluate([_row("Paris is the capital of France [1].")], ["citations"], judge=judge)
    for result in results:
        m = result.metrics["citation_recall"]
        if m.status != expected:
            raise RuntimeError(f"status {m.status}, expected {expected}: {m.reason}")
    return expected


def api() -> list[Case]:
    module = '__import__("hostile.cases_citations", fromlist=["_"])'
    out = []
    for slug in STATUS_ROWS:
        for metric in ("citations_local", "citations"):
            out.append(Case(id=f"citations-api-{metric.replace('_', '-')}-{slug}", cls="citations", expect=OK,
                            api=f"{module}.check(TMP, {slug!r}, {metric!r})", limit=10))
    for slug in REPLIES:
        out.append(Case(id=f"citations-api-judge-reply-{slug}", cls="citations", expect=OK,
                        api=f"{module}.judged(TMP, {slug!r})", limit=10))
    # a Python int too large for str() (JSON cannot carry one: its reader refuses 5,000 digits itself)
    for slug, value in (("huge-int", "10 ** 5000"), ("huge-negative-int", "-10 ** 5000"),
                        ("huge-int-in-claim", "{'text': 'capital', 'contexts': [10 ** 5000]}")):
        refs = value if slug.endswith("claim") else f"[{value}]"
        out.append(Case(id=f"citations-api-field-{slug}", cls="citations", expect=REFUSED, where=("citations[0]",),
                        limit=6, api=f"evaluate([{{**ROWS[0], 'citations': [{refs}]}}], ['citations_local'])"))
    for slug, value, where in (("int", "5", ("pattern",)), ("list", "['x']", ("pattern",)),
                               ("bytes", "b'(x)'", ("pattern",)), ("empty", "''", ("pattern",)),
                               ("backreference", r"r'(\d)\1'", ("pattern", "backreferences")),
                               ("lookahead", r"r'(?=\[)\[(\d)\]'", ("pattern", "lookaround")),
                               ("nested-5000", "'(' * 5000 + 'a' + ')' * 5000", ("pattern", "1,000 characters")),
                               ("empty-match", "'x*'", ("pattern", "empty string"))):
        for metric in ("citations_local", "citations"):
            out.append(Case(id=f"citations-api-pattern-{metric.replace('_', '-')}-{slug}", cls="citations",
                            expect=REFUSED, where=where, limit=6,
                            api=f"evaluate(ROWS, [{metric!r}], options={{{metric!r}: {{'pattern': {value}}}}})"))
    return out


def cases() -> list[Case]:
    return [*patterns(), *answers(), *fields(), *api()]

