"""Cases: issue52d (issue 52, points 16 and 16b): long and odd inputs. Text that made a regular expression
backtrack over a long run of whitespace (a run file's line, a judge's reply, a grade, an answer with a date), a
conversation whose results line held every turn's history again, blank turns that were never dropped. Each must
finish well inside its limit: a hang is a failure."""
from __future__ import annotations

import json

from hostile.cases import CHEAP, GOOD_ROWS, OK, Case, good_jsonl, jsonl, line, run_case

CLS = "issue52d"
#: the whitespace run every case below hides somewhere: minutes (or hours) for the old regular expressions
SPACES = " " * 100_000


def _script(replies: dict) -> bytes:
    return json.dumps(replies).encode()


def _judged(slug: str, replies: dict, metrics: str = "faithfulness", expect: str = OK, content: bytes | None = None,
            limit: float = 20.0) -> Case:
    """``genevals run`` with a scripted judge replying ``replies`` (by prompt)."""
    argv = ("run", "{in}", "--out", "{out}", "--metrics", metrics, "--no-history", "--no-judge-cache",
            "--judge-backend", "scripted", "--judge-model", "{tmp}/script.json")
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, argv=argv, limit=limit,
                files=(("in.jsonl", good_jsonl() if content is None else content),
                       ("script.json", _script(replies))))


def _pyproject(slug: str, text: str) -> Case:
    """A run found without -c: a pyproject.toml in the working folder whose text hides ``text`` in a string."""
    toml = f'[project]\nname = "x"\ndescription = """\n{text}\n"""\n\n[tool.genevals]\nseed = 3\n'
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=OK, limit=15.0,
                argv=("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "--no-history"),
                files=(("in.jsonl", good_jsonl()), ("pyproject.toml", toml.encode())))


def _conversation(n: int, user: str, assistant: str) -> bytes:
    turns = []
    for i in range(n):
        turns += [{"role": "user", "content": user.format(i=i)},
                  {"role": "assistant", "content": assistant.format(i=i), "references": ["noon"]}]
    return jsonl(line({"id": "c1", "turns": turns}))


def _regexes() -> list[Case]:
    verify = {"verdicts": [{"id": 1, "context": 1, "quote": "", "label": "unverifiable", "reason": "x"}]}
    return [
        # the run file's line scanner, over any pyproject.toml found: a table header
        _pyproject("runfile-header-spaces", "[" + SPACES + "x"),
        # a judge reply: an unclosed code fence, then the whitespace (then the object, found without the fence)
        _judged("judge-fence-spaces", {"decompose": "```" + SPACES + '{"claims": []}', "verify": verify}),
        _judged("judge-fence-json-spaces", {"decompose": "```json" + SPACES + "x", "verify": verify},
                expect="exit:3"),
        # a claim's source quoted with "..." and whitespace around it, located in the answer
        _judged("judge-source-ellipsis-spaces",
                {"decompose": {"claims": [{"claim": "Paris is the capital.", "source": "Paris" + SPACES + "x"}]},
                 "verify": verify}),
        # label's grade reader: "final score" and whitespace before the grade
        Case(id=f"{CLS}-label-final-score-spaces", cls=CLS, expect=OK, limit=20.0,
             argv=("label", "--qrels-out", "{tmp}/q.qrels", "{in}", "--depth", "1", "--no-judge-cache",
                   "--judge-backend", "scripted", "--judge-model", "{tmp}/script.json"),
             files=(("in.jsonl", jsonl(line(GOOD_ROWS[0]))),
                    ("script.json", _script({"relevance_grade": "final score" + SPACES + "x. Final score: 2"})))),
    ]


def _grounding() -> list[Case]:
    row = {"id": "q1", "question": "When does the ferry sail?", "contexts": ["The ferry sails on 5 May."],
           "answer": "The ferry sails on 1" + SPACES[:40_000] + "x May. It sails in May 5" + SPACES + "x."}
    # the date rule (is this "May" a month?) searched the whole text before it and backtracked over whitespace
    return [run_case(f"{CLS}-grounding-date-spaces", CLS, OK, jsonl(line(row)), metrics="grounding", limit=40.0)]


def _conversations() -> list[Case]:
    return [
        # blank turns: no token, never dropped by the budget, so every later turn carried them all
        run_case(f"{CLS}-conversation-blank-turns", CLS, OK, limit=30.0, metrics="exact_match",
                 content=_conversation(5000, " ", "\n\t ")),
    ]


