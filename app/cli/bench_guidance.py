"""`triage-dispatch bench guidance`: time to the protocol card on the incident vs time to the first guidance token."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from app.bench.guidance import GuidanceBenchResult, run_guidance_bench

_out = Console()
if not _out.is_terminal:
    _out.width = 160


def bench_guidance(
    urgent: Annotated[int, typer.Option(min=2, help="ESI 1-2 calls followed in each scenario.")] = 12,
    load: Annotated[float, typer.Option(min=1.0, help="The overload scenario's rate: this times the capacity.")] = 3.0,
    model: Annotated[str, typer.Option(help="The engine's model (TRIAGE_MODEL) for the hf engine.")] = (
        "builtin:tiny-llama"
    ),
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """ESI 1-2 calls through a real `serve` (intake, classify task, engine worker): from the POST to the card on the
    incident and to the first guidance token, read through the API, with the engine healthy, overloaded and down;
    and the guidance checker's pass rate on what the engine wrote."""
    result = run_guidance_bench(urgent, load, model)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    _print(result)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _print(result: GuidanceBenchResult) -> None:
    table = Table(
        title=(
            f"ESI 1-2 calls: protocol card vs first guidance token on the incident (API), model {result.model}; "
            f"overload {result.load:g}x the healthy run's {result.capacity_per_s:.2f} calls/s"
        ),
        title_justify="left",
    )
    for column in ("scenario", "calls", "background", "card", "card p50 (s)", "card p99 (s)", "token"):
        table.add_column(column, justify="left" if column == "scenario" else "right")
    table.add_column("1st token p50 (s)", justify="right")
    table.add_column("1st token p99 (s)", justify="right")
    table.add_column("checker passed", justify="right")
    table.add_column("POST p99 (s)", justify="right")
    table.add_column("classified p99 (s)", justify="right")
    for figures in result.scenarios:
        table.add_row(
            figures.name,
            str(figures.urgent_calls),
            str(figures.background_calls),
            str(figures.carded),
            _seconds(figures.card_p50_s),
            _seconds(figures.card_p99_s),
            str(figures.first_token),
            _seconds(figures.first_token_p50_s),
            _seconds(figures.first_token_p99_s),
            f"{figures.check_passed}/{figures.checked}",
            _seconds(figures.post_p99_s),
            _seconds(figures.classified_p99_s),
        )
    _out.print(table)
    rate = result.check_pass_rate
    _out.print(f"checker pass rate on the engine's guidance: {'-' if rate is None else f'{rate:.0%}'}")
