"""Cases: mapfiles (issue 34): ``--map-file`` in every format (TOML, JSON, YAML as .yaml and .yml) with alias
bombs, deep nesting, huge keys, values and files, bad bytes, wrong types at every level, unknown fields, Python
tags, duplicate keys, empty files and every kind of path that is not a file; and the same paths that are not files
as ``--qrels``, ``--run``, ``fuse RUN``, ``fuse -o``, ``--from`` (each format), ``report --config``,
``--judge-prices`` and ``validate INPUT`` (points 4, 6 and 12)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, good_jsonl

CLS = "mapfiles"
RUN = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP)
#: a mapping the good rows read through: each field from the column of its own name
GOOD = {"answer": "answer", "question": "question", "contexts": "contexts"}
FORMATS = ("toml", "json", "yaml", "yml")
BIG = "x" * 1_000_000


def _toml_value(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return _json(value)


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def text_of(fmt: str, data: dict) -> str:
    """``data`` (a table of field -> value) written in ``fmt``; YAML as JSON, which YAML reads too, but in block
    style at the top so that each field is on its own line."""
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False)
    if fmt == "toml":
        return "".join(f"{_json(k)} = {_toml_value(v)}\n" for k, v in data.items())
    return "".join(f"{_json(k)}: {_json(v)}\n" for k, v in data.items())


def mapcase(slug: str, expect: str, name: str, content: bytes | None, where=(), setup: str = "",
            limit: float = 10.0, path: str | None = None) -> Case:
    """``genevals run {in} ... --map-file PATH``: PATH is ``{tmp}/name`` (holding ``content``) unless given."""
    files = (("in.jsonl", good_jsonl()),) + (((name, content),) if content is not None else ())
    target = path if path is not None else "{tmp}/" + name
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=tuple(where), files=files,
                argv=RUN + ("--map-file", target), setup=setup, limit=limit)


def _per_format() -> list[Case]:
    """Each problem written in each format."""
    found = []
    for fmt in FORMATS:
        name = f"m.{fmt}"

        def add(slug, expect, content, where=(name,), limit=10.0):
            raw = content if isinstance(content, bytes) else content.encode("utf-8")
            found.append(mapcase(f"{fmt}-{slug}", expect, name, raw, where=where, limit=limit))

        add("good", OK, text_of(fmt, GOOD))
        add("good-with-bom", OK, b"\xef\xbb\xbf" + text_of(fmt, GOOD).encode())
        add("good-context-parts", OK, text_of(fmt, {"answer": "answer", "contexts": {"text": "answer"}}))
        add("empty", REFUSED, "", where=(name, "the file is empty"))
        add("blank", REFUSED, "\n   \n\t\n", where=(name, "the file is empty"))
        add("not-utf8", REFUSED, b"\n" + text_of(fmt, {"answer": "caf\xe9"}).encode("latin-1"), where=(f"{name}:2",))
        add("nul-byte", REFUSED, text_of(fmt, GOOD).encode().replace(b"answer", b"ans\x00wer", 1),
            where=(f"{name}:1", "NUL"))
        add("unknown-field", REFUSED, text_of(fmt, {"answr": "answer"}), where=(name, "answr", "did you mean"))
        add("unknown-context-part", REFUSED, text_of(fmt, {"contexts": {"docid": "url"}}),
            where=(name, "docid", "doc_id"))
        add("value-int", REFUSED, text_of(fmt, {"answer": 5}), where=(name, "'answer'"))
        add("value-float", REFUSED, text_of(fmt, {"answer": 1.5}), where=(name, "'answer'"))
        add("value-bool", REFUSED, text_of(fmt, {"answer": True}), where=(name, "'answer'"))
        add("value-list", REFUSED, text_of(fmt, {"answer": ["a", "b"]}), where=(name, "'answer'"))
        add("value-table", REFUSED, text_of(fmt, {"answer": {"a": "b"}}), where=(name, "'answer'"))
        add("value-empty-string", REFUSED, text_of(fmt, {"answer": ""}), where=(name, "'answer'"))
        add("contexts-a-list", REFUSED, text_of(fmt, {"contexts": ["text", "id"]}), where=(name, "'contexts'"))
        add("context-part-int", REFUSED, text_of(fmt, {"contexts": {"text": 3}}), where=(name, "contexts[].text"))
        add("context-part-table", REFUSED, text_of(fmt, {"contexts": {"text": {"a": "b"}}}),
            where=(name, "contexts[].text"))
        add("whole-and-parts", REFUSED, text_of(fmt, {"contexts[].text": "a", "contexts": "c"}),
            where=(name, "map one or the other"))
        add("huge-value-1mb", REFUSED, text_of(fmt, {"answer": BIG}), where=(name, "bytes"))
        add("huge-key-1mb", REFUSED, text_of(fmt, {BIG: "answer"}), where=(name, "bytes"))
        add("huge-value-60kb", REFUSED, text_of(fmt, {"answer": BIG[:60_000]}), where=(name, "'answer'", "60,000"))
        add("huge-key-900", REFUSED, text_of(fmt, {BIG[:900]: "answer"}), where=(name, "900 characters"))
        add("file-5mb", REFUSED, text_of(fmt, {"answer": "x" * 5_000_000}), where=(name, "bytes"))
        add("many-keys", REFUSED, text_of(fmt, {f"k{i}": "v" for i in range(3_000)}), where=(name, "'k0'"))
        # deeper than the parsers' recursion, within the size bound: refused at the line nesting goes too deep;
        # beyond it (100,000 levels are 200 KB), refused for the size before anything is parsed
        for depth in (33, 20_000, 30_000):
            add(f"deep-lists-{depth}", REFUSED, text_of(fmt, {"answer": 0}).replace("0", "[" * depth + "]" * depth),
                where=(f"{name}:1", "nested"))
        add("deep-lists-100000", REFUSED, text_of(fmt, {"answer": 0}).replace("0", "[" * 100_000 + "]" * 100_000),
            where=(name, "bytes"))
        add("deep-lists-on-line-3", REFUSED, "\n\n" + text_of(fmt, {"answer": 0}).replace("0", "[" * 40 + "]" * 40),
            where=(f"{name}:3", "nested"))
        add("deep-tables-5000", REFUSED, text_of(fmt, {"answer": 0}).replace(
            "0", ("{" + ('"a": ' if fmt != "toml" else "a = ")) * 5_000 + "1" + "}" * 5_000),
            where=(f"{name}:1", "nested"))
        add("deep-tables-100000", REFUSED, text_of(fmt, {"answer": 0}).replace(
            "0", ("{" + ('"a": ' if fmt != "toml" else "a = ")) * 100_000 + "1" + "}" * 100_000),
            where=(name, "bytes"))
        # brackets inside strings do not nest: the file is read, and its column is not in the rows
        add("brackets-in-strings", REFUSED, text_of(fmt, {"answer": "answer", "id": "[" * 200 + "{" * 200}),
            where=(name, "no row has a field"))
    # a key given twice: TOML refuses it itself; JSON and YAML keep the last silently, unless told
    found += [mapcase("json-duplicate-key", REFUSED, "m.json", b'{"answer": "a",\n "answer": "b"}',
                      where=("m.json", "'answer'", "twice")),
              mapcase("yaml-duplicate-key", REFUSED, "m.yaml", b"answer: a\nquestion: q\nanswer: b\n",
                      where=("m.yaml:3", "'answer'", "twice")),
              mapcase("yaml-duplicate-context-part", REFUSED, "m.yaml", b"contexts:\n  text: a\n  text: b\n",
                      where=("m.yaml:3", "'text'")),
              mapcase("toml-duplicate-key", REFUSED, "m.toml", b'answer = "a"\nanswer = "b"\n',
                      where=("m.toml:2",))]
    return found


def _yaml_only() -> list[Case]:
    def laughs(levels: int, key: str = "answer", indent: str = "  ") -> str:
        """A "billion laughs" under ``key``: each level a list of nine aliases of the level before."""
        first = f'{indent}- &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        return f"{key}:\n" + first + "".join(
            f'{indent}- &{chr(98 + i)} [{",".join([f"*{chr(97 + i)}"] * 9)}]\n' for i in range(levels))

    bombs = {
        # nine lists of nine, seven deep: 4.8 million strings, which an error message quoted whole
        "billion-laughs": laughs(7),
        "billion-laughs-8": laughs(8),
        "laughs-small": laughs(5),
        "laughs-in-contexts": "contexts:\n" + laughs(7, "  text", "    "),
        "alias-of-a-column": "answer: &c answer\nquestion: *c\n",
        "alias-as-key": "&k answer: answer\n*k : question\n",
        "merge-key": "answer: answer\nbase: &b {question: question}\n<<: *b\n",
    }
    found = [mapcase(f"yaml-alias-{slug}", REFUSED, "m.yaml", text.encode(), where=("m.yaml:", "YAML alias (*"))
             for slug, text in bombs.items()]
    found += [mapcase("yaml-alias-undefined-alias", REFUSED, "m.yaml", b"answer: *nowhere\n",
                      where=("m.yaml:1", "YAML alias (*nowhere)")),
              mapcase("yaml-alias-self-alias-mapping", REFUSED, "m.yaml", b"&a {answer: *a}\n",
                      where=("m.yaml:1", "YAML alias (*a)")),
              mapcase("yaml-anchor-without-alias", OK, "m.yaml", b"answer: &c answer\n")]
    tags = {
        "python-object-apply": "answer: !!python/object/apply:os.system ['touch {tmp}/pwned']\n",
        "python-name": "answer: !!python/name:os.system\n",
        "python-module": "answer: !!python/module:os\n",
        "python-object-new": "answer: !!python/object/new:subprocess.Popen [[touch, pwned]]\n",
        "python-tuple": "answer: !!python/tuple [a, b]\n",
        "local-tag": "answer: !custom answer\n",
        "binary": "answer: !!binary aGVsbG8=\n",
        "set": "answer: !!set {a, b}\n",
        "timestamp": "answer: 2001-12-14t21:59:43.10-05:00\n",
        "top-level-tag": "!!python/object:os.system {}\n",
    }
    found += [mapcase(f"yaml-tag-{slug}", REFUSED, "m.yaml", text.encode(), where=("m.yaml",))
              for slug, text in tags.items()]
    others = {
        "two-documents": ("answer: answer\n---\nquestion: question\n", ("m.yaml:", "single document")),
        "top-level-list": ("- answer\n- question\n", ("m.yaml", "a list")),
        "top-level-text": ("answer\n", ("m.yaml", "got text")),
        "top-level-number": ("42\n", ("m.yaml", "got int")),
        "only-a-comment": ("# nothing here\n", ("m.yaml", "nothing")),
        "null-value": ("answer: ~\n", ("m.yaml", "'answer'")),
        "yes-is-a-bool": ("answer: yes\n", ("m.yaml", "'answer'")),
        "bool-key": ("yes: answer\n", ("m.yaml", "True")),
        "null-key": ("~: answer\n", ("m.yaml", "None")),
        "list-key": ("? [a, b]\n: answer\n", ("m.yaml",)),
        "tab-indent": ("contexts:\n\ttext: a\n", ("m.yaml:2",)),
        "unclosed-flow": ("answer: [answer\n", ("m.yaml", "malformed YAML")),
        "escape-in-key": ('"\\e[31mred": answer\n', ("m.yaml", "\\x1b")),
        "deep-block-200": ("".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "v\n",
                           ("m.yaml:32", "nested")),
        "deep-block-20000": ("".join("  " * i + f"k{i}:\n" for i in range(20_000)), ("m.yaml", "bytes")),
    }
    found += [mapcase(f"yaml-{slug}", REFUSED, "m.yaml", text.encode(), where=where)
              for slug, (text, where) in others.items()]
    return found


def _json_toml_only() -> list[Case]:
    cases = {
        "json-top-level-list": ("m.json", '["answer"]', ("m.json", "a list")),
        "json-top-level-null": ("m.json", "null", ("m.json", "nothing")),
        "json-trailing-comma": ("m.json", '{"answer": "answer",}', ("m.json:1", "malformed JSON")),
        "json-nan-value": ("m.json", '{"answer": NaN}', ("m.json", "'answer'")),
        "json-huge-number": ("m.json", '{"answer": ' + "9" * 5000 + "}", ("m.json",)),
        "json-lone-surrogate-key": ("m.json", '{"\\ud800": "answer"}', ("m.json",)),
        "json-two-documents": ("m.json", '{"answer": "answer"}\n{"question": "q"}', ("m.json:2",)),
        "toml-table-header-typo": ("m.toml", '[contxts]\ntext = "a"\n', ("m.toml", "contxts")),
        "toml-array-of-tables": ("m.toml", '[[contexts]]\ntext = "a"\n', ("m.toml", "'contexts'")),
        "toml-date": ("m.toml", "answer = 1979-05-27\n", ("m.toml", "'answer'")),
        "toml-unclosed-string": ("m.toml", 'answer = "answer\n', ("m.toml:1", "malformed TOML")),
        "toml-deep-subtables": ("m.toml", "[" + ".".join(["a"] * 5000) + "]\n", ("m.toml",)),
    }
    return [mapcase(slug, REFUSED, name, text.encode(), where=where, limit=15.0)
            for slug, (name, text, where) in cases.items()]


def _map_option() -> list[Case]:
    """``--map NEW=OLD`` on the command line: the same language, the same bounded messages."""
    def case(slug, expect, value, where=("--map",)):
        return Case(id=f"{CLS}-map-{slug}", cls=CLS, expect=expect, where=tuple(where),
                    files=(("in.jsonl", good_jsonl()),), argv=RUN + ("--map", value), limit=10.0)

    return [case("huge-column-100kb", REFUSED, "answer=" + BIG[:100_000], ("--map", "100,000 characters")),
            case("huge-field-100kb", REFUSED, BIG[:100_000] + "=answer", ("--map", "100,000 characters")),
            case("no-equals-100kb", REFUSED, BIG[:100_000], ("--map", "NEW=OLD", "100,000 characters")),
            case("escape-in-column", REFUSED, "answer=\x1b[2Jgone", ("--map", "\\x1b")),
            case("missing-column-long", REFUSED, "answer=" + "y" * 900, ("--map", "no row has a field"))]


def _paths() -> list[Case]:
    """--map-file paths that are not files."""
    special = [
        ("folder", "{tmp}/dir.yaml", ("dir.yaml", "directory")),
        ("fifo-yaml", "{tmp}/fifo.yaml", ("fifo.yaml", "pipe")),
        ("fifo-json", "{tmp}/fifo.json", ("fifo.json", "pipe")),
        ("fifo-toml", "{tmp}/fifo.toml", ("fifo.toml", "pipe")),
        ("dev-zero", "/dev/zero", ("/dev/zero", "device")),
        ("dev-urandom", "/dev/urandom", ("/dev/urandom", "device")),
        ("dev-null", "/dev/null", ("/dev/null", "device")),
        ("dev-stdin", "/dev/stdin", ("/dev/stdin",)),
        ("proc-self-environ", "/proc/self/environ", ("/proc/self/environ", "/proc")),
        ("link-to-proc-environ", "{tmp}/env.yaml", ("env.yaml", "/proc")),
        ("link-to-dev-zero", "{tmp}/zero.json", ("zero.json", "device")),
        ("symlink-loop", "{tmp}/loop-a.yaml", ("loop-a.yaml", "loop of symbolic links")),
        ("dangling-symlink", "{tmp}/dangling.toml", ("dangling.toml", "does not exist")),
        ("missing", "{tmp}/nosuch.yaml", ("nosuch.yaml", "not found")),
        ("empty-path", "", ("--map-file",)),
        ("under-a-file", "{tmp}/in.jsonl/m.yaml", ("m.yaml",)),
        ("unknown-suffix", "{tmp}/in.jsonl", ("in.jsonl", "unknown mapping file type")),
    ]
    found = [mapcase(f"path-{slug}", REFUSED, "", None, where=where, setup="mapfiles_specials", path=path)
             for slug, path, where in special]
    found.append(mapcase("path-unreadable", ANY, "locked.yaml", b"answer: answer\n", where=("locked.yaml",),
                         setup="mapfiles_specials"))  # root reads through the permission bits
    found.append(mapcase("path-symlink-to-good", OK, "", None, setup="mapfiles_specials", path="{tmp}/link.yaml"))
    return found


QRELS = b"q1 0 c1 1\nq2 0 c3 1\n"
TREC_RUN = b"q1 Q0 c1 1 0.9 t\nq1 Q0 c2 2 0.5 t\nq2 Q0 c3 1 0.8 t\n"
TRACE = {"openinference": "fifo.json", "langfuse": "fifo.json", "langsmith": "fifo.jsonl"}


def _other_options() -> list[Case]:
    """Point 6: the same paths that are not files, for every other option genevals reads a file from (or, for
    ``fuse -o``, writes one to)."""
    files = (("in.jsonl", good_jsonl()), ("good.qrels", QRELS), ("good.trec", TREC_RUN))

    def case(slug, expect, argv, where=(), limit=10.0):
        return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=tuple(where), files=files, argv=tuple(argv),
                    setup="mapfiles_specials", limit=limit)

    trec = ("run", "--out", "{out}")
    TWO = ("{tmp}/good.trec", "{tmp}/good.trec")
    found = [case("trec-good", OK, trec + ("--qrels", "{tmp}/good.qrels", "--run", "{tmp}/good.trec"))]
    for slug, path, where in (("fifo", "{tmp}/fifo.trec", ("fifo.trec", "pipe")),
                              ("dev-zero", "/dev/zero", ("/dev/zero", "device")),
                              ("dev-urandom", "/dev/urandom", ("/dev/urandom", "device")),
                              ("folder", "{tmp}/dir.yaml", ("dir.yaml", "directory")),
                              ("proc-environ", "{tmp}/env.yaml", ("env.yaml", "/proc")),
                              ("symlink-loop", "{tmp}/loop-a.yaml", ("loop-a.yaml", "loop of symbolic links"))):
        found += [
            case(f"qrels-{slug}", REFUSED, trec + ("--qrels", path, "--run", "{tmp}/good.trec"), where + ("--qrels",)),
            case(f"run-{slug}", REFUSED, trec + ("--qrels", "{tmp}/good.qrels", "--run", path), where + ("--run",)),
            case(f"fuse-run-{slug}", REFUSED, ("fuse", "{tmp}/good.trec", path, "-o", "{tmp}/fused.trec"), where),
        ]
    found += [
        case("fuse-run-fifo-jsonl", REFUSED, ("fuse", "{tmp}/fifo.jsonl", "{tmp}/good.trec", "-o", "{tmp}/f.trec"),
             ("fifo.jsonl", "pipe")),
        case("fuse-good", OK, ("fuse", "{tmp}/good.trec", "{tmp}/good.trec", "-o", "{tmp}/fused.trec")),
        case("fuse-out-fifo", REFUSED, ("fuse", "{tmp}/good.trec", "{tmp}/good.trec", "-o", "{tmp}/fifo-out.trec"),
             ("-o {tmp}/fifo-out.trec", "pipe")),
        case("fuse-out-fifo-jsonl", REFUSED, ("fuse", "{tmp}/good.trec", "{tmp}/good.trec", "-o", "{tmp}/fifo.jsonl"),
             ("-o {tmp}/fifo.jsonl", "pipe")),
        case("fuse-out-dev-null", REFUSED, ("fuse", *TWO, "--to-trec", "-o", "/dev/null"),
             ("-o /dev/null", "device")),
        case("fuse-out-dev-full", REFUSED, ("fuse", *TWO, "--to-trec", "-o", "/dev/full"),
             ("/dev/full",)),
        case("fuse-out-under-dev", REFUSED, ("fuse", *TWO, "-o", "/dev/genevals-fused.trec"),
             ("-o /dev/genevals-fused.trec", "under /dev")),
        case("fuse-out-proc", REFUSED, ("fuse", *TWO, "-o", "/proc/self/fused.trec"),
             ("/proc/self/fused.trec",)),
        case("fuse-out-folder", REFUSED, ("fuse", *TWO, "-o", "{tmp}/dir.trec"), ("dir.trec",)),
        case("fuse-out-symlink-loop", REFUSED, ("fuse", *TWO, "-o", "{tmp}/loop-a.trec"),
             ("loop-a.trec",)),
        case("config-fifo", REFUSED, ("report", "{out}", "--config", "{tmp}/fifo.json"), ("--config", "fifo.json")),
        case("config-dev-zero", REFUSED, ("report", "{out}", "--config", "/dev/zero"), ("--config", "/dev/zero")),
        case("validate-fifo", REFUSED, ("validate", "{tmp}/fifo.jsonl", "-o", "{tmp}/v"), ("fifo.jsonl", "pipe")),
        case("validate-dev-zero", REFUSED, ("validate", "/dev/zero", "-o", "{tmp}/v"), ("/dev/zero", "device")),
        case("judge-prices-fifo", REFUSED, RUN + ("--judge-prices", "{tmp}/fifo.json"),
             ("--judge-prices", "fifo.json")),
        case("judge-prices-dev-urandom", REFUSED, RUN + ("--judge-prices", "/dev/urandom"),
             ("--judge-prices", "/dev/urandom")),
    ]
    for fmt, fifo in TRACE.items():
        for slug, path, where in (("fifo", "{tmp}/" + fifo, (fifo, "pipe")),
                                  ("dev-zero", "/dev/zero", ("/dev/zero", "device")),
                                  ("dev-urandom", "/dev/urandom", ("/dev/urandom", "device")),
                                  ("folder", "{tmp}/dir.yaml", ("dir.yaml", "directory")),
                                  ("proc-environ", "{tmp}/env.yaml", ("env.yaml", "/proc"))):
            found.append(case(f"from-{fmt}-{slug}", REFUSED, ("run", path, "--from", fmt, "--out", "{out}",
                                                              "--metrics", CHEAP), where + (f"--from {fmt}",)))
    return found


def cases() -> list[Case]:
    return [*_per_format(), *_yaml_only(), *_json_toml_only(), *_map_option(), *_paths(), *_other_options()]


def mapfiles_specials(folder: Path, out: Path, inp: Path) -> None:
    """The paths that are not files, beside the case's own files."""
    for name in ("fifo.yaml", "fifo.json", "fifo.toml", "fifo.trec", "fifo.jsonl", "fifo-out.trec"):
        os.mkfifo(folder / name)
    (folder / "dir.yaml").mkdir()
    (folder / "dir.trec").mkdir()
    os.symlink("/proc/self/environ", folder / "env.yaml")
    os.symlink("/dev/zero", folder / "zero.json")
    for suffix in ("yaml", "trec"):
        os.symlink(folder / f"loop-b.{suffix}", folder / f"loop-a.{suffix}")
        os.symlink(folder / f"loop-a.{suffix}", folder / f"loop-b.{suffix}")
    os.symlink(folder / "nowhere.toml", folder / "dangling.toml")
    (folder / "good.yaml").write_text("answer: answer\nquestion: question\n")
    os.symlink(folder / "good.yaml", folder / "link.yaml")
    if (folder / "locked.yaml").exists():
        (folder / "locked.yaml").chmod(0)


SETUPS = {"mapfiles_specials": mapfiles_specials}
