"""`triage-dispatch triage ...`: classify a message, train a model from a CSV, evaluate one."""

from __future__ import annotations

import datetime as dt
import json
import logging
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from scheduler.policy import ESI_LEVELS
from triage_models.callsets import CallSetError, call_set_report, read_call_set
from triage_models.callsets import outcome as call_outcome
from triage_models.embedding import EmbeddingModelError
from triage_models.evaluation import EvaluationReport, evaluate, leave_one_out, report
from triage_models.generator import write_csv
from triage_models.ktas import load_ktas
from triage_models.llm import LLMClassifier, TransformersGenerator
from triage_models.pipeline import TriageModel, Triager, train_model
from triage_models.store import (
    DataError,
    LabelledData,
    corpus_data,
    default_model_dir,
    default_training_data,
    load_or_train_default,
    read_esi_vignettes,
    read_ktas,
    read_labelled_csv,
    shared_data_dir,
    with_generated,
)
from triage_models.text import InvalidMessageError

triage_app = typer.Typer(help="Triage models: ESI level and answer length for a message.", no_args_is_help=True)
_out = Console()
_err = Console(stderr=True)


class DataFormat(StrEnum):
    plain = "plain"
    ktas = "ktas"
    esi = "esi"
    calls = "calls"


class ResourceStep(StrEnum):
    by_count = "count"
    by_model = "model"


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


def _with_policy(model: TriageModel, urgent_threshold: float | None, resource_step: ResourceStep | None) -> TriageModel:
    """The model with its decision policy's threshold or step C replaced, to chart operating points."""
    changes: dict[str, float | str] = {}
    if urgent_threshold is not None:
        if not 0.0 < urgent_threshold <= 1.0:
            raise typer.BadParameter("--urgent-threshold must be in (0, 1]")
        changes["urgent_threshold"] = urgent_threshold
    if resource_step is not None:
        changes["resource_step"] = resource_step.value
    model.policy = replace(model.policy, **changes)  # type: ignore[arg-type]
    return model


def _print_call_report(path: Path, document: dict[str, Any]) -> None:
    """The acceptance figures per kind of call and per language, and the calls out of range."""
    columns = ("n", "in_range", "exact", "within_one", "esi12_recall", "urgent_at_4_5", "minor_at_1_2", "review_share")
    for title, rows in (("by kind of call", document["by_kind"]), ("by language", document["by_language"])):
        table = Table(title=f"{path.name}: {title}", title_justify="left")
        table.add_column("")
        for column in columns:
            table.add_column(column.replace("_", " "), justify="right")
        for name, figures in [*rows.items(), ("all", document["all"])]:
            table.add_row(name, *(_cell(figures[column]) for column in columns))
        _out.print(table)
    for call in document["out_of_range"]:
        _out.print(f"out of range: {call['id']} ({call['kind']}) range {call['range']} -> ESI {call['predicted']}")


def _cell(value: object) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _evaluate_calls(path: Path, triager: Triager, as_json: bool) -> None:
    """`triage eval --format calls`: a call set's acceptance figures (see triage_models.callsets)."""
    try:
        calls = read_call_set(path)
    except CallSetError as error:
        raise typer.BadParameter(str(error), param_hint="--data") from error
    document = call_set_report([call_outcome(call, triager.classify(call.text)) for call in calls])
    if as_json:
        typer.echo(json.dumps(document))
        return
    _print_call_report(path, document)


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
        if data_format is DataFormat.esi:
            return read_esi_vignettes(path)
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
        f"trained model: ESI {result.classifier_level}; answer about {result.predicted_output_tokens} tokens"
    )
    if result.needs_review:
        _out.print(f"[bold]needs review[/bold]: {result.review_reason}")
    _out.print("probabilities: " + ", ".join(f"ESI {lvl} {p:.2f}" for lvl, p in result.probabilities.items()))
    for hit in result.evidence:
        kind = "floor" if hit.floor else "advisory"
        _out.print(f"  {hit.rule_id} ({kind}, ESI {hit.esi_level}): {hit.description} <- {hit.text!r}")
    _out.print(
        f"resources ({result.resource_count}): "
        + (", ".join(f"{r.kind} <- {r.text!r}" for r in result.resources) or "none")
    )
    _out.print(f"model {result.model_version}")


