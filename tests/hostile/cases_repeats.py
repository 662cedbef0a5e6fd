"""Cases: judge repeats (issue 34). ``--judge-repeats`` and ``JudgeConfig(repeats=...)`` with every kind of value
(the cap is :data:`genevals.judge.config.MAX_REPEATS`; 10^6 repeats took 1.27 GB before the first request);
repeats against every faulty-judge mode of the fault server at ``{judge}`` and with ``--resume``; and the
secret-leak cases: a judge that writes the credentials it was sent into each field of its replies, its headers,
its errors or its model list (``FAULTLEAK`` in an answer, or a ``{judge}/leak-FIELD[-FORM]`` base URL: see
tests/support/fault_server.py), for each way the credentials are given (OPENAI_API_KEY, ``user:password@`` in
the base URL, ``JudgeConfig(api_key=...)``). Those name ``secrets``, and point the run history and the judge
cache into the case's folder, so that every file genevals writes is searched for them.

A base URL with credentials cannot be spelt with the ``{judge}`` placeholder alone, and a resume needs a
judged run made against the same server first: those cases call :func:`cli` through the API driver, which
runs ``genevals ARGV`` in the case's own process (``genevals.cli.main``) and checks its exit code and output.
"""
from __future__ import annotations

import json
import os

from hostile.cases import GOOD_ROWS, OK, REFUSED, Case, jsonl, line

MAX = 100  # genevals.judge.config.MAX_REPEATS, spelt out: a case must not move with the code it tests
KEY = "sk-repeats-leak-0123456789abcdef"
USER, PASSWORD = "alice", "pw-repeats-0123456789"
ECHO_FORMS = ("plain", "escaped", "split", "base64", "percent")
#: tests/support/fault_server.py's LEAK_REPLY, LEAK_ERRORS and the model lists (spelt out, as MAX)
LEAK_REPLY = ("model", "id", "fingerprint", "object", "created", "tier", "extra", "finish", "role", "refusal",
              "reasoning", "toolcalls", "logprobs", "choices", "usage", "content", "header")
LEAK_ERRORS = ("error400", "error401", "error429", "error500", "errorhtml", "errortext", "nochoices", "body",
               "contentlist")
BAD = os.fsdecode(b"\xff\xfe")
#: the history and the judge cache in the case's folder, so the secret scan reads them too
STORE = (("GENEVALS_HISTORY", "{tmp}/history.sqlite"), ("GENEVALS_CACHE_DIR", "{tmp}/cache"))
KEY_ENV = (("OPENAI_API_KEY", KEY),) + STORE


#: answers labelled by a person, as `genevals validate` reads them
LABELLED = jsonl(*(line({"id": r["id"], "question": r["question"], "response": r["answer"], "hallucinated": False,
                         "context": [c["text"] if isinstance(c, dict) else c for c in r["contexts"]]})
                   for r in GOOD_ROWS))


def rows(marker: str = "", n: int = 3) -> bytes:
    return jsonl(*(line({**r, "answer": f"{r['answer']} {marker}".strip()}) for r in GOOD_ROWS[:n]))


def judged(*extra: str, url: str = "{judge}", model: bool = True, out: str = "{out}") -> tuple[str, ...]:
    return ("run", "{in}", "--out", out, "--metrics", "faithfulness", "--judge-base-url", url,
            *(("--judge-model", "test") if model else ()), "--judge-retries", "0", "--judge-timeout", "5", *extra)


def case(slug: str, expect: str, argv: tuple[str, ...], content: bytes | None = None, **kw) -> Case:
    kw.setdefault("env", STORE)
    return Case(id=f"repeats-{slug}", cls="repeats", expect=expect, argv=argv,
                files=(("in.jsonl", rows() if content is None else content),), limit=kw.pop("limit", 30.0), **kw)


# ------------------------------------------------------------------------------------- the option's values

