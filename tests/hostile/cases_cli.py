"""Cases: paths (input and output), options (every numeric option with 0, -1, huge, not a number, NaN, 1_0 and
non-ASCII digits; metric names, --map, --judge-prices, thresholds, --set) and a judge (a fault-injecting server
at ``{judge}``)."""
from __future__ import annotations

import json
import os

from hostile.cases import ANY, CHEAP, GOOD_ROWS, OK, REFUSED, Case, cli_case, jsonl, line

RUN = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP)
BAD = os.fsdecode(b"\xff\xfe")  # bytes that are not UTF-8, as an argument: Python sees lone surrogates


def paths() -> list[Case]:
    def run(slug, expect, source, out="{out}", *extra, setup="", where=()):
        return cli_case(f"paths-{slug}", "paths", expect, "run", source, "--out", out, "--metrics", CHEAP, *extra,
                        setup=setup, where=where)

    return [
        run("input-missing", REFUSED, "{tmp}/nosuch.jsonl", where=("nosuch.jsonl",)),
        run("input-a-folder", REFUSED, "{tmp}", where=("{tmp}",)),
        run("input-trailing-slash", REFUSED, "{in}/", where=("in.jsonl",)),
        run("input-trailing-dot", REFUSED, "{in}/.", where=("in.jsonl",)),
        run("input-fifo", REFUSED, "{tmp}/fifo.jsonl", setup="fifo", where=("fifo.jsonl",)),
        run("input-dev-zero", REFUSED, "/dev/zero", where=("/dev/zero",)),
        run("input-dev-null", REFUSED, "/dev/null", where=("/dev/null",)),
        run("input-dev-stdin", REFUSED, "/dev/stdin", where=("/dev/stdin",)),
        run("input-dev-urandom-jsonl-name", REFUSED, "/dev/urandom", where=("/dev/urandom",)),
        run("input-proc-file", REFUSED, "/proc/self/status", where=("/proc/self/status",)),
        run("input-unreadable", REFUSED, "{in}", setup="unreadable", where=("in.jsonl",)),
        run("input-symlink-loop", REFUSED, "{tmp}/loop-a.jsonl", setup="symlink_loop", where=("loop-a.jsonl",)),
        run("input-dangling-symlink", REFUSED, "{tmp}/dangling.jsonl", setup="dangling_symlink",
            where=("dangling.jsonl",)),
        run("input-symlink", OK, "{tmp}/link.jsonl", setup="symlink_to_input"),
        run("input-empty-string", REFUSED, "", where=("input",)),
        run("input-dash", ANY, "-", where=("-",)),
        run("input-unicode-name", OK, "{tmp}/données-日本語.jsonl", setup="unicode_names"),
        run("input-space-in-name", OK, "{tmp}/with space.jsonl", setup="unicode_names"),
        run("input-newline-in-name", OK, "{tmp}/new\nline.jsonl", setup="unicode_names"),
        run("input-255-byte-name", OK, "{tmp}/" + "x" * 249 + ".jsonl", setup="unicode_names"),
        run("input-shell-characters-in-name", OK, "{tmp}/quote'\"`$(x).jsonl", setup="unicode_names"),
        run("input-name-not-utf8", ANY, "{tmp}/" + os.fsdecode(b"bad\xffname.jsonl"), setup="unicode_names",
            where=("name.jsonl",)),
        run("input-name-too-long", REFUSED, "{tmp}/" + "x" * 300 + ".jsonl", where=("xxxx",)),
        run("input-path-too-long", REFUSED, "{tmp}/" + "/".join(["d" * 200] * 25) + "/in.jsonl", where=("ddd",)),
        run("input-is-previous-results", ANY, "{out}/results.jsonl", where=("results.jsonl",)),
        run("input-relative", OK, "in.jsonl"),
        run("input-dot-dot", OK, "{tmp}/out/../in.jsonl"),
        run("out-a-file", REFUSED, "{in}", "{in}", where=("--out", "in.jsonl")),
        run("out-under-a-file", REFUSED, "{in}", "{in}/sub", where=("in.jsonl",)),
        run("out-deep-under-a-file", REFUSED, "{in}", "{in}/a/b/c", where=("in.jsonl",)),
        run("out-unwritable", REFUSED, "{in}", "{out}", setup="out_unwritable", where=("out",)),
        run("out-parent-unwritable", REFUSED, "{in}", "{tmp}/locked/new", setup="out_parent_unwritable",
            where=("locked",)),
        run("out-in-proc", REFUSED, "{in}", "/proc/genevals-out", where=("/proc/genevals-out",)),
        run("out-dev-null", REFUSED, "{in}", "/dev/null", where=("/dev/null",)),
        run("out-empty-string", REFUSED, "{in}", "", where=("--out",)),
        run("out-trailing-slash", OK, "{in}", "{out}/"),
        run("out-new-nested", OK, "{in}", "{tmp}/a/b/c/new"),
        run("out-unicode-name", OK, "{in}", "{tmp}/sortie-données-日本"),
        run("out-name-not-utf8", ANY, "{in}", "{tmp}/" + os.fsdecode(b"out\xff"), where=("out",)),
        run("out-symlink-to-run", OK, "{in}", "{tmp}/out-link", setup="out_symlink"),
        run("out-symlink-loop", REFUSED, "{in}", "{tmp}/out-a", setup="out_symlink_loop", where=("out-a",)),
        run("out-dangling-symlink", ANY, "{in}", "{tmp}/out-dangling", setup="out_dangling_symlink",
            where=("out-dangling",)),
        run("out-is-input-folder", OK, "{in}", "{tmp}"),
        run("out-name-too-long", REFUSED, "{in}", "{tmp}/" + "o" * 300, where=("ooo",)),
    ]


