"""`triage-dispatch bench hardening`: the hardening reproductions against a real `serve`, each with its target."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

_out = Console()
if not _out.is_terminal:
    _out.width = 160


def bench_hardening(
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Start a redis-server and `serve` in a scratch home (SQLite, the hf engine on a tiny model) and run the
    reproductions: a /readyz storm, empty text, non-integer levels, a closed incident, sign-in throttling and load,
    slow senders, and a flood from one source at 10 times its intake limit."""
    from app.bench.hardening import run_hardening_checks

    checks = run_hardening_checks()
    if as_json:
        typer.echo(json.dumps({"checks": [check.to_json() for check in checks]}))
    else:
        table = Table(title="hardening reproductions against `triage-dispatch serve`", title_justify="left")
        for column in ("reproduction", "measured", "target", "met"):
            table.add_column(column)
        for check in checks:
            table.add_row(check.name, check.measured, check.target, "yes" if check.met else "NO")
        _out.print(table)
    if not all(check.met for check in checks):
        raise typer.Exit(1)
