"""`triage-dispatch triage ...`: classify a message, train a model from a CSV, evaluate one."""

from __future__ import annotations

import datetime as dt
import json
import logging
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from triage_models.embedding import EmbeddingModelError
from triage_models.generator import write_csv
from triage_models.ktas import load_ktas
from triage_models.llm import LLMClassifier, TransformersGenerator
from triage_models.metrics import triage_metrics
from triage_models.pipeline import TriageModel, Triager, train_model
from triage_models.store import (
    DataError,
    LabelledData,
    default_model_dir,
    load_or_train_default,
    read_ktas,
    read_labelled_csv,
    with_generated,
)
from triage_models.text import InvalidMessageError

triage_app = typer.Typer(help="Triage models: ESI level and answer length for a message.", no_args_is_help=True)
_out = Console()
_err = Console(stderr=True)


class DataFormat(StrEnum):
    plain = "plain"
    ktas = "ktas"


class Reference(StrEnum):
    model = "model"
    nurse = "nurse"
    constant = "constant"


class BackendName(StrEnum):
    linear = "linear"
    embedding = "embedding"


def _llm(llm_model: Path | None) -> LLMClassifier | None:
    if llm_model is None:
        return None
    try:
        return LLMClassifier(TransformersGenerator(llm_model))
    except (OSError, ValueError) as error:
        raise typer.BadParameter(f"cannot load the instruct model: {error}", param_hint="--llm-model") from error


def _load_model(model: Path | None) -> TriageModel:
    if model is None:
        return load_or_train_default()
    try:
        return TriageModel.load(model)
    except (FileNotFoundError, ValueError) as error:
        raise typer.BadParameter(str(error), param_hint="--model") from error


def _read(
    path: Path,
    data_format: DataFormat,
    text_column: str | None,
    label_column: str | None,
    length_column: str | None = None,
) -> LabelledData:
    try:
        if data_format is DataFormat.ktas:
            return read_ktas(path)
        if not text_column or not label_column:
            raise typer.BadParameter("--text-column and --label-column are required for --format plain")
        return read_labelled_csv(path, text_column, label_column, length_column)
    except DataError as error:
        raise typer.BadParameter(str(error), param_hint="--data") from error


