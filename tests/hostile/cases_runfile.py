"""Cases: runfile (issue 36): ``genevals run -c FILE`` with files that are not TOML, not UTF-8, empty, huge, nested
too deeply; unknown keys, keys set twice, a literal API key; a value of the wrong type for every kind of option
(switches, whole numbers, numbers, choices, texts, lists, thresholds); bad ``[options.*]``, ``[judge]`` and
``[profiles.*]`` tables; the run file found without ``-c`` (``genevals.toml``, ``[tool.genevals]``); and every kind
of path that is not a file as ``-c``."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from hostile.cases import CHEAP, OK, REFUSED, Case, good_jsonl

CLS = "runfile"
RUN = ("run", "{in}", "--out", "{out}")
NAME = "g.toml"


def filecase(slug: str, expect: str, content: bytes | str, where=(), extra=(), name: str = NAME, config: bool = True,
             setup: str = "", secrets=(), env=()) -> Case:
    """``genevals run {in} --out {out} -c {tmp}/NAME EXTRA`` with ``content`` in NAME (without -c: found)."""
    raw = content if isinstance(content, bytes) else content.encode("utf-8")
    argv = RUN + (("-c", "{tmp}/" + name) if config else ()) + tuple(extra)
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=tuple(where),
                files=(("in.jsonl", good_jsonl()), (name, raw)), argv=argv, setup=setup, limit=15.0,
                secrets=tuple(secrets), env=tuple(env))


GOOD = f'metrics = "{CHEAP}"\nseed = 3\nquiet = true\nno-history = true\n'

#: switches: a string and a number are not true or false
SWITCHES = ("strict", "resume", "quiet", "verbose", "all-outputs", "stem", "bertscore-idf", "bertscore-rescale",
            "no-judge-cache", "dry-run", "no-preflight", "no-history", "judge-fixed-concurrency",
            "rubric-only-custom", "show-mapping")
#: whole numbers: a string and a fraction are not
WHOLE = ("workers", "seed", "ray-judge-actors", "bertscore-layer", "batch-size", "judge-concurrency",
         "judge-retries", "judge-seed", "judge-max-tokens", "judge-n-ctx", "context-token-budget", "judge-max-claims")
#: a value outside the option's choices
CHOICES = {"on-error": "ignore", "engine": "spark", "token-norm": "nfc", "level": "page",
           "bertscore-runtime": "tf", "judge-worked-example": "maybe", "bleu-tokenize": "nope",
           "judge-backend": "nope"}


def _types() -> list[Case]:
    found = []
    for key in SWITCHES:
        found.append(filecase(f"switch-string-{key}", REFUSED, f'{key} = "yes"\n', (f"{NAME}:1", key, "true or false")))
        found.append(filecase(f"switch-number-{key}", REFUSED, f"{key} = 1\n", (f"{NAME}:1", key, "true or false")))
    for key in WHOLE:
        found.append(filecase(f"whole-string-{key}", REFUSED, f'{key} = "2"\n', (f"{NAME}:1", key, "a whole number")))
        found.append(filecase(f"whole-fraction-{key}", REFUSED, f"{key} = 2.5\n", (f"{NAME}:1", key, "a whole number")))
    for key, value in CHOICES.items():
        found.append(filecase(f"choice-{key}", REFUSED, f'{key} = "{value}"\n', (f"{NAME}:1", key, value)))
    for key in ("judge-timeout", "judge-temperature"):
        found.append(filecase(f"number-string-{key}", REFUSED, f'{key} = "x"\n', (f"{NAME}:1", key, "a number")))
    found += [
        filecase("text-number-language", REFUSED, "language = 3\n", (f"{NAME}:1", "language", "a string")),
        filecase("text-bool-out", REFUSED, "out_dir = true\n", (f"{NAME}:1", "out_dir", "a string")),
        filecase("text-list-map-file", REFUSED, "map-file = [1]\n", (f"{NAME}:1", "map-file")),
        filecase("text-table-history", REFUSED, "history = {a = 1}\n", (f"{NAME}:1", "history")),
        filecase("share-above-one", REFUSED, "min-coverage = 2\n", (f"{NAME}:1", "min-coverage")),
        filecase("share-nan", REFUSED, "min-coverage = nan\n", (f"{NAME}:1", "min-coverage")),
        filecase("fraction-negative", REFUSED, "max-judge-errors = -1\n", (f"{NAME}:1", "max-judge-errors")),
        filecase("cutoffs-words", REFUSED, 'cutoffs = "a,b"\n', (f"{NAME}:1", "cutoffs", "whole numbers")),
        filecase("cutoffs-zero", REFUSED, "cutoffs = [0]\n", ("cutoffs", "from 1")),
        filecase("workers-zero", REFUSED, "workers = 0\n", (f"{NAME}:1", "workers", "from 1 to 256")),
        filecase("seed-huge", REFUSED, "seed = 99999999999999999999999\n", (f"{NAME}:1", "seed", "a larger number")),
        filecase("threshold-nonsense", REFUSED, 'fail-under = ["nonsense"]\n', (f"{NAME}:1", "fail-under")),
        filecase("threshold-out-of-range", REFUSED, "fail-under = {rougeL = 5}\n", ("rougeL",)),
        filecase("metrics-number", REFUSED, "metrics = 3\n", (f"{NAME}:1", "metrics")),
        filecase("metrics-unknown", REFUSED, 'metrics = ["rogue"]\n', ("rogue",)),
        filecase("column-map-table", OK, GOOD + 'column_map = {answer = "answer"}\n'),
        filecase("column-map-unknown-field", REFUSED, GOOD + 'column_map = {answr = "answer"}\n', ("answr",)),
    ]
    return found


def _files() -> list[Case]:
    deep = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"
    return [
        filecase("good", OK, GOOD),
        filecase("good-with-bom", OK, b"\xef\xbb\xbf" + GOOD.encode()),
        filecase("good-profile", OK, GOOD + '[profiles.nightly]\nmetrics = "rouge"\n', extra=("--profile", "nightly")),
        filecase("good-empty", OK, ""),
        filecase("good-found-in-folder", OK, GOOD, name="genevals.toml", config=False),
        filecase("good-pyproject", OK, "[project]\nname = 'x'\n[tool.genevals]\n" + GOOD, name="pyproject.toml",
                 config=False),
        filecase("pyproject-not-toml", REFUSED, "[tool.genevals\n", ("pyproject.toml", "--no-config"),
                 name="pyproject.toml", config=False),
        filecase("pyproject-genevals-not-table", REFUSED, "[tool]\ngenevals = 3\n", ("pyproject.toml", "tool.genevals"),
                 name="pyproject.toml", config=False),
        filecase("pyproject-without-table", OK, "[project]\nname = 'x'\n", name="pyproject.toml", config=False),
        filecase("not-toml", REFUSED, 'seed = 3\nworkers = \n', (NAME, "line 2")),
        filecase("not-utf8", REFUSED, b'language = "caf\xe9"\n', (NAME, "UTF-8")),
        filecase("nul-byte", REFUSED, b"seed = 3\x00\n", (NAME,)),
        filecase("nested-too-deep", REFUSED, deep, (NAME,)),
        filecase("huge", REFUSED, "# " + "x" * 2_000_000 + "\n", (NAME, "too large")),
        filecase("huge-key", REFUSED, "k" * 1_000_000 + " = 1\n", (NAME, "unknown key")),
        filecase("unknown-key", REFUSED, "wrokers = 2\n", (f"{NAME}:1", "wrokers", "did you mean 'workers'")),
        filecase("set-twice", REFUSED, 'out_dir = "a"\nout = "b"\n', (NAME, "out_dir", "out")),
        filecase("api-only-argument", REFUSED, "keep_samples = false\n", (f"{NAME}:1", "keep_samples")),
        filecase("literal-api-key", REFUSED, '[judge]\napi_key = "sk-hostile-runfile-1"\n',
                 (f"{NAME}:2", "api_key_env")),  # the file holds the key by construction: no secrets= check
        filecase("literal-api-key-top", REFUSED, 'api_key = "sk-hostile-runfile-2"\n', (f"{NAME}:1", "api_key")),
        filecase("api-key-env-unset", REFUSED, '[judge]\napi_key_env = "GENEVALS_HOSTILE_UNSET"\n',
                 ("GENEVALS_HOSTILE_UNSET",)),
        filecase("api-key-env-set", OK, GOOD + '[judge]\napi_key_env = "GENEVALS_HOSTILE_KEY"\n',
                 env=(("GENEVALS_HOSTILE_KEY", "sk-hostile-runfile-3"),), secrets=("sk-hostile-runfile-3",)),
        filecase("api-key-env-number", REFUSED, "[judge]\napi_key_env = 3\n", (f"{NAME}:2", "api_key_env")),
        filecase("judge-not-table", REFUSED, "judge = 3\n", (f"{NAME}:1", "judge")),
        filecase("judge-unknown", REFUSED, '[judge]\nmodle = "x"\n', (f"{NAME}:2", "modle", "model")),
        filecase("judge-bad-value", REFUSED, "[judge]\nconcurrency = 0\n", (f"{NAME}:2", "concurrency")),
        filecase("judge-wrong-type", REFUSED, '[judge]\ntimeout = "soon"\n', (NAME, "timeout")),
        filecase("options-not-table", REFUSED, "options = 3\n", (f"{NAME}:1", "options")),
        filecase("options-family-not-table", REFUSED, "[options]\nrouge = 3\n", (f"{NAME}:2", "options.rouge")),
        filecase("options-unknown-family", REFUSED, "[options.rogue]\nuse_stemmer = true\n",
                 (f"{NAME}:1", "rogue", "rouge")),
        filecase("options-unknown-setting", REFUSED, "[options.rouge]\nuse_stemer = true\n",
                 (f"{NAME}:2", "use_stemer", "use_stemmer")),
        filecase("profile-missing", REFUSED, "[profiles.nightly]\nseed = 1\n", ("nighty", "nightly"),
                 extra=("--profile", "nighty")),
        filecase("profile-not-table", REFUSED, "[profiles]\nnightly = 3\n", ("profiles.nightly",),
                 extra=("--profile", "nightly")),
        filecase("profiles-not-table", REFUSED, 'profiles = "x"\n', (f"{NAME}:1", "profiles")),
        filecase("profile-bad-value", REFUSED, "[profiles.nightly]\nworkers = \"x\"\n", (f"{NAME}:2", "workers"),
                 extra=("--profile", "nightly")),
        filecase("profile-without-file", REFUSED, GOOD, ("--profile",), config=False, name="other.toml",
                 extra=("--profile", "nightly")),
        filecase("data-is-a-folder", REFUSED, 'data = "."\n', ("directory",), extra=()),
    ]


def _paths() -> list[Case]:
    """-c PATH for each kind of path that is not a file (made by :func:`runfile_specials`)."""
    found = []
    for slug, path, said in (("dir", "{tmp}/dir.toml", "directory"), ("fifo", "{tmp}/fifo.toml", "FIFO"),
                             ("dev-zero", "/dev/zero", "/dev/zero"), ("proc", "/proc/self/environ", "/proc"),
                             ("dangling", "{tmp}/dangling.toml", "does not exist"),
                             ("loop", "{tmp}/loop-a.toml", "loop"), ("missing", "{tmp}/nothing.toml", "not found"),
                             ("empty-path", "", "empty")):
        found.append(Case(id=f"{CLS}-path-{slug}", cls=CLS, expect=REFUSED, where=(said,),
                          files=(("in.jsonl", good_jsonl()),), argv=RUN + ("-c", path), setup="runfile_specials",
                          limit=15.0))
    return found


def cases() -> list[Case]:
    found = [*_types(), *_files(), *_paths()]
    # "data-is-a-folder" gives its input from the file: -c without the command line's INPUT
    return [replace(c, argv=("run", "--out", "{out}", "-c", "{tmp}/" + NAME))
            if c.id == f"{CLS}-data-is-a-folder" else c for c in found]


def runfile_specials(folder: Path, out: Path, inp: Path) -> None:
    os.mkfifo(folder / "fifo.toml")
    (folder / "dir.toml").mkdir()
    os.symlink(folder / "nowhere.toml", folder / "dangling.toml")
    os.symlink(folder / "loop-b.toml", folder / "loop-a.toml")
    os.symlink(folder / "loop-a.toml", folder / "loop-b.toml")


SETUPS = {"runfile_specials": runfile_specials}