def _training_data(data: LabelledData | None, reference_data: bool, corpus: bool, generated: int) -> LabelledData:
    """A centre's data, the reference data (KTAS ED1, ESI vignettes), the call corpus and generated messages, as
    asked."""
    parts = data if data is not None else LabelledData([], [], [])
    if corpus:
        calls = corpus_data()
        parts = LabelledData(
            [*parts.texts, *calls.texts], [*parts.labels, *calls.labels], None, [*parts.sources, *calls.sources]
        )
    if reference_data:
        if shared_data_dir() is None:
            raise typer.BadParameter("no reference data: set TRIAGE_DATA_DIR", param_hint="--reference-data")
        reference = default_training_data(generated=0, corpus=False)
        # The reference data has no answer lengths, so the length model falls back to per-level defaults.
        parts = LabelledData(
            [*parts.texts, *reference.texts], [*parts.labels, *reference.labels], None,
            [*parts.sources, *reference.sources],
        )  # fmt: skip
    return with_generated(parts, generated)


@triage_app.command("train")
def train(
    data: Annotated[Path | None, typer.Option(help="CSV of past messages with their levels.")] = None,
    text_column: Annotated[str | None, typer.Option(help="Column holding the message text.")] = None,
    label_column: Annotated[str | None, typer.Option(help="Column holding the ESI level 1..5.")] = None,
    length_column: Annotated[str | None, typer.Option(help="Column holding the answer length in tokens.")] = None,
    data_format: Annotated[DataFormat, typer.Option("--format", help="plain CSV, KTAS records or ESI vignettes.")] = (
        DataFormat.plain
    ),
    reference_data: Annotated[
        bool, typer.Option(help="Add KTAS ED1 and the ESI practice vignettes (TRIAGE_DATA_DIR or ../shared/data).")
    ] = False,
    corpus: Annotated[
        bool, typer.Option(help="Add the call-style training corpus (triage_models/corpus/, several thousand calls).")
    ] = False,
    generated: Annotated[int, typer.Option(help="Add this many generated messages (0 = none).")] = 0,
    backend: Annotated[BackendName, typer.Option(help="Classifier backend.")] = BackendName.linear,
    embedding_model: Annotated[
        str | None, typer.Option(help="sentence-transformers model (path or hub id) for --backend embedding.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Where to write the model (default: the serving model).")] = None,
) -> None:
    """Train a model from a centre's own CSV, the reference data and/or generated messages, and save it."""
    if data is None and generated <= 0 and not reference_data and not corpus:
        raise typer.BadParameter("give --data CSV, --reference-data, --corpus, --generated N, or several")
    own = None
    if data is not None:
        read = _read(data, data_format, text_column, label_column, length_column)
        own = LabelledData(read.texts, read.labels, read.answer_tokens, [data.name] * len(read.texts))
    labelled = _training_data(own, reference_data, corpus, generated)
    source = " + ".join(
        [*([str(data)] if data else []), *(["corpus"] if corpus else []),
         *(["reference:ktas-ed1+esi-vignettes"] if reference_data else []),
         *([f"generated:{generated}"] if generated else [])]
    )  # fmt: skip
    try:
        model = train_model(
            labelled.texts,
            labelled.labels,
            labelled.answer_tokens,
            sources=labelled.sources,
            source=source,
            trained_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            backend=backend.value,
            embedding_model=embedding_model,
        )
    except (ValueError, EmbeddingModelError) as error:
        raise typer.BadParameter(str(error), param_hint="--data") from error
    target = out or default_model_dir()
    model.save(target)
    _err.print(f"trained {backend.value} on {len(labelled.texts)} messages; policy {model.policy}; saved to {target}")


