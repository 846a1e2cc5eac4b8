"""The layout shows the architecture: what the product runs never imports what only the simulator uses."""

from __future__ import annotations

import ast
from pathlib import Path

SCHEDULER = Path(__file__).resolve().parents[2] / "scheduler"


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports (absolute names)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_product_scheduler_never_imports_the_simulator() -> None:
    product = sorted([*SCHEDULER.glob("*.py"), *(SCHEDULER / "engines").glob("*.py")])
    offenders = {
        str(path.relative_to(SCHEDULER.parent)): sorted(
            name for name in imported_modules(path) if "scheduler.sim" in name
        )
        for path in product
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_app_reaches_the_simulator_only_from_its_command_line_and_benchmarks() -> None:
    app = SCHEDULER.parent / "app"
    offenders = sorted(
        str(path.relative_to(app.parent))
        for path in app.rglob("*.py")
        if path.parent.name not in {"cli", "bench"} and any("scheduler.sim" in name for name in imported_modules(path))
    )
    assert offenders == []