#: slug -> (value, expected); refused ones must name the option (and the cap, when over it)
VALUES = {
    "0": ("0", REFUSED), "minus-1": ("-1", REFUSED), "minus-0": ("-0", REFUSED), "1": ("1", OK), "2": ("2", OK),
    "3": ("3", OK), "cap": (str(MAX), OK), "cap-plus-1": (str(MAX + 1), REFUSED), "1000": ("1000", REFUSED),
    "million": ("1000000", REFUSED), "1e3": ("1e3", REFUSED), "1e6": ("1e6", REFUSED), "nan": ("nan", REFUSED),
    "NaN": ("NaN", REFUSED), "inf": ("inf", REFUSED), "minus-inf": ("-inf", REFUSED), "empty": ("", REFUSED),
    "space": (" ", REFUSED), "two": ("two", REFUSED), "digits-5000": ("9" * 5000, REFUSED),
    "digits-20": ("99999999999999999999", REFUSED), "minus-digits-20": ("-99999999999999999999", REFUSED),
    "2-pow-63": (str(2**63), REFUSED), "2-pow-31": (str(2**31), REFUSED), "2-pow-31-minus": (str(-2**31), REFUSED),
    "half": ("2.5", REFUSED), "float-whole": ("3.0", REFUSED), "plus": ("+3", OK), "padded": (" 3 ", OK),
    # int() reads 1_0 and other scripts' digits; a command line takes ASCII digits only (it says what to write)
    "newline": ("3\n", OK), "underscore": ("1_0", REFUSED), "underscore-big": ("1_000_000", REFUSED),
    "hex": ("0x10", REFUSED), "arabic-indic-3": ("\u0663", REFUSED), "fullwidth-3": ("\uff13", REFUSED),
    "superscript-2": ("\u00b2", REFUSED), "surrogate": (BAD, REFUSED), "true": ("True", REFUSED),
    "list": ("1,2", REFUSED), "json-list": ("[3]", REFUSED),
}


#: what the message says to write instead
MISWRITTEN = {"underscore": "write 10: no underscores", "underscore-big": "write 1000000: no underscores",
              "arabic-indic-3": "write 3: ASCII digits", "fullwidth-3": "write 3: ASCII digits"}


def values() -> list[Case]:
    out = []
    for slug, (value, expect) in VALUES.items():
        digits = value.strip().lstrip("+").replace("_", "")
        over = expect == REFUSED and digits.isascii() and digits.isdigit() and len(digits) < 30 and int(digits) > MAX
        where = ("--judge-repeats", str(MAX)) if over else ("--judge-repeats",)
        where += (MISWRITTEN[slug],) if slug in MISWRITTEN else ()
        content = rows(n=1) if slug == "cap" else None  # the cap: 100 verifications of one answer
        out.append(case(f"value-{slug}", expect, judged("--judge-repeats", value), content, where=where))
    # the last of two wins; a cap of the other subcommand that judges; temperatures and the dry run
    out += [
        case("value-twice-over", REFUSED, judged("--judge-repeats", "2", "--judge-repeats", str(MAX + 1)),
             where=("--judge-repeats", str(MAX))),
        # every value given is checked where it is parsed (the one checker), also one a later flag replaces
        case("value-twice-under", REFUSED, judged("--judge-repeats", str(MAX + 1), "--judge-repeats", "2"),
             where=("--judge-repeats", str(MAX))),
        case("value-million-dry-run", REFUSED, judged("--judge-repeats", "1000000", "--dry-run"),
             where=("--judge-repeats", str(MAX))),
        case("value-cap-dry-run", OK, judged("--judge-repeats", str(MAX), "--dry-run")),
        case("value-3-temperature", OK, judged("--judge-repeats", "3", "--judge-temperature", "0.7")),
        case("value-3-no-preflight", OK, judged("--judge-repeats", "3", "--no-preflight")),
        case("value-million-no-judge", REFUSED, ("run", "{in}", "--out", "{out}", "--metrics", "faithfulness",
                                                 "--judge-repeats", "1000000"), where=("--judge-repeats",)),
    ]
    # `genevals validate` judges labelled answers with the same options, and --judge-option for any other field
    validate = ("validate", "{in}", "-o", "{tmp}/v", "--judge", "llm", "--judge-base-url", "{judge}",
                "--judge-model", "test", "--judge-retries", "0")
    for slug, extra, expect, where in (
            ("million", ("--judge-repeats", "1000000"), REFUSED, ("--judge-repeats", str(MAX))),
            ("option-million", ("--judge-option", "repeats=1000000"), REFUSED, ("repeats", str(MAX))),
            ("option-text", ("--judge-option", "repeats=three"), REFUSED, ("repeats",)),
            ("3", ("--judge-repeats", "3"), OK, ())):
        out.append(Case(id=f"repeats-validate-{slug}", cls="repeats", expect=expect, argv=validate + extra,
                        files=(("in.jsonl", LABELLED),), where=where, env=KEY_ENV, secrets=(KEY,), limit=30.0))
    return out


