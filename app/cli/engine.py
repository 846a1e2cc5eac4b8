"""`triage-dispatch engine ...`: operate the LLM engine (profile it)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

engine_app = typer.Typer(help="The LLM engine: profile its step times.", no_args_is_help=True)
_err = Console(stderr=True)


@engine_app.command("profile")
def profile(
    model: Annotated[
        Path | None, typer.Option(help="Model directory (default: a tiny local Llama, to try the command).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Write the profile (cost model + samples) as JSON here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the profile as one JSON object.")] = False,
) -> None:
    """Measure prefill and decode step times of the hf engine and fit the cost model (a1, a2, g1, g2, beta)."""
    from scheduler.engines.hf import HFEngine, HFEngineConfig
    from scheduler.engines.profiling import run_profile, save_profile

    with tempfile.TemporaryDirectory(prefix="tiny-llama-") as scratch:
        if model is None:
            from scheduler.engines.tiny_models import build_tiny_llama

            model = build_tiny_llama(Path(scratch))
        if not (model / "config.json").is_file():
            raise typer.BadParameter(f"{model} is not a model directory (no config.json)", param_hint="--model")
        config = json.loads((model / "config.json").read_text(encoding="utf-8"))
        engine = HFEngine(HFEngineConfig(model_path=str(model), num_blocks=64, max_batch_tokens=512))
        result = run_profile(engine, int(config.get("vocab_size", 256)))
    if out is not None:
        save_profile(result, out)
        _err.print(f"wrote {out}")
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    cost = result.cost_model
    typer.echo(
        f"a1={cost.a1:.3e} a2={cost.a2:.3e} g1={cost.g1:.3e} g2={cost.g2:.3e} beta={cost.beta:.3e} "
        f"({len(result.prefill_samples)} prefill and {len(result.decode_samples)} decode samples)"
    )


@engine_app.command("run")
def run() -> None:
    """Run an engine worker: the engine named by TRIAGE_ENGINE serving TRIAGE_MODEL, fed from the Redis heap.
    SIGTERM, SIGINT or SIGHUP stop it cleanly: the engine is stopped (vLLM's engine core processes with it)."""
    import asyncio
    import logging

    from app.settings import get_settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = get_settings()
    if settings.redis_url is None:
        raise typer.BadParameter("set TRIAGE_REDIS_URL (the engine worker reads the shared heap)")
    asyncio.run(_serve_until_signalled(settings))


async def _serve_until_signalled(settings: Any) -> None:
    """`serve_engine` until it ends or a stop signal arrives; then it is cancelled, so its cleanup runs."""
    import asyncio
    import signal

    from app.engine_worker.loop import serve_engine

    task = asyncio.ensure_future(serve_engine(settings))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        _err.print("engine worker stopped")