def _numerals() -> list[Case]:
    """Numbers written as text: ASCII digits only, and not past a count's length (16b)."""
    flat = {"id": "q1", "conversation_id": "c1", "question": "When?", "answer": "At noon.", "references": ["noon"]}
    found = []
    for slug, turn in (("superscript", "\u00b9"), ("arabic-indic", "\u0663"), ("5000-digits", "7" * 5000)):
        found.append(run_case(f"{CLS}-flat-turn-{slug}", CLS, "refused", jsonl(line(dict(flat, turn=turn))),
                              where=("in.jsonl:1", "turn"), metrics="exact_match"))
        csv = f"id,conversation_id,turn,question,answer\nq1,c1,{turn},When?,At noon.\n".encode()
        found.append(run_case(f"{CLS}-flat-turn-csv-{slug}", CLS, "refused", csv, name="in.csv",
                              where=("in.csv", "turn"), metrics="exact_match"))
    for slug, grade in (("superscript", "\u00b2"), ("5000-digits", "2" * 5000)):
        found.append(Case(id=f"{CLS}-label-grade-{slug}", cls=CLS, expect="exit:3", limit=20.0,
                          argv=("label", "--qrels-out", "{tmp}/q.qrels", "{in}", "--depth", "1", "--no-judge-cache",
                                "--judge-backend", "scripted", "--judge-model", "{tmp}/script.json"),
                          files=(("in.jsonl", jsonl(line(GOOD_ROWS[0]))),
                                 ("script.json", _script({"relevance_grade": {"score": grade}})))))
    return found


def _jury() -> list[Case]:
    """A jury file with both lists, and weights whose weighted sums overflow (they wrote NaN into results)."""
    good = {"model": "a", "base_url": "http://127.0.0.1:9/v1"}
    files = {
        "both-lists": ({"judge": [dict(good, name="x"), dict(good, name="y")],
                        "judges": [dict(good, name="p"), dict(good, name="q")]}, ("jury.json", "'judge'", "'judges'")),
        "weights-overflow": ([dict(good, name="x", weight=1e308), dict(good, name="y", weight=1e308)],
                             ("jury.json", "judge 1", "weight")),
    }
    found = [Case(id=f"{CLS}-jury-{slug}", cls=CLS, expect="refused", where=where,
                  argv=("run", "{in}", "--metrics", "faithfulness", "--jury", "{tmp}/jury.json", "--no-history",
                        "--out", "{out}"),
                  files=(("in.jsonl", good_jsonl()), ("jury.json", json.dumps(data).encode())))
             for slug, (data, where) in files.items()]
    huge = json.dumps([dict(good, name="x"), dict(good, name="y", weight=0)]).replace('"weight": 0', '"weight": 1' + "0" * 400)
    found.append(Case(id=f"{CLS}-jury-weight-400-digits", cls=CLS, expect="refused", where=("jury.json", "weight"),
                      argv=("run", "{in}", "--metrics", "faithfulness", "--jury", "{tmp}/jury.json", "--no-history",
                            "--out", "{out}"),
                      files=(("in.jsonl", good_jsonl()), ("jury.json", huge.encode()))))
    return found


def _languages() -> list[Case]:
    """A language tag whose subtags are no BCP 47 subtags (16b), as an option and as a row's field."""
    found = [run_case(f"{CLS}-language-option-{slug}", CLS, "refused", good_jsonl(), where=("--language", tag),
                      extra=("--language", tag)) for slug, tag in (("bang", "en-!!!"), ("dash", "en-"))]
    row = dict(GOOD_ROWS[0], language="en-!!!")
    found.append(run_case(f"{CLS}-language-field-bang", CLS, "refused", jsonl(line(row)),
                          where=("in.jsonl:1", "language")))
    return found


def _options() -> list[Case]:
    """A --judge-option value of JSON nested 5,000 deep (16b): a RecursionError's traceback before."""
    deep = {"object": '{"a": ' * 5000 + "1" + "}" * 5000, "list": "[" * 5000 + "]" * 5000}
    return [run_case(f"{CLS}-judge-option-deep-{slug}", CLS, "refused", good_jsonl(), metrics="faithfulness",
                     where=("--judge-option", "prices"), extra=("--judge-option", "prices=" + value))
            for slug, value in deep.items()]


def _attr(key: str, value: str) -> dict:
    return {"key": key, "value": {"stringValue": value}}


def _traces() -> list[Case]:
    """An OpenInference span whose session.id is blank (16b): 'expected text, got text' before."""
    span = {"traceId": "1" * 32, "spanId": "2" * 16, "name": "chat", "startTimeUnixNano": "1",
            "attributes": [_attr("openinference.span.kind", "CHAIN"), _attr("input.value", "When?"),
                           _attr("output.value", "At noon."), _attr("session.id", "   ")]}
    export = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "t"},
                                                                                 "spans": [span]}]}]}
    return [Case(id=f"{CLS}-trace-blank-session", cls=CLS, expect="refused", where=("in.jsonl:1", "session", "whitespace only"),
                 argv=("run", "--from", "openinference", "{in}", "--out", "{out}", "--metrics", CHEAP),
                 files=(("in.jsonl", jsonl(json.dumps(export))),))]


def _keys() -> list[Case]:
    """A 100 KB API key (16b): the redactor compiled a pattern of it for minutes, in 1 GB; now refused, unshown."""
    key = "sk-" + "k" * 100_000
    judge = ("--judge-base-url", "http://127.0.0.1:9/v1", "--no-history")
    return [run_case(f"{CLS}-api-key-100k-env", CLS, "refused", good_jsonl(), metrics="faithfulness", extra=judge,
                     where=("OPENAI_API_KEY", "4,096"), env=(("OPENAI_API_KEY", key),), limit=20.0)]


def cases() -> list[Case]:
    return [*_regexes(), *_grounding(), *_conversations(), *_numerals(), *_jury(), *_languages(), *_options(),
            *_traces(), *_keys()]