@triage_app.command("classify")
def classify(
    text: Annotated[str, typer.Argument(help="The message, as the call-taker or transcription has it.")],
    model: Annotated[Path | None, typer.Option(help="Model directory (default: the trained default).")] = None,
    llm_model: Annotated[
        Path | None, typer.Option(help="Use the llm backend with this local instruct model (falls back on failure).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
) -> None:
    """Estimate the ESI level and the answer length of one message."""
    triager = Triager(_load_model(model), llm=_llm(llm_model))
    try:
        result = triager.classify(text)
    except InvalidMessageError as error:
        raise typer.BadParameter(str(error), param_hint="TEXT") from error
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        return
    _out.print(
        f"[bold]ESI {result.esi_level}[/bold] (decision point {result.decision_point.value}); "
        f"classifier alone: ESI {result.classifier_level}; answer about {result.predicted_output_tokens} tokens"
    )
    _out.print("probabilities: " + ", ".join(f"ESI {lvl} {p:.2f}" for lvl, p in result.probabilities.items()))
    for hit in result.evidence:
        kind = "floor" if hit.floor else "advisory"
        _out.print(f"  {hit.rule_id} ({kind}, ESI {hit.esi_level}): {hit.description} <- {hit.text!r}")
    _out.print(f"model {result.model_version}")


@triage_app.command("train")
def train(
    data: Annotated[Path | None, typer.Option(help="CSV of past messages with their levels.")] = None,
    text_column: Annotated[str | None, typer.Option(help="Column holding the message text.")] = None,
    label_column: Annotated[str | None, typer.Option(help="Column holding the ESI level 1..5.")] = None,
    length_column: Annotated[str | None, typer.Option(help="Column holding the answer length in tokens.")] = None,
    data_format: Annotated[DataFormat, typer.Option("--format", help="plain CSV, or KTAS records.")] = DataFormat.plain,
    generated: Annotated[int, typer.Option(help="Add this many generated messages (0 = none).")] = 0,
    backend: Annotated[BackendName, typer.Option(help="Classifier backend.")] = BackendName.linear,
    embedding_model: Annotated[
        str | None, typer.Option(help="sentence-transformers model (path or hub id) for --backend embedding.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Where to write the model (default: the default model).")] = None,
) -> None:
    """Train a model from a centre's own CSV (and/or generated messages) and save it."""
    if data is None and generated <= 0:
        raise typer.BadParameter("give --data CSV, --generated N, or both")
    if data is not None:
        labelled = _read(data, data_format, text_column, label_column, length_column)
    else:
        labelled = LabelledData([], [], [])
    labelled = with_generated(labelled, generated)
    source = f"{data or ''}{' + ' if data and generated else ''}{f'generated:{generated}' if generated else ''}"
    try:
        model = train_model(
            labelled.texts,
            labelled.labels,
            labelled.answer_tokens,
            source=source,
            trained_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            backend=backend.value,
            embedding_model=embedding_model,
        )
    except (ValueError, EmbeddingModelError) as error:
        raise typer.BadParameter(str(error), param_hint="--data") from error
    target = out or default_model_dir()
    model.save(target)
    _err.print(
        f"trained {backend.value} on {len(labelled.texts)} messages; urgent threshold "
        f"{model.urgent_threshold:.3f}; saved to {target}"
    )


@triage_app.command("eval")
def evaluate(
    data: Annotated[Path, typer.Option(help="CSV to evaluate on.")],
    text_column: Annotated[str | None, typer.Option(help="Column holding the message text.")] = None,
    label_column: Annotated[str | None, typer.Option(help="Column holding the ESI level 1..5.")] = None,
    data_format: Annotated[DataFormat, typer.Option("--format", help="plain CSV, or KTAS records.")] = DataFormat.plain,
    model: Annotated[Path | None, typer.Option(help="Model directory (default: the trained default).")] = None,
    llm_model: Annotated[Path | None, typer.Option(help="Evaluate the llm backend with this instruct model.")] = None,
    urgent_threshold: Annotated[
        float | None, typer.Option(help="Override the model's P(ESI 1-2) threshold (to chart operating points).")
    ] = None,
    reference: Annotated[
        Reference, typer.Option(help="Score the model, the KTAS nurse's own levels, or a constant level.")
    ] = Reference.model,
    constant_level: Annotated[int, typer.Option(help="The level predicted by --reference constant.")] = 4,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as one JSON object.")] = False,
) -> None:
    """Agreement, under-/over-triage, ESI 1-2 recall, kappa, confusion and latency on labelled data."""
    labelled = _read(data, data_format, text_column, label_column)
    if reference is Reference.nurse:
        if data_format is not DataFormat.ktas:
            raise typer.BadParameter("--reference nurse needs --format ktas (the KTAS_RN column)")
        cases = [case for case in load_ktas(data) if case.nurse_level is not None]
        metrics = triage_metrics([c.esi_level for c in cases], [c.nurse_level or 0 for c in cases])
    elif reference is Reference.constant:
        if constant_level not in (1, 2, 3, 4, 5):
            raise typer.BadParameter("--constant-level must be 1..5")
        metrics = triage_metrics(labelled.labels, [constant_level] * len(labelled.labels))
    else:
        loaded = _load_model(model)
        if urgent_threshold is not None:
            if not 0.0 < urgent_threshold <= 1.0:
                raise typer.BadParameter("--urgent-threshold must be in (0, 1]")
            loaded.urgent_threshold = urgent_threshold
        triager = Triager(loaded, llm=_llm(llm_model))
        results, latencies = triager.classify_timed(labelled.texts)
        metrics = triage_metrics(labelled.labels, [result.esi_level for result in results], latencies)
    if as_json:
        typer.echo(json.dumps(metrics.to_json()))
        return
    table = Table(title=f"{data} ({metrics.n} messages)", title_justify="left")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in metrics.to_json().items():
        if name != "confusion":
            table.add_row(name, f"{value:.3f}" if isinstance(value, float) else str(value))
    _out.print(table)
    confusion = Table(title="confusion (rows: truth, columns: predicted)", title_justify="left")
    confusion.add_column("")
    for level in range(1, 6):
        confusion.add_column(f"ESI {level}", justify="right")
    for level, row in enumerate(metrics.confusion, start=1):
        confusion.add_row(f"ESI {level}", *map(str, row))
    _out.print(confusion)


@triage_app.command("generate")
def generate_data(
    out: Annotated[Path, typer.Option(help="CSV to write.")],
    count: Annotated[int, typer.Option(help="Number of messages.")] = 6_000,
    seed: Annotated[int, typer.Option(help="Seed (same seed, same messages).")] = 0,
) -> None:
    """Write generated, labelled training messages to a CSV (columns: text, esi_level, answer_tokens, ...)."""
    if count < 1:
        raise typer.BadParameter("--count must be >= 1")
    written = write_csv(out, count, seed)
    _err.print(f"wrote {written} messages to {out}")


logging.getLogger("triage_models").addHandler(logging.NullHandler())