#: JudgeConfig(repeats=...) through the API: (slug, expression, expected, where)
API_VALUES = (
    ("0", "0", REFUSED, ("repeats",)), ("minus-1", "-1", REFUSED, ("repeats",)),
    ("cap-plus-1", str(MAX + 1), REFUSED, ("repeats", str(MAX))), ("million", "10**6", REFUSED, ("repeats", str(MAX))),
    ("digits-5000", "10**4999", REFUSED, ("repeats", str(MAX))), ("float", "3.0", REFUSED, ("repeats",)),
    ("nan", "float('nan')", REFUSED, ("repeats",)), ("text", "'3'", REFUSED, ("repeats",)),
    ("bool", "True", REFUSED, ("repeats",)), ("none", "None", REFUSED, ("repeats",)),
    ("numpy-million", "np.int64(10**6)", REFUSED, ("repeats", str(MAX))), ("numpy-3", "np.int64(3)", OK, ()),
    ("3", "3", OK, ()),
)


def api_values() -> list[Case]:
    out = []
    for slug, value, expect, where in API_VALUES:
        judge = (f"JudgeConfig(base_url='{{judge}}', model='test', max_retries=0, cache_dir=TMP + '/cache', "
                 f"repeats={value})")
        out.append(Case(id=f"repeats-api-{slug}", cls="repeats", expect=expect, where=where,
                        api=f"evaluate(ROWS, ['faithfulness'], judge={judge})", env=STORE, limit=30.0))
    out.append(Case(id="repeats-api-mapping-million", cls="repeats", expect=REFUSED, where=("repeats", str(MAX)),
                    api="evaluate(ROWS, ['faithfulness'], judge={'base_url': '{judge}', 'repeats': 10**6})",
                    env=STORE))
    return out


# ------------------------------------------------------------------------- repeats against a faulty judge

#: marker -> expected with --max-judge-errors 1 (nothing is too many errors, so only a refusal is not ok)
FAULTS = ("FAULT429", "FAULT500", "FAULTHANG", "FAULTMALFORMED", "FAULTBODY", "FAULTTRUNC", "FAULTWRONGID",
          "FAULTQUOTE", "FAULTAUTH", "FAULTECHO", "FAULTINVENT")
#: the faults that fail every sample: with the default --max-judge-errors the run ends with exit 3
ALWAYS_FAILING = ("FAULT500", "FAULTMALFORMED", "FAULTAUTH")


def faults() -> list[Case]:
    out = []
    for marker in FAULTS:
        slug = marker[5:].lower()
        timeout = ("--judge-timeout", "1") if marker == "FAULTHANG" else ()  # the server hangs 3 s
        for n in ("2", "3"):
            out.append(case(f"fault-{slug}-{n}", OK, judged("--judge-repeats", n, "--max-judge-errors", "1",
                                                            *timeout), rows(marker), env=KEY_ENV, secrets=(KEY,)))
        if marker in ALWAYS_FAILING:
            out.append(case(f"fault-{slug}-3-exit-3", "exit:3", judged("--judge-repeats", "3"), rows(marker),
                            env=KEY_ENV, secrets=(KEY,)))
    # one row faulty among clean ones; and each echo form with repeats
    out.append(case("fault-mixed-rows-3", OK, judged("--judge-repeats", "3", "--max-judge-errors", "1"), jsonl(
        line(GOOD_ROWS[0]), line({**GOOD_ROWS[1], "answer": GOOD_ROWS[1]["answer"] + " FAULTMALFORMED"}),
        line({**GOOD_ROWS[2], "answer": GOOD_ROWS[2]["answer"] + " FAULTWRONGID"})), env=KEY_ENV, secrets=(KEY,)))
    for form in ECHO_FORMS:
        out.append(case(f"fault-echo-{form}-3", OK, judged("--judge-repeats", "3"), rows(f"FAULTECHO echo={form}"),
                        env=KEY_ENV, secrets=(KEY,)))
    return out