#: option -> (values accepted, values either way); every other value of VALUES is refused naming the option
NUMERIC = {
    "--workers": ({"1", "2"}, {"huge"}),
    "--seed": ({"0", "1"}, {"huge"}),
    "--cutoffs": ({"1", "2"}, set()),
    "--bertscore-layer": ({"1", "2"}, {"0", "huge"}),
    "--batch-size": ({"1", "2"}, {"huge"}),
    "--judge-concurrency": ({"1", "2"}, {"huge"}),
    "--judge-retries": ({"0", "1", "2"}, {"huge"}),
    "--judge-timeout": ({"1", "2", "1.5"}, {"huge", "inf", "1e8", "1e21"}),
    "--judge-seed": ({"0", "1", "2"}, {"-1", "huge"}),
    "--judge-max-tokens": ({"1", "2"}, {"huge"}),
    "--judge-n-ctx": ({"2"}, {"1", "huge"}),
    "--context-token-budget": ({"1", "2"}, {"huge"}),
    "--judge-max-claims": ({"1", "2"}, {"huge"}),
    "--max-judge-errors": ({"0", "1", "0.5"}, set()),
    "--min-coverage": ({"0", "1", "0.5"}, set()),
    "--ray-judge-actors": ({"1", "2"}, {"huge"}),
}
VALUES = {"0": "0", "-1": "-1", "1": "1", "2": "2", "1.5": "1.5", "huge": "99999999999999999999", "1e8": "1e8",
          "1e21": "1e21", "abc": "abc", "nan": "nan", "inf": "inf", "empty": "", "surrogate": BAD,
          # what Python's int()/float() read but a command line should not: refused, saying what to write
          "underscore": "1_0", "arabic-indic": "\u0662", "full-width": "\uff12", "devanagari": "\u0968"}


