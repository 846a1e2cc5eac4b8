"""`triage-dispatch triage retrain|promote`: a candidate model from dispatchers' overrides, and its promotion."""

from __future__ import annotations

import datetime as dt
import json
import logging
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.cli.triage import DataFormat, triage_app
from app.db.models import Incident, IncidentEvent
from app.db.session import session_scope
from app.settings import get_settings
from scheduler.policy import ESI_LEVELS
from triage_models.pipeline import TriageModel
from triage_models.retrain import (
    OVERRIDE_WEIGHT,
    VALIDATION_SEED,
    VALIDATION_SIZE,
    OverrideLabel,
    compare,
    fit_triage_model,
    fixed_validation_data,
    install_model,
    overrides_since,
    predict_levels,
    previous_dir,
    promotion_gate,
    retrain,
)
from triage_models.store import (
    DEFAULT_TRAINING_SIZE,
    DataError,
    LabelledData,
    default_model_dir,
    default_training_data,
    load_or_train_default,
    read_ktas,
    read_labelled_csv,
    stale_versions,
)

log = logging.getLogger(__name__)
_out = Console()

ValidationOption = Annotated[
    Path | None,
    typer.Option(help=f"CSV to validate on (default: {VALIDATION_SIZE} generated, seed {VALIDATION_SEED})."),
]
FormatOption = Annotated[DataFormat, typer.Option("--format", help="plain CSV, or KTAS records.")]
TextColumnOption = Annotated[str | None, typer.Option(help="Column holding the message text (--format plain).")]
LabelColumnOption = Annotated[str | None, typer.Option(help="Column holding the ESI level 1..5 (--format plain).")]


def override_labels(session: Session) -> list[OverrideLabel]:
    """Each overridden incident's original message with the dispatcher's final level: the `after` level of its
    latest override event, dated by that event."""
    rows = session.execute(
        select(IncidentEvent.incident_id, IncidentEvent.after, IncidentEvent.created_at, Incident.text)
        .join(Incident, Incident.id == IncidentEvent.incident_id)
        .where(IncidentEvent.action == "override")
        .order_by(IncidentEvent.created_at, IncidentEvent.id)
    ).all()
    latest: dict[str, OverrideLabel] = {}
    for incident_id, after, created_at, text in rows:
        if incident_id is None:
            continue
        esi_level = (after or {}).get("esi_level")
        if not isinstance(esi_level, int) or esi_level not in ESI_LEVELS or not text.strip():
            log.warning("override of incident %s has no usable level (%r) or text; skipped", incident_id, esi_level)
            continue
        latest[incident_id] = OverrideLabel(text, esi_level, created_at)
    return list(latest.values())


def serving_model_dir() -> Path:
    """Where the serving model lives: `TRIAGE_MODEL_DIR` (settings), else the default cache directory."""
    return get_settings().model_dir or default_model_dir()


def _validation(
    path: Path | None, data_format: DataFormat, text_column: str | None, label_column: str | None
) -> tuple[LabelledData, str]:
    """The validation set and a name for it."""
    if path is None:
        return fixed_validation_data(), f"generated:n={VALIDATION_SIZE}:seed={VALIDATION_SEED}"
    try:
        if data_format is DataFormat.ktas:
            return read_ktas(path), str(path)
        if not text_column or not label_column:
            raise typer.BadParameter("--text-column and --label-column are required for --format plain")
        return read_labelled_csv(path, text_column, label_column), str(path)
    except DataError as error:
        raise typer.BadParameter(str(error), param_hint="--validation") from error


def _same_dir(first: Path, second: Path) -> bool:
    return first.expanduser().resolve() == second.expanduser().resolve()


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _print_table(title: str, comparison: dict[str, Any], candidate_name: str, agreement: bool) -> None:
    table = Table(title=title, title_justify="left")
    table.add_column("figure")
    table.add_column("serving", justify="right")
    table.add_column(candidate_name, justify="right")
    serving, candidate = comparison["serving"], comparison["candidate"]
    table.add_row("n", str(serving["n"]), str(candidate["n"]))
    for name in ("exact", "within_one", "esi12_recall", "overtriage_rate"):
        table.add_row(name, _figure(serving[name]), _figure(candidate[name]))
    if agreement:
        table.add_row("agrees with dispatcher", _figure(serving["exact"]), _figure(candidate["exact"]))
    _out.print(table)


def print_report(report: dict[str, Any]) -> None:
    """The report as readable tables: validation set, then the held-out overrides."""
    overrides = report["overrides"]
    _out.print(
        f"candidate {report['candidate']['version']} from {overrides['used']} overrides "
        f"(each weighted x{overrides['weight']}) + {report['base_training']['n']} base messages; "
        f"serving {report['serving']['version']}"
    )
    _print_table(f"validation: {report['validation']['source']}", report["validation"], "candidate", False)
    if report["held_out_overrides"] is None:
        _out.print("held-out overrides: none (fewer than 5 overrides; all were trained on)")
        return
    title = f"{overrides['held_out']} newest overrides, held out by time"
    _print_table(title, report["held_out_overrides"], "held-out fit", True)
    _out.print(report["note"])