# ----------------------------------------------------------------------------------------- with --resume

def resumed() -> list[Case]:
    repeats = ("--judge-repeats", "3")
    out = [
        # the same command twice: a fresh run, then a resume of a complete one (answered from the cache)
        case("resume-twice-3", OK, judged(*repeats, "--resume", out="{tmp}/r"), setup="rerun_first", env=KEY_ENV,
             secrets=(KEY,)),
        # the previous run in {out} scored other metrics without a judge: resuming it with repeats is refused
        case("resume-other-run-3", REFUSED, judged(*repeats, "--resume"), where=("--resume",)),
        case("resume-other-run-million", REFUSED, judged("--judge-repeats", "1000000", "--resume"),
             where=("--judge-repeats",)),
    ]
    api = "__import__('hostile.cases_repeats', fromlist=['_']).resume(TMP, '{judge}', %s)"
    for slug, args in (("cut-same", "3, 3"), ("cut-fewer", "3, 2, codes=(2,)"), ("cut-more", "2, 3, codes=(2,)"),
                       ("cut-same-echo", "3, 3, marker='FAULTECHO'"), ("cut-same-leak", "3, 3, marker='FAULTLEAK'"),
                       ("cut-one-to-3", "1, 3, codes=(2,)"), ("cut-over-cap", f"3, {MAX + 1}, codes=(2,)")):
        out.append(Case(id=f"repeats-resume-{slug}", cls="repeats", expect=OK, api=api % args, env=KEY_ENV,
                        secrets=(KEY,), limit=40.0))
    return out


def resume(tmp: str, judge: str, first: int, then: int, codes=(0, 1), marker: str = "") -> int:
    """A judged run with ``first`` repeats into ``tmp/r``, its last results line cut off, then ``--resume`` with
    ``then`` repeats: its exit code, which must be one of ``codes`` (a different count is another run: exit 2)."""
    path = os.path.join(tmp, "resume.jsonl")
    with open(path, "wb") as handle:
        handle.write(rows(marker))
    argv = ["run", path, "--out", os.path.join(tmp, "r"), "--metrics", "faithfulness", "--judge-base-url", judge,
            "--judge-model", "test", "--judge-retries", "0", "--max-judge-errors", "1"]
    cli(tmp, *argv, "--judge-repeats", str(first))
    results = os.path.join(tmp, "r", "results.jsonl")
    with open(results, "rb") as handle:
        kept = handle.read().split(b"\n")[:-2]
    with open(results, "wb") as handle:
        handle.write(b"\n".join(kept) + b"\n")
    code = cli(tmp, *argv, "--judge-repeats", str(then), "--resume", codes=codes)
    with open(results, "rb") as handle:
        now = handle.read()
    if not now.startswith(b"\n".join(kept) + b"\n"):
        raise RuntimeError("--resume lost the results it continued")
    if code in (0, 1) and now.count(b"\n") != 3:
        raise RuntimeError(f"--resume left {now.count(chr(10).encode())} results lines, not 3")
    return code


def cli(tmp: str, *argv: str, codes=(0, 1), user: str | None = None, env_url: bool = False) -> int:
    """``genevals ARGV`` in this process, its output written to ``tmp/_cli_N.txt`` (searched for secrets like every
    file); ``user`` ("name:password") goes into every http URL of ``argv``; ``env_url``: the URL after
    ``--judge-base-url`` goes into OPENAI_BASE_URL instead. Its exit code, which must be one of ``codes``, with
    no traceback, and with an error message when it is 2."""
    import contextlib
    import io
    import traceback

    from genevals.cli import main

    if user is not None:
        argv = tuple(a.replace("http://", f"http://{user}@", 1) if a.startswith("http://") else a for a in argv)
    if env_url:
        at = argv.index("--judge-base-url")
        os.environ["OPENAI_BASE_URL"] = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception:  # noqa: BLE001 -- recorded, and then the case fails on it
            traceback.print_exc()
            code = None
    text = out.getvalue()
    n = sum(1 for name in os.listdir(tmp) if name.startswith("_cli_"))
    with open(os.path.join(tmp, f"_cli_{n}.txt"), "w", encoding="utf-8", errors="replace") as handle:
        handle.write(text)
    if "Traceback" in text or code not in codes or (code == 2 and "error" not in text.lower()):
        raise RuntimeError(f"genevals {' '.join(argv)[:300]}: exit {code}, expected one of {codes}: {text[-1500:]}")
    return code


