"""`triage-dispatch bench ...`: the simulator experiments and the scheduler overhead benchmark."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from app.cli.bench_guidance import bench_guidance
from app.cli.bench_hardening import bench_hardening
from app.cli.bench_overload import bench_overload
from scheduler.bench.overhead import DEFAULT_SIZES, run_overhead
from scheduler.cost_model import PROFILES
from scheduler.policy import ESI_LEVELS
from scheduler.sim.experiments import (
    BASELINES,
    EXPERIMENTS,
    ExperimentResult,
    PointResult,
    experiment_points,
    run_experiment,
)

bench_app = typer.Typer(
    help="Benchmarks: the simulator, the scheduler's overhead, engines, intake, the console, hardening, guidance.",
    no_args_is_help=True,
)
_out = Console()
if not _out.is_terminal:
    _out.width = 160  # tables of seven columns need more than the 80 columns assumed for pipes
_err = Console(stderr=True)
bench_app.command("overload")(bench_overload)
bench_app.command("hardening")(bench_hardening)
bench_app.command("guidance")(bench_guidance)


def _choice(value: str, known: list[str], what: str) -> str:
    if value not in known:
        raise typer.BadParameter(f"unknown {what} {value!r}; choose one of: {', '.join(known)}")
    return value


def _point_table(point: PointResult, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("policy")
    for level in ESI_LEVELS:
        table.add_column(f"ESI {level}", justify="right")
    table.add_column("overall", justify="right")
    table.add_column("ESI-1 x limit", justify="right")
    table.add_column("ESI-1 p99", justify="right")
    table.add_column("evictions", justify="right")
    # pandas and matplotlib: only when reporting
    from scheduler.sim.report import format_figure, limit_cells, limit_ratio_cell, policy_cells

    for name, summary in point.summaries.items():
        table.add_row(
            name,
            *policy_cells(point, name),
            limit_ratio_cell(point, name),
            format_figure(summary.p99_per_level[1]),
            str(sum(summary.evictions.values())),
        )
    if point.limits:
        table.add_row("limit", *limit_cells(point), "1.00x", "-", "-", style="dim")
    return table


@bench_app.command("sim")
def bench_sim(
    experiment: Annotated[str, typer.Option(help=f"One of: {', '.join(EXPERIMENTS)}.")] = "spikes",
    profile: Annotated[str, typer.Option(help=f"Cost profile: {', '.join(PROFILES)}.")] = "a100-qwen1.5-4b",
    gap: Annotated[float | None, typer.Option(help="Seconds between bursts.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Most requests in one burst.")] = None,
    seed: Annotated[int, typer.Option(help="Workload and predictor seed.")] = 0,
    repeats: Annotated[int, typer.Option(help="Average over seeds seed..seed+repeats-1.")] = 1,
    bursts: Annotated[int, typer.Option(help="Number of bursts.")] = 20,
    error_rate: Annotated[
        float | None, typer.Option(help="Predictor error rate for urgency-error / length-error.")
    ] = None,
    sweep: Annotated[bool, typer.Option(help="Also run the experiment's whole sweep.")] = False,
    batch_size: Annotated[int, typer.Option(help="Engine batch size b.")] = 16,
    block_size: Annotated[int, typer.Option(help="KV block size in tokens.")] = 32,
    kv_capacity: Annotated[
        int | None, typer.Option(help="Device KV capacity in tokens (default: the profile's).")
    ] = None,
    mixed_steps: Annotated[
        bool, typer.Option(help="Engine mixes prefill and decode in a step (default: the paper's engine does not).")
    ] = False,
    out: Annotated[Path | None, typer.Option(help="Write report.md, result.json and PNG plots here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")] = False,
) -> None:
    """Run every policy on the same simulated workload and compare normalized waiting time per ESI level."""
    _choice(experiment, list(EXPERIMENTS), "experiment")
    _choice(profile, list(PROFILES), "profile")
    if min(repeats, batch_size, block_size, bursts) < 1:
        raise typer.BadParameter("--repeats, --batch-size, --block-size and --bursts must be >= 1")
    overrides: dict[str, Any] = {
        "profile": profile,
        "seed": seed,
        "repeats": repeats,
        "bursts": bursts,
        "batch_size": batch_size,
        "block_size": block_size,
        "kv_capacity_tokens": kv_capacity,
        "mixed_steps": mixed_steps,
    }
    overrides.update(_optional_overrides(experiment, gap, concurrency, error_rate))
    result = _simulate(experiment, overrides, sweep, repeats)
    if out is not None:
        from scheduler.sim.report import write_report

        for path in write_report(result, out):
            _err.print(f"wrote {path}")
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    _print_experiment(experiment, result)


def _optional_overrides(
    experiment: str, gap: float | None, concurrency: int | None, error_rate: float | None
) -> dict[str, Any]:
    """The experiment's parameters given on the command line beyond those it always takes."""
    overrides: dict[str, Any] = {}
    if gap is not None:
        overrides["gap_s"] = gap
    if concurrency is not None:
        overrides["concurrency"] = concurrency
    if error_rate is not None:
        if experiment not in ("urgency-error", "length-error"):
            raise typer.BadParameter("--error-rate applies to the urgency-error and length-error experiments")
        overrides["urgency_error_rate" if experiment == "urgency-error" else "length_error_rate"] = error_rate
    return overrides


