"""A vLLM executor with faked model outputs, so vLLM's real AsyncLLM, engine core and scheduler run without a GPU.

vLLM resolves `distributed_executor_backend="scheduler.bench.vllm_fake_executor.FakeOutputExecutor"` in its engine
core process. The executor reports a KV cache of `num_gpu_blocks_override` blocks (one full-attention group), and
answers each scheduled step the way a model runner does: one sampled token for every request whose known tokens
are all computed after the step, none for a prefill chunk. The token is a function of the request's tokens so far
(prompt and generated), so a request resubmitted with its generated tokens appended to its prompt continues
exactly as it would have: what greedy decoding guarantees for a real model.

Options (vLLM's `additional_config`): `fake_step_s` sleeps that long per step (a step-time model);
`fake_crash_at_step` with `fake_crash_file` raises in that step if the file exists, deleting it (one fatal engine
error, to test restarts: the restarted engine core finds no file and runs on).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Future
from typing import Any

import torch
from vllm.v1.executor.abstract import Executor
from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheSpec
from vllm.v1.outputs import ModelRunnerOutput

FAKE_BLOCK_SIZE = 16


def next_token(tokens: list[int], vocab_size: int) -> int:
    """The faked greedy choice: depends only on the sequence so far."""
    return (sum(tokens[-3:]) * 31 + len(tokens) * 7 + 3) % vocab_size


class FakeOutputExecutor(Executor):  # type: ignore[misc]
    """One in-process fake worker: KV specs, memory, and sampled tokens for scheduler outputs."""

    def _init_executor(self) -> None:
        options = self.vllm_config.additional_config or {}
        self.step_s = float(options.get("fake_step_s", 0.0))
        self.crash_at_step = int(options.get("fake_crash_at_step", 0))
        self.crash_file = str(options.get("fake_crash_file", ""))
        self.vocab_size = int(self.model_config.get_vocab_size())
        self.tokens: dict[str, list[int]] = {}
        self.steps = 0
        self._pending: Any = None

    # ----- start-up ---------------------------------------------------------------------------------------

    def get_kv_cache_specs(self) -> list[dict[str, KVCacheSpec]]:
        spec = FullAttentionSpec(block_size=FAKE_BLOCK_SIZE, num_kv_heads=1, head_size=1, dtype=torch.float32)
        return [{"layer": spec}]

    def determine_available_memory(self) -> list[int]:
        blocks = self.cache_config.num_gpu_blocks_override or 256
        return [blocks * FAKE_BLOCK_SIZE * 2 * 4]  # K and V, one float each per token

    def get_supported_kv_cache_layouts(self) -> list[list[str]]:
        return [["NHD"]]

    def set_kv_cache_layout(self, layout_name: str) -> None:
        return None

    def initialize_from_config(self, kv_cache_configs: list[Any]) -> None:
        return None

    def compile_or_warm_up_model(self) -> None:
        return None

    @property
    def supported_tasks(self) -> tuple[str, ...]:
        return ("generate",)

    @classmethod
    def supports_async_scheduling(cls) -> bool:
        return False

    # ----- steps ------------------------------------------------------------------------------------------

    def execute_model(self, scheduler_output: Any, non_block: bool = False) -> Any:
        self._pending = scheduler_output
        if non_block:
            future: Future[Any] = Future()
            future.set_result(None)
            return future
        return None

    def sample_tokens(self, grammar_output: Any, non_block: bool = False) -> Any:
        output = self._sample(self._pending)
        if non_block:
            future: Future[Any] = Future()
            future.set_result(output)
            return future
        return output

    def _sample(self, scheduler_output: Any) -> ModelRunnerOutput:
        self.steps += 1
        if self.steps == self.crash_at_step and self.crash_file and os.path.exists(self.crash_file):
            os.remove(self.crash_file)
            raise RuntimeError(f"fake model failure at step {self.steps}")
        if self.step_s:
            time.sleep(self.step_s)
        for request_id in scheduler_output.finished_req_ids:
            self.tokens.pop(request_id, None)
        computed_before: dict[str, int] = {}
        for new in scheduler_output.scheduled_new_reqs:
            # A request resumed after preemption may come back as new: keep the tokens it already has.
            self.tokens.setdefault(new.req_id, list(new.prompt_token_ids or []))
            computed_before[new.req_id] = new.num_computed_tokens
        cached = scheduler_output.scheduled_cached_reqs
        for index, request_id in enumerate(cached.req_ids):
            computed_before[request_id] = cached.num_computed_tokens[index]
        request_ids = list(scheduler_output.num_scheduled_tokens)
        sampled: list[list[int]] = []
        for request_id in request_ids:
            tokens = self.tokens[request_id]
            computed = computed_before[request_id] + scheduler_output.num_scheduled_tokens[request_id]
            if computed >= len(tokens):
                token = next_token(tokens, self.vocab_size)
                tokens.append(token)
                sampled.append([token])
            else:
                sampled.append([])
        return ModelRunnerOutput(
            req_ids=request_ids,
            req_id_to_index={request_id: index for index, request_id in enumerate(request_ids)},
            sampled_token_ids=sampled,
        )

    # ----- the rest of the interface ----------------------------------------------------------------------

    def collective_rpc(
        self,
        method: Any,
        timeout: float | None = None,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
        non_block: bool = False,
    ) -> Any:
        raise NotImplementedError(f"the fake-output executor has no workers (asked for {method!r})")

    def execute_dummy_batch(self) -> None:
        return None

    def take_draft_token_ids(self) -> None:
        return None

    def check_health(self) -> None:
        return None

    def shutdown(self) -> None:
        return None
