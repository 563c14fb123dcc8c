"""The layers import downwards only: interfaces -> engine -> pipelines -> ledger (the write path) ->
storage and providers -> model. Every import statement of src/memlane counts, including those inside
functions and under ``TYPE_CHECKING``: a type-only import upwards is still a dependency upwards."""

from __future__ import annotations

import ast
from pathlib import Path

import memlane

SRC = Path(memlane.__file__).parent

# A package's layer; it may import its own layer and those below it, never one above.
LAYER = {
    "model": 0,
    "storage": 1,
    "providers": 1,
    "telemetry": 1,  # spans around storage, pipeline and engine work: imports no other layer
    "ledger": 2,
    "formation": 3,
    "retrieval": 3,
    "lifecycle": 3,
    "engine": 4,
    "cli": 5,
    "server": 5,
    "integrations": 5,
    "training": 5,  # offline tools the CLI runs: nothing below them imports them
    "evaluation": 5,
}


def _imported(node: ast.Import | ast.ImportFrom, package: tuple[str, ...]) -> list[str]:
    """The memlane modules (or root names) an import statement in ``package`` names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = list(package[: len(package) - node.level + 1]) if node.level else []
    module = ".".join([*base, *(node.module.split(".") if node.module else [])])
    if module == "memlane":  # `from memlane import X`: a submodule, or a name the root re-exports
        homes: dict[str, str] = getattr(memlane, "_HOMES", {})
        return [
            homes.get(a.name, "memlane.model") if a.name in memlane.__all__ else f"memlane.{a.name}"
            for a in node.names
        ]
    return [module]


def upward_imports(root: Path) -> list[str]:
    """``path:line: layer -> module`` for each import of a layer above the importing file's."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        mine = LAYER.get(parts[0])
        if mine is None:  # the root package's __init__
            continue
        package = ("memlane", *parts[:-1])
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
        for node in sorted(imports, key=lambda n: n.lineno):
            for module in _imported(node, package):
                names = module.split(".")
                theirs = LAYER.get(names[1]) if names[0] == "memlane" and len(names) > 1 else None
                if theirs is not None and theirs > mine:
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {parts[0]} -> {module}")
    return found


def test_no_package_imports_a_layer_above_its_own() -> None:
    assert upward_imports(SRC) == []


def test_every_package_has_a_layer() -> None:
    """A new top-level package must be placed in a layer, or this test could not see it."""
    packages = {p.stem for p in SRC.iterdir() if (p / "__init__.py").exists() or p.suffix == ".py"}
    assert packages - {"__init__"} == set(LAYER)


def test_the_check_finds_upward_imports_of_every_form(tmp_path: Path) -> None:
    (tmp_path / "storage").mkdir()
    (tmp_path / "storage" / "__init__.py").write_text("")
    (tmp_path / "storage" / "fake.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from memlane.model.record import MemoryRecord\n"  # downwards: allowed
        "from memlane.storage.base import Backend\n"  # its own layer: allowed
        "from memlane import Memory\n"
        "if TYPE_CHECKING:\n"
        "    from memlane.ledger.mutations import Mutation\n"
        "def late() -> None:\n"
        "    import memlane.engine.memory\n"
        "from ..formation import pipeline\n"
    )
    assert upward_imports(tmp_path) == [
        "storage/fake.py:4: storage -> memlane.engine",
        "storage/fake.py:6: storage -> memlane.ledger.mutations",
        "storage/fake.py:8: storage -> memlane.engine.memory",
        "storage/fake.py:9: storage -> memlane.formation",
    ]
