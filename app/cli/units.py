"""`triage-dispatch units add | list | import | status`: the units the floor dispatches, and their status."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated

import typer

units_app = typer.Typer(
    help="Units (ambulances, engines, ...): the roster and each unit's status.", no_args_is_help=True
)
CLI_ACTOR = "system:cli"
"""Who the audit names for a change made from the command line."""


def _database_url() -> str:
    from app.cli.ops import checked_settings

    return checked_settings().database_url


@units_app.command("add")
def units_add(
    name: str,
    unit_type: Annotated[str, typer.Option("--type", help="ambulance, medic, engine, ladder, rescue, ...")],
    station: Annotated[str, typer.Option(help="Its station (free text).")] = "",
) -> None:
    """Add a unit (or change a known one's type and station); audited."""
    from app.db.session import session_scope
    from app.units.roster import RosterError, UnitSpec, add_units

    try:
        with session_scope(_database_url()) as session:
            added, _ = add_units(session, [UnitSpec(name, unit_type, station)], CLI_ACTOR)
    except RosterError as error:
        raise typer.BadParameter(str(error)) from None
    typer.echo(f"unit {name.strip()} {'added' if added else 'updated'}")


@units_app.command("import")
def units_import(path: Path) -> None:
    """Add every unit of a roster file (TOML `[[unit]]` tables, or CSV with a `name,type,station` header); the
    whole file is checked first, and nothing is added when a row is wrong."""
    from app.db.session import session_scope
    from app.units.roster import RosterError, add_units, read_roster

    try:
        specs = read_roster(path)
        with session_scope(_database_url()) as session:
            added, updated = add_units(session, specs, CLI_ACTOR)
    except (RosterError, OSError) as error:
        raise typer.BadParameter(str(error), param_hint="PATH") from None
    typer.echo(f"{len(specs)} units in {path.name}: {added} added, {updated} updated")


@units_app.command("list")
def units_list() -> None:
    """Every unit: name, type, station, status, since when (UTC) and its call."""
    from app.db.session import session_scope
    from app.units.roster import roster

    with session_scope(_database_url()) as session:
        rows = [
            (unit.name, unit.kind, unit.station, unit.status, _since(unit.status_at), (unit.incident_id or "")[:8])
            for unit in roster(session)
        ]
    table = [("UNIT", "TYPE", "STATION", "STATUS", "SINCE", "CALL"), *rows]
    widths = [max(len(row[column]) for row in table) for column in range(len(table[0]))]
    for row in table:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def _since(at: dt.datetime) -> str:
    return at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")


@units_app.command("status")
def units_status(
    name: str,
    status: Annotated[str, typer.Argument(help="en route, on scene, transporting, at hospital, back in service")],
) -> None:
    """Move a unit on (as its crew radios in); timed and audited on its call."""
    from app.db.session import session_scope
    from app.incidents.errors import ActionError
    from app.units.dispatching import change_unit_status

    try:
        with session_scope(_database_url()) as session:
            unit = change_unit_status(session, name, status, CLI_ACTOR)
            now = unit.status
    except ActionError as error:
        raise typer.BadParameter(str(error)) from None
    typer.echo(f"unit {name}: {now}")
