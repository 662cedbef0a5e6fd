"""CONTRIBUTING.md's layout map lists every room of the package (each module and folder directly under
genevals/) and no room that does not exist, so the map a contributor reads is the tree they open."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: rooms the map may list before this branch has them (the lead's lifecycle change creates genevals/lifecycle/);
#: once one exists it is checked like any other
_COMING = {"lifecycle/"}
_ROOM = re.compile(r"^  ([A-Za-z_][\w]*(?:\.py|/))(?: |$)")


def listed() -> list[str]:
    """The rooms the map lists: the first word of each line indented by two spaces below ``genevals/``, up to the
    next top-level line of the block."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    layout = text[text.index("\n## Layout\n"):]
    lines = layout[layout.index("\ngenevals/\n") + len("\ngenevals/\n"):].splitlines()
    out = []
    for line in lines:
        if line and not line.startswith(" "):
            break
        match = _ROOM.match(line)
        if match:
            out.append(match.group(1))
    return out


def present() -> set[str]:
    """Every module and folder directly under genevals/, but the package's own __init__ and __main__."""
    return {f"{p.name}/" if p.is_dir() else p.name for p in (REPO / "genevals").iterdir()
            if not p.name.startswith((".", "__"))}


def test_the_map_lists_every_room():
    assert not present() - set(listed()), f"rooms the layout map does not list: {sorted(present() - set(listed()))}"


def test_the_map_lists_no_room_that_does_not_exist():
    gone = set(listed()) - present() - _COMING
    assert not gone, f"the layout map lists rooms that do not exist: {sorted(gone)}"


def test_the_map_lists_each_room_once():
    rooms = listed()
    assert len(rooms) == len(set(rooms)), sorted(r for r in rooms if rooms.count(r) > 1)