def _simulate(experiment: str, overrides: dict[str, Any], sweep: bool, repeats: int) -> ExperimentResult:
    """Run the experiment (and its sweep) for every policy, with a progress bar on stderr."""
    try:
        headline, points = experiment_points(experiment, overrides, sweep)
    except (TypeError, ValueError) as error:
        raise typer.BadParameter(str(error)) from error
    policies = ("semantic", *BASELINES)
    # One progress tick per policy run and one for each seed's limits (scheduler.sim.limits).
    runs = (len(policies) + 1) * repeats * (1 + sum(1 for point in points if point != headline))
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_err,
        transient=True,
    ) as progress:
        task = progress.add_task(f"simulating {experiment}", total=runs)
        return run_experiment(
            experiment,
            overrides,
            sweep=sweep,
            policies=policies,
            progress=lambda name: progress.update(task, advance=1, description=f"{experiment}: {name} done"),
        )


def _print_experiment(experiment: str, result: ExperimentResult) -> None:
    """The headline and every sweep point as tables."""
    _out.print(
        f"[bold]{experiment}[/bold]: normalized waiting time (s/token) per true ESI level; (Nx) = baseline / semantic;"
        " limit = semantic on the same workload with only levels 1..k; ESI-1 x limit = ESI 1 / its limit"
    )
    _out.print(_point_table(result.headline, "headline: " + _describe(result.headline)))
    for point in result.points:
        _out.print(_point_table(point, _describe(point)))


def _describe(point: PointResult) -> str:
    params = point.params
    return (
        f"profile={params.profile} gap={params.gap_s}s concurrency={params.concurrency} "
        f"seeds={params.seed}..{params.seed + params.repeats - 1} "
        f"urgency_err={params.urgency_error_rate} length_err={params.length_error_rate} "
        f"predictor={params.predictor_mode}/{params.predictor_latency_s}s/b{params.predictor_batch_size}"
    )


