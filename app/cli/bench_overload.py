"""`triage-dispatch bench overload`: shedding vs none at a sustained multiple of the engine's capacity."""

from __future__ import annotations

import json
import math
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from scheduler.bench.overload_bench import RUNS, URGENT, OverloadResult, OverloadSpec, run_overload
from scheduler.cost_model import PROFILES
from scheduler.policy import ESI_LEVELS

_out = Console()
if not _out.is_terminal:
    _out.width = 160


def bench_overload(
    load: Annotated[float, typer.Option(help="Arrival rate as a multiple of the engine's measured capacity.")] = 3.0,
    duration: Annotated[float, typer.Option(help="Simulated seconds during which calls arrive.")] = 240.0,
    time_scale: Annotated[
        float, typer.Option(help="The product's deadlines and policy clocks times this (0.1: an engine 10x slower).")
    ] = 0.1,
    profile: Annotated[str, typer.Option(help=f"Cost profile: {', '.join(PROFILES)}.")] = "a100-qwen1.5-4b",
    urgency_error_rate: Annotated[float, typer.Option(help="Share of calls whose level is mispredicted.")] = 0.0,
    seed: Annotated[int, typer.Option(help="First workload seed.")] = 0,
    repeats: Annotated[int, typer.Option(help="Seeds seed..seed+repeats-1; figures are means over them.")] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Calls arriving at `load` times what the engine serves, on the simulator with the product's scheduler and
    shedding code: semantic with template guidance for ESI 4-5 vs without, side by side, and ESI 1-2 alone."""
    if profile not in PROFILES:
        raise typer.BadParameter(f"unknown profile {profile!r}; choose one of: {', '.join(PROFILES)}")
    try:
        spec = OverloadSpec(
            load=load,
            duration_s=duration,
            time_scale=time_scale,
            profile=profile,
            urgency_error_rate=urgency_error_rate,
            seed=seed,
            repeats=repeats,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    result = run_overload(spec)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    _print(result)


def _cell(value: float | None, fmt: str) -> str:
    return "-" if value is None or math.isnan(value) else format(value, fmt)


def _print(result: OverloadResult) -> None:
    spec = result.spec
    table = Table(
        title=(
            f"{spec.load:g}x overload: {result.rate_per_s:.1f} calls/s against a capacity of "
            f"{result.capacity_per_s:.1f} for {spec.duration_s:g} s (clocks x{spec.time_scale:g}, "
            f"mean of {spec.repeats} seeds)"
        ),
        title_justify="left",
    )
    table.add_column("run", no_wrap=True)
    for level in URGENT:
        table.add_column(f"TTFT p99 ESI {level} (s)", justify="right")
    for level in ESI_LEVELS:
        table.add_column(f"ESI {level} in time", justify="right")
    table.add_column("shed (4-5)", justify="right")
    for run in RUNS:
        figures = result.runs[run]
        table.add_row(
            run,
            *(_cell(figures[level].ttft_p99_s, ".1f") for level in URGENT),
            *(_cell(figures[level].within_deadline, ".0%") for level in ESI_LEVELS),
            str(sum(figures[level].shed for level in ESI_LEVELS)),
        )
    _out.print(table)
    data = result.to_json()
    _out.print(
        f"ESI 1-2 TTFT p99: shedding / no shedding = {_cell(data['urgent_ttft_p99_shedding_vs_no_shedding'], '.2f')}x; "
        f"shedding / limit = {_cell(data['urgent_ttft_p99_shedding_vs_limit'], '.2f')}x; "
        f"without the overload mode / limit = {_cell(data['urgent_ttft_p99_without_overload_mode_vs_limit'], '.2f')}x; "
        f"strict ESI 2 / limit = {_cell(data['urgent_ttft_p99_strict_esi2_vs_limit'], '.2f')}x "
        "(in time: guidance finished within the level's deadline; ESI 1 has none)"
    )
