"""`triage-dispatch triage context-compare`: our ConText reader (its triggers reviewed as data) against medspaCy's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from app.cli.triage import _load_model, triage_app
from triage_models.callsets import CallSetError
from triage_models.context import ContextReader
from triage_models.context_compare import ReaderFigures, compare_readers
from triage_models.knowledge_base import load_knowledge
from triage_models.negex_eval import NegexDataError, negex_figures, read_negex_set
from triage_models.store import DataError, LabelledData, read_esi_vignettes, shared_data_dir

DEVSETS = Path(__file__).resolve().parents[2] / "triage_models" / "devsets"
CALL_SETS = (DEVSETS / "calls_a.csv", DEVSETS / "calls_b.csv")
CALL_FIGURES = ("in_range", "exact", "within_one", "esi12_recall", "urgent_at_4_5", "minor_at_1_2")
VIGNETTE_FIGURES = ("exact", "within_one", "esi12_recall", "overtriage_rate", "undertriage_rate", "quadratic_kappa")

_out = Console()


def _readers() -> list[ContextReader]:
    """Ours, then medspaCy's ConText (experiencer FAMILY read as not the patient, then ignored)."""
    from triage_models.context_medspacy import MedspacyContext, MedspacyUnavailableError, load_pipeline

    try:
        nlp = load_pipeline()
    except MedspacyUnavailableError as error:
        raise typer.BadParameter(str(error)) from error
    return [load_knowledge().context, MedspacyContext(nlp=nlp), MedspacyContext(family_is_other=False, nlp=nlp)]


def _vignettes(path: Path | None) -> LabelledData | None:
    """The ESI practice vignettes when present (given, or under the shared data directory)."""
    if path is None:
        data_dir = shared_data_dir()
        path = data_dir / "esi" / "esi_handbook_train.csv" if data_dir is not None else None
        if path is None or not path.is_file():
            return None
    try:
        return read_esi_vignettes(path)
    except DataError as error:
        raise typer.BadParameter(str(error), param_hint="--vignettes") from error


def _cell(value: object) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(title: str, names: list[str], rows: list[tuple[str, list[Any]]]) -> Table:
    """One row per figure, one column per reader."""
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for name in names:
        table.add_column(name, justify="right")
    for label, values in rows:
        table.add_row(label, *map(_cell, values))
    return table


def _latency_table(figures: list[ReaderFigures]) -> Table:
    """One row per reader: p50 and p99 per message, and their ratios to the first reader's."""
    latency = [figure.to_json()["latency_ms"] for figure in figures]
    title = f"latency ({latency[0]['n']} messages, one at a time; ratios to {figures[0].reader})"
    table = Table(title=title, title_justify="left")
    for column in ("reader", "p50 ms", "p99 ms", "p50 ratio", "p99 ratio"):
        table.add_column(column, justify="left" if column == "reader" else "right")
    base = latency[0]
    for figure, row in zip(figures, latency, strict=True):
        ratios = [_cell(row[p] / base[p]) if base[p] else "-" for p in ("p50", "p99")]
        table.add_row(figure.reader, _cell(row["p50"]), _cell(row["p99"]), *ratios)
    return table


def _print(figures: list[ReaderFigures]) -> None:
    names = [figure.reader for figure in figures]
    for set_name in figures[0].call_sets:
        reports = [figure.call_sets[set_name] for figure in figures]
        rows = [(column, [report["all"][column] for report in reports]) for column in CALL_FIGURES]
        for kind in reports[0]["by_kind"]:
            rows.append((f"in range: {kind}", [report["by_kind"][kind]["in_range"] for report in reports]))
        _out.print(_table(f"{set_name} ({reports[0]['all']['n']} calls)", names, rows))
    if figures[0].vignettes is not None:
        vignettes = [figure.vignettes or {} for figure in figures]
        rows = [(column, [v[column] for v in vignettes]) for column in VIGNETTE_FIGURES]
        _out.print(_table(f"ESI vignettes ({vignettes[0]['n']})", names, rows))
    _out.print(_latency_table(figures))


@triage_app.command("context-compare")
def context_compare(
    model: Annotated[Path | None, typer.Option(help="Model directory (default: the serving model).")] = None,
    vignettes: Annotated[
        Path | None, typer.Option(help="ESI vignettes CSV (default: esi/esi_handbook_train.csv of the shared data).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every reader's figures as one JSON object.")] = False,
) -> None:
    """Triage the call sets and the ESI vignettes with each context reader (ours, medspaCy's ConText with its
    default rules): accuracy side by side, and latency per message with its ratio to ours. Needs the
    `context-compare` extra."""
    readers = _readers()
    try:
        figures = compare_readers(_load_model(model), readers, CALL_SETS, _vignettes(vignettes))
    except CallSetError as error:
        raise typer.BadParameter(str(error)) from error
    if as_json:
        typer.echo(json.dumps({"readers": [figure.to_json() for figure in figures]}))
        return
    _print(figures)


def _negex_path(path: Path | None) -> Path:
    if path is not None:
        return path
    data_dir = shared_data_dir()
    if data_dir is None:
        raise typer.BadParameter(
            "no shared data directory: give --negex PATH or set TRIAGE_DATA_DIR", param_hint="--negex"
        )
    return data_dir / "negex" / "negex_annotations.tsv"


@triage_app.command("context-eval")
def context_eval(
    negex: Annotated[
        Path | None,
        typer.Option(help="The NegEx annotated set (default: negex/negex_annotations.tsv of the shared data)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as one JSON object.")] = False,
) -> None:
    """Our context reader on the NegEx annotated test set (2,376 sentences of clinical reports): negation and
    historical precision, recall and F1, beside NegEx's and ConText's published outputs for the same sentences."""
    try:
        rows = read_negex_set(_negex_path(negex))
    except NegexDataError as error:
        raise typer.BadParameter(str(error), param_hint="--negex") from error
    figures = negex_figures(load_knowledge().context, rows)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    table = Table(title=f"NegEx annotated set ({figures['n']} findings found in their sentences)", title_justify="left")
    for column in ("question", "reader", "precision", "recall", "F1"):
        table.add_column(column, justify="left" if column in ("question", "reader") else "right")
    for question in ("negation", "historical"):
        for reader, values in figures[question].items():
            table.add_row(question, reader, *(_cell(values[key]) for key in ("precision", "recall", "f1")))
    _out.print(table)