@bench_app.command("overhead")
def bench_overhead(
    decisions: Annotated[int, typer.Option(help="Decisions timed per queue size.")] = 300,
    sizes: Annotated[str, typer.Option(help="Comma-separated queue sizes.")] = ",".join(map(str, DEFAULT_SIZES)),
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """Time one scheduling decision (batch selection + eviction) at 1e3, 1e4, 1e5 waiting requests."""
    try:
        queue_sizes = [int(size) for size in sizes.split(",") if size.strip()]
    except ValueError as error:
        raise typer.BadParameter(f"--sizes must be comma-separated integers: {error}") from error
    if not queue_sizes or min(queue_sizes) < 1 or decisions < 1:
        raise typer.BadParameter("--sizes needs positive integers and --decisions must be >= 1")
    results = run_overhead(queue_sizes, decisions=decisions)
    if as_json:
        by_size = {
            str(result.waiting): {
                "semantic_us": result.semantic_us,
                "baseline_us": result.baseline_us,
                "evictions_per_decision": result.evictions_per_decision,
            }
            for result in results
        }
        typer.echo(json.dumps({"sizes": by_size}))
        return
    table = Table(title="median time of one scheduling decision (us)", title_justify="left")
    for column in (
        "waiting",
        "indexed heap",
        "sorted list",
        "sorted list / heap",
        "vs 1e3 (heap)",
        "evictions/decision",
    ):
        table.add_column(column, justify="right")
    first = results[0].semantic_us
    for result in results:
        table.add_row(
            f"{result.waiting:,}",
            f"{result.semantic_us:.1f}",
            f"{result.baseline_us:.1f}",
            f"{result.baseline_us / result.semantic_us:.2f}x",
            f"{result.semantic_us / first:.2f}x",
            f"{result.evictions_per_decision:.2f}",
        )
    _out.print(table)


@bench_app.command("engine")
def bench_engine(
    engine: Annotated[
        str, typer.Option(help="Engine to drive: hf (transformers) or vllm (vLLM, on the CPU here).")
    ] = "hf",
    scheduler: Annotated[
        list[str] | None,
        typer.Option(help="Scheduler(s) to run: semantic and the engine's baseline (hf: fifo; vllm: stock-priority)."),
    ] = None,
    requests: Annotated[int, typer.Option(help="Requests in the burst.")] = 60,
    repeats: Annotated[int, typer.Option(help="Runs per scheduler, alternating order; figures are means.")] = 3,
    seed: Annotated[int, typer.Option(help="Workload seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """A burst through the real engine (tiny local model, real forward passes, small cache), the ESI 1 requests
    arriving into the running batch; semantic against the engine's baseline, plus ESI 1 alone (the limit)."""
    from scheduler.bench.engine_bench import BASELINES, LIMIT_RUN, EngineBenchSpec, run_engine_bench
    from scheduler.engines.base import check_engine_name

    try:
        check_engine_name(engine)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--engine") from error
    known = ["semantic", BASELINES[engine]]
    names = scheduler or known
    for name in names:
        _choice(name, known, "scheduler")
    if requests < 1 or repeats < 1:
        raise typer.BadParameter("--requests and --repeats must be >= 1")
    if engine == "vllm":
        _vllm_environment()
    spec = EngineBenchSpec(requests=requests, seed=seed)
    results = run_engine_bench(names, spec, repeats=repeats, with_limit=True, engine=engine)
    limit = results.pop(LIMIT_RUN)
    if as_json:
        typer.echo(json.dumps(_engine_bench_json(engine, results, limit)))
        return
    _print_engine_bench(engine, results, limit, requests, repeats)


def _vllm_environment() -> None:
    """vLLM's environment for a bench run: its platform from the build installed, a scratch cache, quiet logs."""
    import os
    import tempfile

    os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")  # stdout carries the table or the JSON
    os.environ.setdefault("VLLM_CACHE_ROOT", tempfile.mkdtemp(prefix="vllm-cache-"))


def _engine_bench_json(engine: str, results: dict[str, Any], limit: Any) -> dict[str, Any]:
    key = "preemptions" if engine == "vllm" else "evictions"
    data: dict[str, Any] = {}
    if engine == "vllm":
        from scheduler.engines.vllm_engine import vllm_executor

        data["executor"] = vllm_executor()
    data["schedulers"] = {name: result.to_json(key) for name, result in results.items()}
    data["limit"] = {"ttft_p99_ms": {"1": limit.ttft_p99_ms.get("1")}}
    return data


def _print_engine_bench(engine: str, results: dict[str, Any], limit: Any, requests: int, repeats: int) -> None:
    title = f"{engine} engine, burst of {requests} (mean of {repeats} runs each)"
    table = Table(title=title, title_justify="left")
    table.add_column("scheduler")
    for level in ESI_LEVELS:
        table.add_column(f"TTFT p99 ESI {level} (ms)", justify="right")
    table.add_column("preemptions" if engine == "vllm" else "evictions", justify="right")
    table.add_column("tokens/s", justify="right")
    for name, result in results.items():
        cells = [f"{result.ttft_p99_ms.get(str(level), math.nan):.0f}" for level in ESI_LEVELS]
        table.add_row(name, *cells, str(result.evictions), f"{result.tokens_per_s:.0f}")
    _out.print(table)
    baseline = next((name for name in results if name != "semantic"), None)
    if "semantic" in results and baseline is not None:
        semantic, other = results["semantic"], results[baseline]
        _out.print(
            f"ESI 1 p99 time to first token: {baseline} / semantic = "
            f"{other.ttft_p99_ms['1'] / max(semantic.ttft_p99_ms['1'], 1e-9):.1f}x; "
            f"throughput semantic / {baseline} = {semantic.tokens_per_s / other.tokens_per_s:.2f}"
        )
    if "semantic" in results and "1" in limit.ttft_p99_ms:
        _out.print(
            f"ESI 1 p99 time to first token: semantic / limit (ESI 1 alone) = "
            f"{results['semantic'].ttft_p99_ms['1'] / max(limit.ttft_p99_ms['1'], 1e-9):.2f}x"
        )


@bench_app.command("engines")
def bench_engines(
    engine: Annotated[list[str] | None, typer.Option(help="Engine(s) to measure: hf, vllm (default: both).")] = None,
    repeats: Annotated[int, typer.Option(help="Runs of the burst per engine; figures are means.")] = 2,
    model: Annotated[
        Path | None, typer.Option(help="Model directory (default: the default model's shape, random weights).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """hf against vllm on this machine: the same burst at the default model's shape (Qwen2.5-0.5B-Instruct's
    config, weights initialised here), both with the semantic scheduler: tokens/s, ESI 1 TTFT, start, memory."""
    from scheduler.bench.engines_compare import compare_engines

    names = engine or ["hf", "vllm"]
    for name in names:
        _choice(name, ["hf", "vllm"], "engine")
    if repeats < 1:
        raise typer.BadParameter("--repeats must be >= 1")
    if model is not None and not (model / "config.json").is_file():
        raise typer.BadParameter(f"{model} is not a model directory (no config.json)", param_hint="--model")
    if "vllm" in names:
        _vllm_environment()
    results = compare_engines(names, repeats=repeats, model_dir=model)
    if as_json:
        typer.echo(json.dumps({"engines": {name: figures.to_json() for name, figures in results.items()}}))
        return
    table = Table(title=f"engines on this machine, default model's shape ({repeats} runs each)", title_justify="left")
    for column in ("engine", "tokens/s", "ESI 1 TTFT p50 (ms)", "ESI 1 TTFT p99 (ms)", "start (s)", "peak RSS (MiB)"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    for name, figures in results.items():
        table.add_row(
            name,
            f"{figures.tokens_per_s:.1f}",
            f"{figures.ttft_p50_ms:.0f}",
            f"{figures.ttft_p99_ms:.0f}",
            f"{figures.start_s:.1f}",
            f"{figures.peak_rss_mib:.0f}",
        )
    _out.print(table)


@bench_app.command("vllm-scheduler")
def bench_vllm_scheduler(
    requests: Annotated[int, typer.Option(help="Requests in the workload.")] = 60,
    seed: Annotated[int, typer.Option(help="Workload seed.")] = 0,
    profile: Annotated[str, typer.Option(help=f"Step-time profile: {', '.join(PROFILES)}.")] = "a100-qwen1.5-4b",
    kv_blocks: Annotated[int, typer.Option(help="KV cache blocks of 16 tokens.")] = 400,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The real vLLM scheduler with faked model outputs: stock policy="priority" against ours, same workload."""
    import os
    import tempfile

    _choice(profile, list(PROFILES), "profile")
    if requests < 1 or kv_blocks < 8:
        raise typer.BadParameter("--requests must be >= 1 and --kv-blocks >= 8")
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")  # stdout carries the table or the JSON
    os.environ.setdefault("VLLM_CACHE_ROOT", tempfile.mkdtemp(prefix="vllm-cache-"))
    from scheduler.bench.vllm_sim import compare_stock_and_semantic

    results = {
        name: run.to_json() for name, run in compare_stock_and_semantic(requests, seed, profile, kv_blocks).items()
    }
    if as_json:
        typer.echo(json.dumps({"schedulers": results}))
        return
    table = Table(
        title=f"vLLM 0.32 scheduler, {requests} requests, ESI 1 arriving into a full batch", title_justify="left"
    )
    table.add_column("scheduler")
    for level in ESI_LEVELS:
        table.add_column(f"TTFT p99 ESI {level} (steps / s)", justify="right")
    table.add_column("preemptions", justify="right")
    for name, data in results.items():
        cells = [
            f"{data['ttft_steps_p99'].get(str(level), math.nan)} / {data['ttft_s_p99'].get(str(level), math.nan):.3f}"
            for level in ESI_LEVELS
        ]
        table.add_row(name, *cells, str(data["preemptions"]))
    _out.print(table)
    stock, ours = results["stock-priority"], results["semantic"]
    _out.print(
        "ESI 1 p99 time to first token, stock / semantic: "
        f"{stock['ttft_steps_p99']['1'] / ours['ttft_steps_p99']['1']:.1f}x "
        f"in steps, {stock['ttft_s_p99']['1'] / ours['ttft_s_p99']['1']:.1f}x in seconds"
    )


@bench_app.command("intake")
def intake(
    messages: Annotated[int, typer.Option(help="Messages to post.")] = 1000,
    concurrency: Annotated[int, typer.Option(help="Requests in flight at once.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Intake throughput and latency to the heap, through a real web app, Celery worker and redis-server."""
    from app.bench.intake import run_intake_bench

    if messages < 1 or concurrency < 1:
        raise typer.BadParameter("--messages and --concurrency must be >= 1")
    result = run_intake_bench(messages, concurrency)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    table = Table(title=f"intake: {messages} signed messages, {concurrency} in flight", title_justify="left")
    for column in ("", "per s", "p50 ms", "p99 ms"):
        table.add_column(column, justify="right" if column else "left")
    table.add_row(
        "accepted (POST -> 202)",
        f"{result.accepted_per_s:.0f}",
        f"{result.post_p50_ms:.1f}",
        f"{result.post_p99_ms:.1f}",
    )
    table.add_row(
        "queued (POST -> in the heap)",
        f"{result.queued_per_s:.0f}",
        f"{result.queued_p50_ms:.0f}",
        f"{result.queued_p99_ms:.0f}",
    )
    table.add_row(
        "baseline (POST -> 404, no work)",
        f"{result.baseline_per_s:.0f}",
        f"{result.baseline_p50_ms:.1f}",
        f"{result.baseline_p99_ms:.1f}",
    )
    _out.print(table)
    _out.print(f"intake accepts at {result.accepted_per_s / result.baseline_per_s:.2f}x the bare HTTP rate")


@bench_app.command("live")
def live(
    calls: Annotated[int, typer.Option(help="Live calls replayed, each at real time.")] = 100,
    ramp: Annotated[float, typer.Option(help="Seconds over which the calls start.")] = 20.0,
    engine: Annotated[str, typer.Option(help="none (the engine down) or hf (the built-in tiny model)")] = "none",
    flood: Annotated[bool, typer.Option(help="Another source floods meanwhile.")] = True,
    speed: Annotated[
        float, typer.Option(help="The calls' clock against real time: 3 sends every call 3x as fast (3x overload).")
    ] = 1.0,
    model_dir: Annotated[
        Path | None, typer.Option(help="The triage model the worker reads (default: the installation's).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Live calls replayed at real time (docs/benchmarks.md#live-calls): events a second, answer times, recognition
    and card latency after the decisive utterance, false arrest cards, a flooding source's refusals."""
    from app.bench.live import run_live_bench

    if calls < 1 or ramp < 0 or not 0.1 <= speed <= 20:
        raise typer.BadParameter("--calls must be >= 1, --ramp >= 0 and --speed between 0.1 and 20")
    engine = _choice(engine, ["none", "hf"], "engine")
    result = run_live_bench(calls, ramp, speed, engine=engine, with_flood=flood, model_dir=model_dir)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    table = Table(title=f"live: {calls} calls at {speed:g}x real time, engine {engine}", title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in result.to_json().items():
        table.add_row(name, "-" if value is None else str(value))
    _out.print(table)


@bench_app.command("console")
def console(
    incidents: Annotated[int, typer.Option(help="Open incidents in the queue.")] = 500,
    baseline: Annotated[int, typer.Option(help="Open incidents in the baseline run.")] = 10,
    browser: Annotated[bool, typer.Option(help="Also measure in headless Chromium (Debian chromium).")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Console responsiveness with many open incidents, side by side with a small queue."""
    from app.bench.console import run_console_bench

    if incidents < 1 or baseline < 1:
        raise typer.BadParameter("--incidents and --baseline must be >= 1")
    result = run_console_bench(incidents, baseline, browser)
    if as_json:
        typer.echo(json.dumps(result))
        return
    table = Table(title="console responsiveness", title_justify="left")
    columns = (
        "open incidents",
        "server refresh ms",
        "HTML kB",
        "screen refresh every ms",
        "click to incident ms",
        "kB/min per console",
        "requests/min",
        "intake to row ms",
    )
    for column in columns:
        table.add_column(column, justify="right")

    def cell(value: float | None, digits: int = 0) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    for key in ("baseline", "incidents"):
        row = result[key]
        table.add_row(
            str(row["incidents"]),
            cell(row["server_refresh_ms"], 1),
            cell(row["html_kb"], 1),
            cell(row["screen_refresh_interval_ms"]),
            cell(row["click_to_incident_ms"]),
            cell(row["kb_per_minute"]),
            cell(row["requests_per_minute"]),
            cell(row["intake_to_row_ms"]),
        )
    _out.print(table)
    large, small = result["incidents"], result["baseline"]
    _out.print(f"server refresh: {large['server_refresh_ms'] / small['server_refresh_ms']:.1f}x the baseline's")