def options() -> list[Case]:
    out: list[Case] = []
    for option, (accepted, either) in NUMERIC.items():
        for name, value in VALUES.items():
            if name == "2" and option not in ("--workers", "--cutoffs"):
                continue  # one accepted value per option is enough, except where 2 starts something
            expect = OK if name in accepted else ANY if name in either else REFUSED
            out.append(cli_case(f"options-{option[2:]}-{name}", "options", expect, *RUN, option, value,
                                where=(option,)))
    # --cutoffs: lists
    for name, value, expect in (("list", "1,3,5", OK), ("unsorted", "5,1,3", OK), ("duplicates", "3,3", OK),
                                ("commas", ",,,", REFUSED), ("gap", "1,,3", OK), ("one-bad", "1,x,3", REFUSED),
                                ("one-huge", "1,100000000", REFUSED), ("spaces", " 1 , 3 ", OK),
                                ("one-arabic-indic", "1,\u0663", REFUSED), ("one-underscore", "1,1_0", REFUSED),
                                ("plus", "+1,+3", OK)):
        out.append(cli_case(f"options-cutoffs-{name}", "options", expect, *RUN, "--cutoffs", value,
                            where=("--cutoffs",)))
    # metric names
    metrics = {
        "empty": ("", REFUSED, ("--metrics",)), "commas": (",,,", REFUSED, ("--metrics",)),
        "space": (" ", REFUSED, ("--metrics",)),
        "typo": ("rogue", REFUSED, ("rogue", "rouge")), "case-typo": ("rougel", REFUSED, ("rougel", "rougeL")),
        "two-typos": ("rogue,blue,exact_match", REFUSED, ("rogue", "blue")),
        "recall-at-0": ("recall@0", REFUSED, ("recall@0",)), "recall-at-minus-1": ("recall@-1", REFUSED, ("recall@-1",)),
        "recall-at-huge": ("recall@99999999999999999999", REFUSED, ("recall@99999999999999999999",)),
        "recall-at-1e8": ("recall@100000000", REFUSED, ("recall@100000000",)),
        "recall-at-float": ("recall@1.5", REFUSED, ("recall@1.5",)),
        "recall-at-nothing": ("recall@", REFUSED, ("recall@",)), "at-5": ("@5", REFUSED, ("@5",)),
        "recall-at-abc": ("recall@abc", REFUSED, ("recall@abc",)),
        # "\d" took any decimal digit, and recall@٥ scored nothing at all
        "recall-at-arabic-indic": ("recall@\u0665", REFUSED, ("recall@\u0665",)),
        "ndcg-at-full-width": ("ndcg@\uff13", REFUSED, ("ndcg@\uff13",)),
        "recall-at-underscore": ("recall@1_0", REFUSED, ("recall@1_0",)),
        "unknown-at-5": ("nosuch@5", REFUSED, ("nosuch@5",)),
        "recall-at-5": ("recall@5", OK, ()), "ndcg-at-3": ("ndcg@3", OK, ()), "mrr": ("mrr", OK, ()),
        "rougeL": ("rougeL", OK, ()), "padded": (" rouge , bleu ", OK, ()), "duplicate": ("rouge,rouge", OK, ()),
        "default": ("default", OK, ()), "uppercase": ("ROUGE", ANY, ("ROUGE",)),
        "surrogate": ("rouge" + BAD, REFUSED, ("--metrics",)), "nul-like": ("rouge\x01", REFUSED, ("rouge",)),
        "huge-list": (",".join(["rouge"] * 10_000), OK, ()),
    }
    for slug, (value, expect, where) in metrics.items():
        argv = ("run", "{in}", "--out", "{out}", "--metrics", value)
        out.append(cli_case(f"options-metrics-{slug}", "options", expect, *argv, where=where))
    # --map
    maps = {
        "no-equals": (["answer"], REFUSED, ("--map", "answer")), "no-new": (["=answer"], REFUSED, ("--map",)),
        "no-old": (["answer="], REFUSED, ("--map",)), "unknown-new": (["foo=answer"], REFUSED, ("--map", "foo")),
        "typo-new": (["answr=answer"], REFUSED, ("--map", "answr")),
        "old-nowhere": (["answer=nosuch"], REFUSED, ("--map", "nosuch")),
        "identity": (["answer=answer"], OK, ()), "swap": (["answer=question", "question=answer"], OK, ()),
        "twice": (["answer=question", "answer=answer"], ANY, ("--map",)),
        "two-equals": (["answer=a=b"], REFUSED, ("--map", "a=b")),
        "surrogate": (["answer=" + BAD], REFUSED, ("--map",)), "spaces": ([" answer = question "], ANY, ("--map",)),
    }
    for slug, (pairs, expect, where) in maps.items():
        extra = [a for pair in pairs for a in ("--map", pair)]
        out.append(cli_case(f"options-map-{slug}", "options", expect, *RUN, *extra, where=where))
    # --judge-prices, a JSON file
    prices = {
        "not-json": (b"{", REFUSED), "empty": (b"", REFUSED), "a-list": (b"[]", REFUSED),
        "a-number": (b"5", REFUSED), "model-a-number": (b'{"m": 5}', REFUSED),
        "price-text": (b'{"m": {"input_per_1k": "x", "output_per_1k": 1}}', REFUSED),
        "price-negative": (b'{"m": {"input_per_1k": -1, "output_per_1k": 1}}', REFUSED),
        "price-nan": (b'{"m": {"input_per_1k": NaN, "output_per_1k": 1}}', REFUSED),
        "price-missing": (b'{"m": {"input_per_1k": 1}}', ANY),
        "surrogate-model": (b'{"m\\ud800": {"input_per_1k": 1, "output_per_1k": 1}}', REFUSED),
        "good": (b'{"m": {"input_per_1k": 0.1, "output_per_1k": 0.2}}', OK),
    }
    for slug, (content, expect) in prices.items():
        case = cli_case(f"options-judge-prices-{slug}", "options", expect, *RUN, "--judge-prices", "{tmp}/p.json",
                        where=("--judge-prices",))
        out.append(Case(**{**case.__dict__, "files": case.files + (("p.json", content),)}))
    out.append(cli_case("options-judge-prices-missing-file", "options", REFUSED, *RUN, "--judge-prices",
                        "{tmp}/nosuch.json", where=("--judge-prices",)))
    # thresholds
    thresholds = {
        "no-equals": ("--fail-under", "rouge1", REFUSED, ("--fail-under",)),
        "not-a-number": ("--fail-under", "rouge1=abc", REFUSED, ("--fail-under",)),
        "nan": ("--fail-under", "rouge1=nan", REFUSED, ("--fail-under",)),
        "inf": ("--fail-under", "rouge1=inf", REFUSED, ("--fail-under",)),
        "empty": ("--fail-under", "", REFUSED, ("--fail-under",)),
        "no-metric": ("--fail-under", "=0.5", REFUSED, ("--fail-under",)),
        "unknown-metric": ("--fail-under", "nosuch=0.5", REFUSED, ("nosuch",)),
        "typo-metric": ("--fail-under", "rogue1=0.5", REFUSED, ("rogue1",)),
        "metric-not-run": ("--fail-under", "bertscore_f1=0.5", REFUSED, ("bertscore_f1",)),
        "above-one": ("--fail-under", "rouge1=2", ANY, ("rouge1",)),
        "negative": ("--fail-under", "rouge1=-1", ANY, ("rouge1",)),
        "zero": ("--fail-under", "rouge1=0", OK, ()), "missed": ("--fail-under", "rouge1=1", OK, ()),
        "over-on-higher-better": ("--fail-over", "rouge1=0.5", ANY, ("rouge1",)),
        "surrogate": ("--fail-under", "rouge1" + BAD + "=0.5", REFUSED, ("--fail-under",)),
        "min-coverage-2": ("--min-coverage", "2", REFUSED, ("--min-coverage",)),
        "min-coverage-nan": ("--min-coverage", "nan", REFUSED, ("--min-coverage",)),
        "underscore": ("--fail-under", "rouge1=0.2_5", REFUSED, ("--fail-under", "write 0.25")),
        "arabic-indic": ("--fail-under", "rouge1=\u0660.\u0665", REFUSED, ("--fail-under", "write 0.5")),
        "full-width": ("--fail-over", "rouge1=\uff10", REFUSED, ("--fail-over", "write 0")),
        "leading-dot": ("--fail-under", "rouge1=.5", OK, ()), "exponent": ("--fail-under", "rouge1=1e-3", OK, ()),
        "trailing-zero": ("--fail-under", "rouge1=0.50", OK, ()), "plus": ("--fail-under", "rouge1=+0", OK, ()),
        "min-coverage-underscore": ("--min-coverage", "0.5_0", REFUSED, ("--min-coverage", "write 0.50")),
    }
    for slug, (option, value, expect, where) in thresholds.items():
        out.append(cli_case(f"options-threshold-{slug}", "options", expect, *RUN, option, value, where=where))
    # everything else
    misc = {
        "unknown-option": (("--nosuch",), REFUSED, ("--nosuch",)),
        "on-error-bogus": (("--on-error", "bogus"), REFUSED, ("--on-error",)),
        "level-bogus": (("--level", "bogus"), REFUSED, ("--level",)),
        "engine-bogus": (("--engine", "bogus"), REFUSED, ("--engine",)),
        "device-unknown": (("--device", "quantum"), REFUSED, ("--device",)),
        "device-empty": (("--device", ""), REFUSED, ("--device",)),
        "device-cuda-99": (("--device", "cuda:99"), ANY, ("--device",)),
        "bertscore-runtime-bogus": (("--bertscore-runtime", "bogus"), REFUSED, ("--bertscore-runtime",)),
        "bertscore-baseline-missing": (("--bertscore-baseline", "{tmp}/nosuch.tsv"), ANY, ("--bertscore-baseline",)),
        "judge-backend-bogus": (("--judge-backend", "bogus"), REFUSED, ("--judge-backend",)),
        "judge-cache-under-a-file": (("--judge-cache", "{in}/cache"), ANY, ("--judge-cache",)),
        "rubric-criteria-no-equals": (("--rubric-criteria", "clarity"), ANY, ("--rubric-criteria",)),
        "quiet-and-verbose": (("-q", "-v"), OK, ()),
        "option-twice": (("--seed", "1", "--seed", "2"), OK, ()),
        "resume-fresh-folder": (("--resume", "--out", "{tmp}/fresh"), OK, ()),
        "surrogate-judge-model": (("--judge-model", BAD), ANY, ("--judge-model",)),
        "surrogate-device": (("--device", BAD), REFUSED, ("--device",)),
        "surrogate-out": (("--out", "{tmp}/o" + BAD), ANY, ("--out",)),
        # --set FAMILY.KEY=VALUE: the setting's text read by the one parser
        "set-cutoffs-underscore": (("--set", "retrieval.cutoffs=1_0"), REFUSED, ("retrieval.cutoffs", "write 10")),
        "set-cutoffs-arabic-indic": (("--set", "retrieval.cutoffs=1,\u0663"), REFUSED,
                                     ("retrieval.cutoffs", "write 3")),
        "set-level-full-width": (("--set", "retrieval.relevance_level=\uff12"), REFUSED,
                                 ("retrieval.relevance_level", "write 2")),
        "set-level-exponent": (("--set", "retrieval.relevance_level=1e0"), OK, ()),
        "set-cutoffs-plus": (("--set", "retrieval.cutoffs=+1, 05"), OK, ()),
        "seed-plus": (("--seed", "+2"), OK, ()), "workers-padded": (("--workers", " 1 "), OK, ()),
        "judge-seed-minus-one-underscore": (("--judge-seed=-1_0",), REFUSED, ("--judge-seed", "write -10")),
    }
    for slug, (extra, expect, where) in misc.items():
        out.append(cli_case(f"options-{slug}", "options", expect, *RUN, *extra, where=where))
    for slug, argv, expect, where in (
            ("no-subcommand", (), REFUSED, ("usage",)), ("unknown-subcommand", ("runn",), REFUSED, ("runn",)),
            ("run-without-input", ("run",), REFUSED, ("input",)), ("help", ("run", "--help"), OK, ()),
            ("metrics-list", ("metrics",), OK, ()), ("version-flag", ("--version",), ANY, ("--version",))):
        out.append(Case(id=f"options-cli-{slug}", cls="options", expect=expect, where=where,
                        argv=argv, files=()))
    return out


