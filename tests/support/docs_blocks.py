"""The documentation's pages and their fenced code blocks, as the docs tests read them.

The rule (CONTRIBUTING.md, "Code blocks in the docs"): a block's info string is its language and, optionally,
one class in braces. ``{.skip}``: not run, because it needs what a test machine does not have (a judge server,
a cluster, your own data, an install); ``{.own-test}``: run by a test of its own in tests/docs/ (it needs a
server, a file layout or pytest); no class: run by tests/docs/test_examples.py (``bash``: every command is a
``genevals`` command, run in a real process; ``python``: run in a real process). ``text`` blocks are output and
``toml``/``json`` data: shown, not run."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SHOWN = {"text", "toml", "json"}  # output and data, never run
CLASSES = {"", "skip", "own-test"}

_FENCE = re.compile(r"^( *)```([^\n`]*)\n(.*?)^\1```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    mark: str  # "", "skip" or "own-test"
    code: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def pages() -> list[Path]:
    """Every page a user or contributor reads: README.md, CONTRIBUTING.md and the site's pages."""
    return [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted(DOCS.rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for m in _FENCE.finditer(text):
        info = m.group(2).strip()
        lang, _, rest = info.partition(" ")
        mark = re.fullmatch(r"\{\.([\w-]+)\}", rest.strip())
        indent = len(m.group(1))
        code = "\n".join(line[indent:] for line in m.group(3).splitlines())
        found.append(Block(page, text.count("\n", 0, m.start()) + 1, lang,
                           mark.group(1) if mark else rest.strip(), code))
    return found


def section(page: Path, heading: str) -> str:
    """The text under the heading that starts with ``heading``, up to the next heading of its level or above
    (a ``#`` line inside a code block is code, not a heading)."""
    lines, fence, start, level = page.read_text(encoding="utf-8").splitlines(keepends=True), False, None, 0
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^(#+) (.*)$", line)
        if m and start is None and m.group(2).startswith(heading):
            start, level = i + 1, len(m.group(1))
        elif m and start is not None and len(m.group(1)) <= level:
            return "".join(lines[start:i])
    assert start is not None, f"{page.name}: no heading {heading!r}"
    return "".join(lines[start:])


def section_blocks(page: Path, heading: str, lang: str) -> list[str]:
    return [m.group(3) for m in _FENCE.finditer(section(page, heading)) if m.group(2).split(" ")[0] == lang]


def commands(code: str) -> list[list[str]]:
    """The commands of a shell block, each split as the shell would (comments dropped, continuations joined)."""
    return [words for line in code.replace("\\\n", " ").splitlines()
            if (words := shlex.split(line.removeprefix("$ "), comments=True))]
