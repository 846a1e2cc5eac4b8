"""The llm triage backend through the product's own engine (hf, on a tiny local Llama), and triage model reload."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from app.incidents.pipeline import triager_for
from app.incidents.triage_llm import (
    TRIAGE_ESI_LEVEL,
    EngineGenerator,
    LoadedEngine,
    close_engine_generators,
    engine_generator,
    prompt_token_ids,
    started_loader,
)
from app.settings import Settings
from scheduler.engines.base import Engine, EngineHealth, EngineRequest, EngineStats, TokenChunk
from scheduler.engines.tiny_models import build_tiny_llama
from triage_models.generator import generate
from triage_models.llm import MAX_NEW_TOKENS, LLMClassifier, build_prompt
from triage_models.pipeline import TriageModel, Triager, train_model

NOT_BREATHING = "Caller says her husband collapsed and is not breathing"


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def llm_settings(tiny_llama: Path) -> Settings:
    # A generous timeout: these tests check the path a request takes, never how fast a 2-core machine is.
    return Settings(
        engine="hf",
        model=str(tiny_llama),
        engine_num_blocks=64,  # 1,024 tokens: the triage prompt (~490 with this tokenizer) and its answer
        engine_max_requests=2,
        triage_backend="llm",
        triage_llm_timeout_s=120,
    )


@pytest.fixture(scope="module")
def generator(llm_settings: Settings) -> Iterator[EngineGenerator]:
    """The process's engine generator for these settings, as `triager_for` builds it: one hf engine per module."""
    built = engine_generator(llm_settings)
    try:
        built.wait_started(300)
        yield built
    finally:
        close_engine_generators()  # stop the engine and its loop thread


def test_llm_backend_goes_through_the_engine_and_falls_back_on_gibberish(
    generator: EngineGenerator, small_model: TriageModel
) -> None:
    loaded = generator.wait_started(300)
    assert loaded.max_positions == 1024  # the tiny Llama's, found as the engine worker finds it
    engine = loaded.engine
    finished_before, engine_finished_before = generator.finished, engine.stats().finished
    result = Triager(small_model, llm=LLMClassifier(generator)).classify(NOT_BREATHING)
    # The request really went through the engine, with the llm backend's token budget.
    assert generator.finished == finished_before + 1
    assert engine.stats().finished == engine_finished_before + 1
    assert len(generator.last_token_ids) == MAX_NEW_TOKENS  # the hf engine stops at the budget, not at EOS
    # The random model's answer is not the JSON object asked for: the trained model answers, and the note says why.
    trained = Triager(small_model).classify(NOT_BREATHING)
    assert result.backend == trained.backend == small_model.backend.name
    assert (result.classifier_level, result.model_version) == (trained.classifier_level, trained.model_version)
    assert any(note.startswith("llm backend failed (LLMOutputError: ") for note in result.notes)
    assert result.esi_level == 1  # the red-flag floor holds