def _print_report(title: str, evaluation: EvaluationReport, per_case: bool) -> None:
    """The figures, per decision point, calibration and the confusion matrix as tables (optionally every case)."""
    figures = {k: v for k, v in evaluation.to_json(with_cases=False).items() if not isinstance(v, (dict, list))}
    table = Table(title=title, title_justify="left")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in figures.items():
        table.add_row(name, f"{value:.3f}" if isinstance(value, float) else str(value))
    table.add_row("calibration ECE", f"{evaluation.calibration.ece:.3f}")
    _out.print(table)
    points = Table(title="by decision point (the step that decided)", title_justify="left")
    for column in ("point", "cases", "exact", "within one"):
        points.add_column(column, justify="right")
    for point, row in evaluation.by_decision_point.items():
        points.add_row(point, str(int(row["n"])), f"{row['exact']:.3f}", f"{row['within_one']:.3f}")
    _out.print(points)
    confusion = Table(title="confusion (rows: truth, columns: predicted)", title_justify="left")
    confusion.add_column("")
    for level in range(1, 6):
        confusion.add_column(f"ESI {level}", justify="right")
    for level, counts in enumerate(evaluation.metrics.confusion, start=1):
        confusion.add_row(f"ESI {level}", *map(str, counts))
    _out.print(confusion)
    if per_case:
        cases = Table(title="cases", title_justify="left")
        for column in ("#", "truth", "predicted", "point", "resources", "review"):
            cases.add_column(column, justify="right")
        for number, case in enumerate(evaluation.cases, start=1):
            cases.add_row(str(number), str(case.esi_level), str(case.predicted), case.decision_point,
                          str(case.resource_count), "yes" if case.needs_review else "")  # fmt: skip
        _out.print(cases)


def _reference_report(
    data: Path, data_format: DataFormat, labelled: LabelledData, reference: Reference, constant_level: int
) -> EvaluationReport:
    """A nurse's or a constant level scored like a model (no decision points, probabilities or latency)."""
    from triage_models.evaluation import CaseOutcome

    if reference is Reference.nurse:
        if data_format is not DataFormat.ktas:
            raise typer.BadParameter("--reference nurse needs --format ktas (the KTAS_RN column)")
        pairs = [(c.esi_level, c.nurse_level or 0) for c in load_ktas(data) if c.nurse_level is not None]
    else:
        if constant_level not in ESI_LEVELS:
            raise typer.BadParameter("--constant-level must be 1..5")
        pairs = [(label, constant_level) for label in labelled.labels]
    flat = tuple(0.2 for _ in range(5))
    return report([CaseOutcome(truth, predicted, "-", 0, False, flat) for truth, predicted in pairs])


@triage_app.command("eval")
def evaluate_command(
    data: Annotated[Path, typer.Option(help="CSV to evaluate on.")],
    text_column: Annotated[str | None, typer.Option(help="Column holding the message text.")] = None,
    label_column: Annotated[str | None, typer.Option(help="Column holding the ESI level 1..5.")] = None,
    data_format: Annotated[DataFormat, typer.Option("--format", help="plain CSV, KTAS records or ESI vignettes.")] = (
        DataFormat.plain
    ),
    model: Annotated[Path | None, typer.Option(help="Model directory (default: the serving model).")] = None,
    llm_model: Annotated[Path | None, typer.Option(help="Evaluate the llm backend with this instruct model.")] = None,
    urgent_threshold: Annotated[
        float | None, typer.Option(help="Override the model's P(ESI 1-2) threshold (to chart operating points).")
    ] = None,
    resource_step: Annotated[
        ResourceStep | None,
        typer.Option(help="Decision point C: the handbook's resource count, or the model's most probable of 3-5."),
    ] = None,
    reference: Annotated[
        Reference, typer.Option(help="Score the model, the KTAS nurse's own levels, or a constant level.")
    ] = Reference.model,
    constant_level: Annotated[int, typer.Option(help="The level predicted by --reference constant.")] = 4,
    per_case: Annotated[bool, typer.Option(help="List every case: decision point, resources, review.")] = False,
    reliability_plot: Annotated[Path | None, typer.Option(help="Write a reliability diagram (PNG) here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures (and every case) as one JSON object.")] = (
        False
    ),
) -> None:
    """Agreement, ESI 1-2 recall, over-triage, kappa, per decision point, calibration, latency; every case. With
    --format calls: a call set's acceptance figures per kind of call and per language."""
    if data_format is DataFormat.calls:
        loaded = _with_policy(_load_model(model), urgent_threshold, resource_step)
        _evaluate_calls(data, Triager(loaded, llm=_llm(llm_model)), as_json)
        return
    labelled = _read(data, data_format, text_column, label_column)
    if reference is not Reference.model:
        evaluation = _reference_report(data, data_format, labelled, reference, constant_level)
    else:
        loaded = _with_policy(_load_model(model), urgent_threshold, resource_step)
        evaluation = evaluate(Triager(loaded, llm=_llm(llm_model)), labelled.texts, labelled.labels)
    if reliability_plot is not None:
        write_reliability_plot(evaluation, reliability_plot, str(data.name))
    if as_json:
        typer.echo(json.dumps(evaluation.to_json()))
        return
    _print_report(f"{data} ({evaluation.metrics.n} messages)", evaluation, per_case)