# ------------------------------------------------------------------------------------- the secret leaks

def leaks() -> list[Case]:
    """Each field the credentials can come back in, each form, each way they are given; with 2 repeats."""
    out = []
    with_cache = ("--judge-repeats", "2", "--max-judge-errors", "1", "--judge-cache", "{tmp}/cache", "--history",
                  "{tmp}/history.sqlite")
    for field in LEAK_REPLY + ("all",) + LEAK_ERRORS:
        # the marker in the answers: the preflight passes, every call of the samples leaks
        out.append(case(f"leak-marker-{field}", OK, judged(*with_cache), rows(f"FAULTLEAK leak={field}"),
                        env=KEY_ENV, secrets=(KEY,)))
        # the base URL: every request leaks, the preflight's too (an error there stops the run: exit 2)
        expect = OK if field in LEAK_REPLY + ("all", "error429") else REFUSED
        out.append(case(f"leak-url-{field}", expect, judged(*with_cache, url="{judge}/leak-" + field), env=KEY_ENV,
                        secrets=(KEY,), where=("leak-" + field,)))
    for form in ECHO_FORMS:
        out.append(case(f"leak-marker-all-{form}", OK, judged(*with_cache), rows(f"FAULTLEAK leak=all echo={form}"),
                        env=KEY_ENV, secrets=(KEY,), setup="rerun_first"))  # the second run from the cache
        out.append(case(f"leak-url-all-{form}", OK, judged(*with_cache, url=f"{{judge}}/leak-all-{form}"),
                        env=KEY_ENV, secrets=(KEY,)))
        url = f"{{judge}}/leak-error400-{form}"
        out.append(case(f"leak-url-error400-{form}", REFUSED, judged(*with_cache, url=url), env=KEY_ENV,
                        secrets=(KEY,), where=(f"leak-error400-{form}",)))
    for field in ("models", "models2"):  # no --judge-model: the server's list names the model
        for form in ("plain", "base64"):
            out.append(case(f"leak-url-{field}-{form}", REFUSED,
                            judged(*with_cache, url=f"{{judge}}/leak-{field}-{form}", model=False),
                            env=KEY_ENV, secrets=(KEY,), where=("--judge-model",)))
    # every judge metric, scored twice each: replies it cannot read keep a transcript, redacted too
    for metric in ("llm_rubric", "answer_relevance", "context_relevance", "context_recall", "answer_correctness",
                   "citations", "faithfulness,llm_rubric"):
        argv = judged(*with_cache, url="{judge}/leak-all")
        at = argv.index("faithfulness")
        out.append(case(f"leak-metric-{metric.replace(',', '-').replace('_', '-')}", OK,
                        argv[:at] + (metric,) + argv[at + 1:], env=KEY_ENV, secrets=(KEY,)))
    call = "__import__('hostile.cases_repeats', fromlist=['_']).after_leak(TMP, '{judge}', %s)"
    for field, form in (("all", "plain"), ("all", "escaped"), ("model", "split"), ("finish", "plain")):
        out.append(Case(id=f"repeats-leak-read-back-{field}-{form}", cls="repeats", expect=OK, env=KEY_ENV,
                        api=call % f"'{field}', '{form}'", files=(("in.jsonl", rows()),), secrets=(KEY,),
                        limit=40.0))
    return out + credential_leaks()