def test_the_adapter_decodes_exactly_the_engines_tokens(
    generator: EngineGenerator, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = generator.wait_started(300)
    seen: list[tuple[EngineRequest, list[int]]] = []
    submit = loaded.engine.submit

    def tap(request: EngineRequest) -> AsyncIterator[TokenChunk]:
        stream, tokens = submit(request), list[int]()
        seen.append((request, tokens))

        async def relay() -> AsyncIterator[TokenChunk]:
            async for chunk in stream:
                tokens.extend(chunk.token_ids)
                yield chunk

        return relay()

    monkeypatch.setattr(loaded.engine, "submit", tap)
    prompt = build_prompt("she fell down the stairs and hurt her hip")
    text = generator.generate(prompt, 24)
    [(request, tokens)] = seen
    assert request.prompt_token_ids == tuple(loaded.tokenizer(prompt)["input_ids"])  # no chat template here
    assert (request.esi_level, request.max_new_tokens) == (TRIAGE_ESI_LEVEL, 24) == (1, 24)
    assert len(tokens) == 24 and tuple(tokens) == generator.last_token_ids
    assert text == loaded.tokenizer.decode(tokens, skip_special_tokens=True)


def test_a_prompt_too_long_for_the_model_is_refused_before_the_engine(generator: EngineGenerator) -> None:
    submitted = generator.submitted
    with pytest.raises(ValueError, match=r"exceed the model's 1024 positions"):
        generator.generate("caller says " * 600, MAX_NEW_TOKENS)
    assert generator.submitted == submitted


def test_the_chat_template_is_applied_when_the_tokenizer_has_one(tiny_llama: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer: Any = AutoTokenizer.from_pretrained(str(tiny_llama))
    assert prompt_token_ids(tokenizer, "chest pain") == tokenizer("chest pain")["input_ids"]
    tokenizer.chat_template = (
        "{% for m in messages %}<s>{{ m['role'] }} {{ m['content'] }}</s>{% endfor %}"
        "{% if add_generation_prompt %}<s>assistant {% endif %}"
    )
    expected = tokenizer("<s>user chest pain</s><s>assistant ", add_special_tokens=False)["input_ids"]
    assert prompt_token_ids(tokenizer, "chest pain") == expected


class SilentEngine(Engine):
    """Takes every request and never answers (an engine stuck behind a long batch); records requests and aborts."""

    name = "silent"

    def __init__(self) -> None:
        self.timings = {}
        self.submitted: list[str] = []
        self.aborted: list[str] = []
        self.stopped = False

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        self.stopped = True

    def submit(self, request: EngineRequest) -> AsyncIterator[TokenChunk]:
        self.submitted.append(request.request_id)

        async def never() -> AsyncIterator[TokenChunk]:
            await asyncio.Event().wait()
            yield TokenChunk(request.request_id, (), 0.0, finished=True)  # never reached

        return never()

    def abort(self, request_id: str) -> None:
        self.aborted.append(request_id)

    def override(self, request_id: str, esi_level: int) -> None:
        return None

    def stats(self) -> EngineStats:
        return EngineStats({}, 0, {}, 0, 0.0, 0)

    def health(self) -> EngineHealth:
        return EngineHealth(ok=True)


class WordTokenizer:
    """Enough of a tokenizer for an engine that never answers."""

    chat_template = None

    def __call__(self, text: str) -> dict[str, list[int]]:
        return {"input_ids": [len(word) for word in text.split()]}

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        return " ".join(map(str, ids))


def test_an_engine_that_does_not_answer_in_time_falls_back_and_the_request_is_aborted(
    small_model: TriageModel,
) -> None:
    engine = SilentEngine()
    silent = EngineGenerator(started_loader(engine, WordTokenizer()), timeout_s=0.2, name="silent")
    try:
        silent.wait_started(30)
        result = Triager(small_model, llm=LLMClassifier(silent)).classify(NOT_BREATHING)
    finally:
        silent.close()  # drains the generator's loop: the clean-up of the abandoned request has run
    assert any(
        "llm backend failed (TimeoutError: no answer from the silent engine within 0.2 s)" in note
        for note in result.notes
    )
    assert result.backend == small_model.backend.name and result.esi_level == 1
    # Nothing is left running for nobody: what the engine was given (the request, submitted as soon as the loop
    # thread gets to it) was aborted.
    assert engine.aborted == engine.submitted and engine.stopped


def test_an_engine_that_cannot_start_falls_back_with_the_reason(small_model: TriageModel) -> None:
    async def broken() -> LoadedEngine:
        raise RuntimeError("no such model")

    failing = EngineGenerator(broken, timeout_s=30, name="hf")
    try:
        result = Triager(small_model, llm=LLMClassifier(failing)).classify("he twisted his ankle")
    finally:
        failing.close()
    assert any("(EngineError: the hf engine did not start: no such model)" in note for note in result.notes)
    assert result.backend == small_model.backend.name


@pytest.fixture(scope="module")
def promoted_model() -> TriageModel:
    """A second model (the conftest's `small_model` is the first), as a dispatcher's retraining would promote."""
    messages = list(generate(600, seed=2))
    texts, labels = [m.text for m in messages], [m.esi_level for m in messages]
    return train_model(texts, labels, [m.answer_tokens for m in messages], source="generated:600:seed=2")


def _rewrite_meta_in_place(directory: Path, version: str) -> None:
    """Change the model's version in its meta.json (same inode), and make sure the file's time changes too,
    whatever the filesystem's time resolution."""
    meta_path = directory / "meta.json"
    before = meta_path.stat()
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta_path.write_text(json.dumps({**meta, "model_version": version}), encoding="utf-8")
    ns = max(meta_path.stat().st_mtime_ns, before.st_mtime_ns + 1_000_000_000)
    os.utime(meta_path, ns=(ns, ns))
    assert meta_path.stat().st_ino == before.st_ino


def test_triager_for_reloads_a_promoted_model_and_keeps_one_otherwise(
    small_model: TriageModel, small_model_dir: Path, promoted_model: TriageModel, tmp_path: Path
) -> None:
    assert small_model.version != promoted_model.version
    served = tmp_path / "triage-model"
    shutil.copytree(small_model_dir, served)  # `small_model`, saved
    settings = Settings(triage_backend="trained")
    triager = triager_for(str(served), settings)
    assert triager.model.version == small_model.version and triager.llm is None
    assert triager_for(str(served), settings) is triager  # unchanged: no reload
    # Promotion: the new model is written beside the served one and renamed into its place.
    staging, retired = tmp_path / "staging", tmp_path / "retired"
    promoted_model.save(staging)
    served.rename(retired)
    staging.rename(served)
    shutil.rmtree(retired)
    promoted = triager_for(str(served), settings)
    assert promoted.model.version == promoted_model.version
    assert triager_for(str(served), settings) is promoted
    # meta.json rewritten in place: only its time changed.
    _rewrite_meta_in_place(served, "linear-rewritten")
    assert triager_for(str(served), settings).model.version == "linear-rewritten"


def test_triager_for_uses_the_engine_when_the_setting_says_llm(
    generator: EngineGenerator, llm_settings: Settings, small_model_dir: Path, tmp_path: Path
) -> None:
    served = tmp_path / "triage-model"
    shutil.copytree(small_model_dir, served)
    triager = triager_for(str(served), llm_settings)
    assert triager.llm is not None and triager.llm.generator is generator  # the process's one engine
    finished = generator.finished
    result = triager.classify(NOT_BREATHING)
    assert generator.finished == finished + 1 and result.esi_level == 1
    assert any(note.startswith("llm backend failed (LLMOutputError") for note in result.notes)
    _rewrite_meta_in_place(served, "linear-promoted")
    reloaded = triager_for(str(served), llm_settings)
    assert reloaded.model.version == "linear-promoted"
    assert reloaded.llm is not None and reloaded.llm.generator is generator  # a new model, the same engine


def test_the_backend_and_timeout_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRIAGE_TRIAGE_BACKEND", raising=False)
    assert Settings().triage_backend == "trained"
    monkeypatch.setenv("TRIAGE_TRIAGE_BACKEND", "llm")
    monkeypatch.setenv("TRIAGE_TRIAGE_LLM_TIMEOUT_S", "5")
    assert (Settings().triage_backend, Settings().triage_llm_timeout_s) == ("llm", 5.0)
    with pytest.raises(ValidationError, match="triage_backend"):
        Settings(triage_backend="gpt")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="triage_llm_timeout_s"):
        Settings(triage_llm_timeout_s=0)
