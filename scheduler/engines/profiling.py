"""Measure an engine's step times and fit the cost model, so estimates use this machine's numbers."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scheduler.cost_model import CostModel, fit
from scheduler.engines.base import Engine, EngineRequest


@dataclass(frozen=True, slots=True)
class EngineProfile:
    """The fitted cost model and the samples it came from."""

    cost_model: CostModel
    prefill_samples: list[tuple[int, float]]
    decode_samples: list[tuple[int, float]]

    def to_json(self) -> dict[str, Any]:
        return {
            "cost_model": asdict(self.cost_model),
            "prefill_samples": self.prefill_samples,
            "decode_samples": self.decode_samples,
        }


def save_profile(profile: EngineProfile, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(profile.to_json(), indent=2) + "\n", encoding="utf-8")


def load_cost_model(path: Path) -> CostModel:
    """The cost model of a saved profile; a file that is not one is a clear error."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return CostModel(**data["cost_model"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not an engine profile: {error}") from error


async def _timed(engine: Engine, request: EngineRequest) -> list[float]:
    """Client-side times: submit, then each token's arrival."""
    times = [time.monotonic()]
    async for chunk in engine.submit(request):
        times.extend(chunk.emitted_s for _ in chunk.token_ids)
    return times


async def profile_engine(
    engine: Engine,
    vocab_size: int,
    prompt_lengths: Sequence[int] = (16, 48, 96, 160, 240),
    decode_tokens: int = 64,
    repeats: int = 3,
) -> EngineProfile:
    """Prefill: time to the first token of a lone request, per prompt length (best of `repeats`). Decode: the
    interval between consecutive tokens of a lone request, by context length. Both fitted by least squares."""
    token = max(5, min(vocab_size - 1, 50))
    prefill: list[tuple[int, float]] = []
    for length in prompt_lengths:
        best = float("inf")
        for attempt in range(repeats):
            request = EngineRequest(f"profile-prefill-{length}-{attempt}", (token,) * length, 3, 1, 1)
            times = await _timed(engine, request)
            best = min(best, times[1] - times[0])
        prefill.append((length, best))
    prompt = 16
    times = await _timed(engine, EngineRequest("profile-decode", (token,) * prompt, 3, decode_tokens, decode_tokens))
    decode = [(prompt + index, times[index + 1] - times[index]) for index in range(1, len(times) - 1)]
    return EngineProfile(fit(prefill, decode), prefill, decode)


def run_profile(engine: Engine, vocab_size: int) -> EngineProfile:
    """Start the engine, profile it, stop it."""

    async def scenario() -> EngineProfile:
        await engine.start()
        try:
            return await profile_engine(engine, vocab_size)
        finally:
            await engine.stop()

    return asyncio.run(scenario())