@triage_app.command("cv")
def cross_validate(
    data: Annotated[Path, typer.Option(help="The cases to hold out one at a time (e.g. the ESI vignettes).")],
    data_format: Annotated[DataFormat, typer.Option("--format", help="plain CSV, KTAS records or ESI vignettes.")] = (
        DataFormat.esi
    ),
    text_column: Annotated[str | None, typer.Option(help="Column holding the message text.")] = None,
    label_column: Annotated[str | None, typer.Option(help="Column holding the ESI level 1..5.")] = None,
    model: Annotated[Path | None, typer.Option(help="The model whose recipe is retrained (default: serving).")] = None,
    reliability_plot: Annotated[Path | None, typer.Option(help="Write a reliability diagram (PNG) here.")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Fit this many folds at once (processes).")] = 1,
    resource_step: Annotated[
        ResourceStep | None,
        typer.Option(help="Decision point C: the handbook's resource count, or the model's most probable of 3-5."),
    ] = None,
    compare_resource_step: Annotated[
        bool, typer.Option(help="Also decide every fit with the other decision point C, and report both.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures (and every case) as one JSON object.")] = (
        False
    ),
) -> None:
    """Leave-one-out: each case classified by the default recipe retrained without it (the corpus, KTAS ED1 and
    generated messages, plus every other case of --data, weighted by source as the shipped model was; the model's
    temperature and decision policy are kept)."""
    held = _read(data, data_format, text_column, label_column)
    template = _with_policy(_load_model(model), None, resource_step)
    base = default_training_data(generated=int(template.meta.get("n_by_source", {}).get("generated", 6000)))
    keep = [i for i, name in enumerate(base.sources) if name != data_format.value]
    other_step = "model" if template.policy.resource_step == "count" else "count"
    evaluation, alternative = leave_one_out(
        held.texts,
        held.labels,
        [base.texts[i] for i in keep],
        [base.labels[i] for i in keep],
        template,
        progress=lambda done, total: _err.print(f"{done}/{total}", end="\r"),
        jobs=jobs,
        alternative=replace(template.policy, resource_step=other_step) if compare_resource_step else None,
        base_sources=[base.sources[i] for i in keep],
        held_source=data_format.value,
    )
    if reliability_plot is not None:
        write_reliability_plot(evaluation, reliability_plot, f"{data.name} (leave-one-out)")
    if as_json:
        document = evaluation.to_json()
        if alternative is not None:
            document[f"resource_step_{other_step}"] = alternative.to_json(with_cases=False)
        typer.echo(json.dumps(document))
        return
    step = template.policy.resource_step
    _print_report(f"{data}: leave-one-out ({evaluation.metrics.n} cases), C by {step}", evaluation, per_case=False)
    if alternative is not None:
        _print_report(f"the same fits, C by {other_step}", alternative, per_case=False)


def write_reliability_plot(evaluation: EvaluationReport, path: Path, title: str) -> None:
    """Confidence of the most probable level against its accuracy, per bin (the diagonal is perfect calibration)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = evaluation.calibration.bins
    figure, axis = plt.subplots(figsize=(4.5, 4.5), dpi=120)
    axis.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    axis.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], marker="o", label="model")
    for row in bins:
        axis.annotate(str(int(row["n"])), (row["confidence"], row["accuracy"]), fontsize=7, xytext=(3, -9),
                      textcoords="offset points")  # fmt: skip
    axis.set(xlim=(0, 1), ylim=(0, 1), xlabel="confidence (top probability)", ylabel="accuracy",
             title=f"{title}: ECE {evaluation.calibration.ece:.3f}")  # fmt: skip
    axis.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)


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