def judge() -> list[Case]:
    """Runs with an LLM judge: the fault server at {judge} answers as an honest judge unless the answer holds a
    FAULT marker (tests/support/fault_server.py)."""
    def rows(marker: str) -> bytes:
        return jsonl(*(line({**r, "answer": f"{r['answer']} {marker}".strip()}) for r in GOOD_ROWS))

    judged = ("run", "{in}", "--out", "{out}", "--metrics", "faithfulness", "--judge-base-url", "{judge}",
              "--judge-model", "test", "--judge-retries", "0", "--no-judge-cache", "--judge-timeout", "5")
    key = "sk-hostile-0123456789abcdef"
    key_env = (("OPENAI_API_KEY", key),)
    table = [
        ("clean", OK, rows(""), (), ()),
        ("all-malformed", "exit:3", rows("FAULTMALFORMED"), (), ()),
        ("all-500", "exit:3", rows("FAULT500"), (), ()),
        ("all-wrong-ids", ANY, rows("FAULTWRONGID"), (), ("faithfulness",)),
        ("all-bad-quotes", OK, rows("FAULTQUOTE"), (), ()),
        ("all-truncated", ANY, rows("FAULTTRUNC"), (), ("faithfulness",)),
        ("echo-key", OK, rows("FAULTECHO"), (), ()),
        ("max-claims-0", REFUSED, rows(""), ("--judge-max-claims", "0"), ("--judge-max-claims",)),
        ("context-budget-0", REFUSED, rows(""), ("--context-token-budget", "0"), ("--context-token-budget",)),
        ("context-budget-negative", REFUSED, rows(""), ("--context-token-budget", "-5"), ("--context-token-budget",)),
        ("prices-malformed-dry-run", REFUSED, rows(""), ("--judge-prices", "{tmp}/in.jsonl", "--dry-run"),
         ("--judge-prices",)),
        ("dry-run", OK, rows(""), ("--dry-run",), ()),
    ]
    out = [Case(id=f"judge-{slug}", cls="judge", expect=expect, where=where, files=(("in.jsonl", content),),
                argv=judged + extra, env=key_env, secrets=(key,), limit=40.0)
           for slug, expect, content, extra, where in table]
    unreachable = ("run", "{in}", "--out", "{out}", "--metrics", "faithfulness", "--judge-model", "test",
                   "--judge-retries", "0", "--judge-timeout", "2", "--judge-base-url")
    for slug, url, where in (("unreachable", "http://127.0.0.1:9/v1", ("127.0.0.1:9",)),
                             ("not-a-url", "not a url", ("not a url",)),
                             ("credentials-in-url", f"http://user:{key}@127.0.0.1:9/v1", ("127.0.0.1:9",)),
                             ("empty-url", "", ("--judge-base-url",))):
        out.append(Case(id=f"judge-{slug}", cls="judge", expect=REFUSED, where=where,
                        files=(("in.jsonl", rows("")),), argv=unreachable + (url,), secrets=(key, f"user:{key}")))
    # the preflight request holds no answer, so it passes; every sample's calls get a 401 that echoes the key
    out.append(Case(id="judge-auth-echo", cls="judge", expect="exit:3", where=(),
                    files=(("in.jsonl", rows("FAULTAUTH")),), argv=judged, env=key_env, secrets=(key,)))
    return out


def cases() -> list[Case]:
    return paths() + options() + judge()


if __name__ == "__main__":
    print(json.dumps([c.id for c in cases()], indent=1))
