"""The layers of docs/architecture.md hold: import-linter's contracts (pyproject.toml) are kept, every
top-level room of registry/ is placed in a layer, and the document names every one of them."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "registry"
DOC = ROOT / "docs" / "architecture.md"


def _top_level_rooms() -> dict[str, str]:
    """registry/'s packages and top-level modules (migrations are history, not a room): dotted name ->
    how the document writes it (``lookup.py``, ``services/``)."""
    rooms = {}
    for path in sorted(REGISTRY.iterdir()):
        if path.suffix == ".py" and path.name != "__init__.py":
            rooms[f"registry.{path.stem}"] = f"{path.name}"
        elif path.is_dir() and (path / "__init__.py").exists() and path.name != "migrations":
            rooms[f"registry.{path.name}"] = f"{path.name}/"
    return rooms


def _contracts() -> list[dict]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["tool"]["importlinter"]["contracts"]


def _layered() -> list[list[str]]:
    (layers,) = [c["layers"] for c in _contracts() if c["type"] == "layers"]
    return [[m.strip() for m in re.split(r"[:|]", layer)] for layer in layers]


def test_architecture_import_contracts_are_kept():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
            "--no-cache",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    kept = re.search(r"Contracts: (\d+) kept, (\d+) broken", result.stdout)
    assert kept is not None, result.stdout
    assert (int(kept[1]), int(kept[2])) == (len(_contracts()), 0)


def test_architecture_every_top_level_room_is_in_exactly_one_layer():
    placed = [module for layer in _layered() for module in layer]
    assert sorted(placed) == sorted(set(placed)), "a module is in two layers"
    assert set(placed) == set(_top_level_rooms()), "pyproject.toml's layers and registry/ differ"


def test_architecture_document_names_every_top_level_room():
    text = DOC.read_text()
    missing = [written for written in _top_level_rooms().values() if f"`{written}`" not in text]
    assert missing == [], f"docs/architecture.md does not name {missing}"


def test_architecture_document_gives_the_layers_in_the_contract_order():
    """The picture's numbered items are the contract's layers, top to bottom, each naming its modules."""
    text = DOC.read_text()
    picture = text[text.index("## The picture") :]
    # A numbered item runs on its indented continuation lines, up to the next item or a blank line.
    lines = re.findall(r"^\d+\. (.*?)(?=^\d+\. |^\s*$)", picture, flags=re.MULTILINE | re.DOTALL)
    rooms = _top_level_rooms()
    layers = _layered()
    assert len(lines) >= len(layers)
    for number, (line, layer) in enumerate(zip(lines[: len(layers)], layers, strict=True), start=1):
        missing = [rooms[module] for module in layer if f"`{rooms[module]}`" not in line]
        assert missing == [], f"item {number} of the picture does not name {missing}"


def test_architecture_engines_contract_sees_django_imports():
    """The forbidden contract is not vacuous: the graph it checks holds the project's imports of Django."""
    import grimp

    graph = grimp.build_graph("registry", include_external_packages=True, cache_dir=None)
    assert "django" in graph.find_modules_directly_imported_by("registry.models")
    (forbidden,) = [c for c in _contracts() if c["type"] == "forbidden"]
    assert "django" in forbidden["forbidden_modules"]
    for engine in ("registry.grammar", "registry.resolving", "registry.logcore", "registry.sandbox"):
        assert engine in forbidden["source_modules"]
        assert not graph.chain_exists(importer=engine, imported="django", as_packages=True)


def test_architecture_no_import_cycle_between_top_level_rooms():
    """Not even inside one layer: the graph of registry/'s packages and top-level modules, drawn
    from every import, has no cycle (a strongly connected set of more than one room)."""
    import grimp

    graph = grimp.build_graph("registry", cache_dir=None)
    rooms = set(_top_level_rooms())

    def room(module: str) -> str | None:
        name = ".".join(module.split(".")[:2])
        return name if name in rooms else None

    arrows: dict[str, set[str]] = {name: set() for name in rooms}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            source, target = room(module), room(imported)
            if source and target and source != target:
                arrows[source].add(target)

    def reaches(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for target in arrows[todo.pop()] - seen:
                seen.add(target)
                todo.append(target)
        return seen

    cycles = sorted(f"{a} -> {b} -> … -> {a}" for a in rooms for b in arrows[a] if a in reaches(b))
    assert cycles == []
