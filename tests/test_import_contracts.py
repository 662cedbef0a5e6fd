"""Every room of the package (each module and package directly under genevals/) is named in an import contract
of pyproject.toml, and every module a contract names exists: a new room gets its rules when it is made, and a
room that moves takes its rules along (lint-imports checks the rules; this checks that nothing escapes them)."""
import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "genevals"
#: rooms a branch may name before it has them: a layer written "(genevals.NAME)" is optional to import-linter
_OPTIONAL = re.compile(r"^\((.+)\)$")


def rooms() -> set[str]:
    """The names of the modules and packages directly under genevals/ (its own __init__ and __main__ aside)."""
    found = set()
    for path in PACKAGE.iterdir():
        if path.is_dir() and (path / "__init__.py").is_file():
            found.add(path.name)
        elif path.suffix == ".py" and not path.name.startswith("__"):
            found.add(path.stem)
    return found


def contracts() -> list[dict]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def named(contract: dict) -> list[tuple[str, bool]]:
    """(module, optional) for each module the contract names: sources, forbidden modules, independent modules and
    layers (within each container). The acyclic contract's ancestor, the whole package, names no room."""
    out = [(m, False) for key in ("source_modules", "forbidden_modules", "modules") for m in contract.get(key, ())]
    for layer in contract.get("layers", ()):
        for part in re.split(r"[|:]", layer):
            part = part.strip()
            optional = _OPTIONAL.match(part)
            name = optional.group(1) if optional else part
            for container in contract.get("containers") or [""]:
                out.append((f"{container}.{name}" if container else name, bool(optional)))
    return out


def exists(module: str) -> bool:
    path = REPO.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_every_room_is_named_in_a_contract():
    named_rooms = {module.split(".")[1] for contract in contracts() for module, _ in named(contract)
                   if module.startswith("genevals.")}
    assert not rooms() - named_rooms, f"rooms in no import contract: {sorted(rooms() - named_rooms)}"


def test_every_module_a_contract_names_exists():
    missing = sorted({module for contract in contracts() for module, optional in named(contract)
                      if not optional and not exists(module)})
    assert not missing, f"import contracts name modules that do not exist: {missing}"


def test_the_lifecycle_and_the_plugin_surface_have_their_rules():
    everything = {module for contract in contracts() for module, _ in named(contract)}
    assert {"genevals.lifecycle", "genevals.plugin"} <= everything