def credential_leaks() -> list[Case]:
    """``user:password@`` in the base URL (Basic auth, which the server decodes and echoes), and the key given
    as ``JudgeConfig(api_key=...)``."""
    out = []
    secrets = (PASSWORD, f"{USER}:{PASSWORD}")
    call = "__import__('hostile.cases_repeats', fromlist=['_']).cli(TMP, %s, user='" + f"{USER}:{PASSWORD}')"
    base = ("'run', IN, '--out', TMP + '/o', '--metrics', 'faithfulness', '--judge-model', 'test', "
            "'--judge-retries', '0', '--judge-repeats', '2', '--max-judge-errors', '1', '--judge-cache', "
            "TMP + '/cache', '--history', TMP + '/history.sqlite', '--judge-base-url', ")
    for field, codes, forms in (("all", "(0, 1)", ECHO_FORMS), ("model", "(0, 1)", ("plain",)),
                                ("error401", "(2,)", ("plain", "base64")), ("errorhtml", "(2,)", ("percent",)),
                                ("models2", "(2,)", ("escaped",))):
        for form in forms:
            argv = base + f"'{{judge}}/leak-{field}-{form}'"
            if field.startswith("models"):
                argv = argv.replace("'--judge-model', 'test', ", "")
            out.append(Case(id=f"repeats-leak-credentials-{field}-{form}", cls="repeats", expect=OK,
                            api=call % (argv + f", codes={codes}"), files=(("in.jsonl", rows()),), env=STORE,
                            secrets=secrets, limit=30.0))
    for field, codes in (("all", "(0, 1)"), ("model", "(0, 1)"), ("error400", "(2,)"), ("models2", "(2,)")):
        argv = base + f"'{{judge}}/leak-{field}-base64'"
        if field.startswith("models"):
            argv = argv.replace("'--judge-model', 'test', ", "")
        out.append(Case(id=f"repeats-leak-credentials-env-url-{field}", cls="repeats", expect=OK, env=STORE,
                        api=call % (argv + f", codes={codes}, env_url=True"), files=(("in.jsonl", rows()),),
                        secrets=secrets, limit=30.0))
    query = "query-secret-0123456789"  # a key in the base URL's query (some gateways take one there)
    for field, form, expect in (("all", "plain", OK), ("all", "percent", OK), ("error401", "plain", REFUSED)):
        out.append(case(f"leak-query-{field}-{form}", expect, judged(
            "--judge-repeats", "2", "--max-judge-errors", "1", url=f"{{judge}}/leak-{field}-{form}?api-key={query}"),
            secrets=(query,), where=(f"leak-{field}-{form}",)))
    for field in ("all", "error400", "content", "model"):
        judge = (f"JudgeConfig(base_url='{{judge}}/leak-{field}', model='test', api_key='{KEY}', max_retries=0, "
                 "repeats=2, cache_dir=TMP + '/cache')")
        # no preflight through the API: an error on every call leaves every sample unscored, with a warning
        out.append(Case(id=f"repeats-leak-api-key-{field}", cls="repeats", expect=OK, env=STORE,
                        api=f"evaluate(ROWS, ['faithfulness'], judge={judge}, out_dir=TMP + '/o')",
                        secrets=(KEY,), limit=30.0))
    return out


def after_leak(tmp: str, judge: str, field: str = "all", form: str = "plain") -> int:
    """A judged run whose every reply leaked the key (``{judge}/leak-FIELD-FORM``), then what reads it back and
    writes: ``genevals report``, ``report --history``, ``history``, ``review export``."""
    out, history = os.path.join(tmp, "o"), os.path.join(tmp, "history.sqlite")
    cli(tmp, "run", os.path.join(tmp, "in.jsonl"), "--out", out, "--metrics", "faithfulness", "--judge-base-url",
        f"{judge}/leak-{field}-{form}", "--judge-model", "test", "--judge-retries", "0", "--judge-repeats", "2",
        "--max-judge-errors", "1", "--history", history, "--judge-cache", os.path.join(tmp, "cache"))
    cli(tmp, "report", out)
    cli(tmp, "report", out, "--history", history, "-o", os.path.join(tmp, "with-history.html"))
    cli(tmp, "history", "--history", history)
    cli(tmp, "history", "--history", history, "show", "1")
    return cli(tmp, "review", "export", out, "-o", os.path.join(tmp, "labels.jsonl"), codes=(0, 1, 2))


def cases() -> list[Case]:
    return values() + api_values() + faults() + resumed() + leaks()


if __name__ == "__main__":
    print(json.dumps([c.id for c in cases()], indent=1))