def _learn(
    out: Path,
    serving_dir: Path,
    since: dt.datetime | None,
    base_mix: tuple[int, bool],
    validation_data: LabelledData,
    validation_source: str,
) -> dict[str, Any]:
    """Read the overrides, build and compare the candidate, write it and report.json; the report. `base_mix`: the
    generated messages and whether the call corpus is in the base data."""
    generated, corpus = base_mix
    with session_scope(get_settings().database_url) as session:
        overrides = overrides_since(override_labels(session), since)
    if not overrides:
        typer.echo(f"no overrides to learn from{f' since {since:%Y-%m-%d %H:%M}' if since else ''}", err=True)
        raise typer.Exit(1)
    base = default_training_data(generated=generated, corpus=corpus)
    trained_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    source = f"overrides:{len(overrides)}x{OVERRIDE_WEIGHT} + base:{len(base.texts)}"
    serving = load_or_train_default(serving_dir)
    result = retrain(
        base,
        overrides,
        serving,
        validation_data,
        fit=lambda data: fit_triage_model(data, source, trained_at),
        predict=predict_levels,
    )
    report = result.report()
    report["overrides"]["since"] = since.isoformat() if since else None
    report["validation"]["source"] = validation_source
    report["base_training"] = {"n": len(base.texts), "generated": generated, "corpus": corpus}
    report["candidate"] = {"version": result.candidate.version, "dir": str(out), "trained_at": trained_at}
    report["serving"] = {"version": serving.version, "dir": str(serving_dir)}
    result.candidate.save(out)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


@triage_app.command("retrain")
def retrain_command(
    out: Annotated[Path, typer.Option(help="Directory to write the candidate model and report.json to.")],
    from_overrides: Annotated[
        bool, typer.Option("--from-overrides", help="Learn from the dispatchers' overrides in the audit log.")
    ] = False,
    since: Annotated[dt.datetime | None, typer.Option(help="Only overrides set at or after this date (UTC).")] = None,
    generated: Annotated[int, typer.Option(help="Generated messages in the base training data.")] = (
        DEFAULT_TRAINING_SIZE
    ),
    corpus: Annotated[
        bool, typer.Option("--corpus/--no-corpus", help="The call corpus in the base data, as the shipped model has.")
    ] = True,
    validation: ValidationOption = None,
    data_format: FormatOption = DataFormat.plain,
    text_column: TextColumnOption = None,
    label_column: LabelColumnOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Build a candidate model from the dispatchers' overrides plus the base data; report it against the serving
    model. Each override label counts 5 times; the newest 20 % are held out (by time) for the report's agreement
    figures, then the written candidate is refit on all overrides."""
    if not from_overrides:
        raise typer.BadParameter("say what to learn from: --from-overrides")
    serving_dir = serving_model_dir()
    if _same_dir(out, serving_dir):
        raise typer.BadParameter(
            f"{out} is the serving model directory; write the candidate elsewhere", param_hint="--out"
        )
    validation_data, validation_source = _validation(validation, data_format, text_column, label_column)
    report = _learn(out, serving_dir, since, (generated, corpus), validation_data, validation_source)
    if as_json:
        typer.echo(json.dumps(report))
        return
    print_report(report)
    _out.print(f"written to {out}; promote with `triage-dispatch triage promote {out}`")


def _load_candidate(directory: Path) -> TriageModel:
    try:
        return TriageModel.load(directory)
    except (FileNotFoundError, ValueError) as error:
        raise typer.BadParameter(str(error), param_hint="DIR") from error


@triage_app.command("promote")
def promote_command(
    candidate_dir: Annotated[Path, typer.Argument(metavar="DIR", help="A candidate written by `triage retrain`.")],
    validation: ValidationOption = None,
    data_format: FormatOption = DataFormat.plain,
    text_column: TextColumnOption = None,
    label_column: LabelColumnOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the decision as one JSON object.")] = False,
) -> None:
    """Make the candidate the serving model, only if its ESI 1-2 recall on the validation set is not below the
    serving model's (both re-evaluated now); the old model is kept as `<dir>.previous`."""
    serving_dir = serving_model_dir()
    if _same_dir(candidate_dir, serving_dir):
        raise typer.BadParameter(f"{candidate_dir} is already the serving model directory", param_hint="DIR")
    candidate = _load_candidate(candidate_dir)
    stale = stale_versions(candidate.meta)
    if stale:
        typer.echo(f"refused: the candidate was built for {', '.join(stale)}; retrain it", err=True)
        raise typer.Exit(1)
    validation_data, validation_source = _validation(validation, data_format, text_column, label_column)
    serving = load_or_train_default(serving_dir)
    comparison = compare(serving, candidate, validation_data, predict_levels)
    decision = promotion_gate(comparison.serving, comparison.candidate)
    details = {
        **decision.to_json(),
        "validation": validation_source,
        "candidate_version": candidate.version,
        "serving_version": serving.version,
        "serving_dir": str(serving_dir),
    }
    if decision.promote:
        install_model(candidate_dir, serving_dir)
        details["previous_dir"] = str(previous_dir(serving_dir))
        log.warning(
            "audit: triage model promoted: %s replaces %s in %s (%s; validation %s)",
            candidate.version,
            serving.version,
            serving_dir,
            decision.reason,
            validation_source,
        )
    else:
        log.info("triage model not promoted: %s (%s)", decision.reason, candidate_dir)
    if as_json:
        typer.echo(json.dumps(details))
    else:
        typer.echo(f"{decision.reason} on {validation_source}", err=not decision.promote)
        if decision.promote:
            typer.echo(f"{serving_dir} now serves {candidate.version}; the old model is in {previous_dir(serving_dir)}")
    if not decision.promote:
        raise typer.Exit(1)
