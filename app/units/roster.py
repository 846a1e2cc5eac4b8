"""The roster: units added one by one or from a file (TOML or CSV), and listed."""

from __future__ import annotations

import csv
import io
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import IncidentEvent, Unit, UnitStatus, utcnow

UNIT_KINDS = ("ambulance", "medic", "engine", "ladder", "rescue", "squad", "supervisor", "helicopter")
"""The unit types the floor dispatches (a medic is an advanced-life-support unit; an ambulance basic)."""
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 -]{0,31}$")
"""A call sign: letters, digits, spaces and hyphens, 32 characters at most ("M12", "Engine 4")."""
STATION_LIMIT = 64


class RosterError(ValueError):
    """A unit or a roster file that cannot be used (named, with the reason)."""


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A unit as a roster file or the command line gives it."""

    name: str
    kind: str
    station: str = ""


def checked(spec: UnitSpec, where: str = "") -> UnitSpec:
    """The spec with its fields trimmed, if usable; else `RosterError` naming the field (and `where`: a file's row)."""
    name, kind, station = spec.name.strip(), spec.kind.strip().lower(), spec.station.strip()
    at = f"{where}: " if where else ""
    if not NAME.fullmatch(name):
        raise RosterError(f"{at}unit name {spec.name!r}: letters, digits, spaces and hyphens, 1-32 characters")
    if kind not in UNIT_KINDS:
        raise RosterError(f"{at}unit {name}: type {spec.kind!r} is not one of {', '.join(UNIT_KINDS)}")
    if len(station) > STATION_LIMIT or any(not ch.isprintable() for ch in station):
        raise RosterError(f"{at}unit {name}: the station must be printable, {STATION_LIMIT} characters at most")
    return UnitSpec(name, kind, station)


def read_roster(path: Path) -> list[UnitSpec]:
    """The units of a roster file: TOML (`[[unit]]` tables with `name`, `type`, `station`) or CSV (a header row
    `name,type,station`). Every unit is checked; a name twice in the file is refused."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".toml":
        specs = _from_toml(text, path.name)
    elif path.suffix.lower() == ".csv":
        specs = _from_csv(text, path.name)
    else:
        raise RosterError(f"{path.name}: a roster is a .toml or a .csv file")
    seen: set[str] = set()
    for spec in specs:
        if spec.name.lower() in seen:
            raise RosterError(f"{path.name}: unit {spec.name} is listed twice")
        seen.add(spec.name.lower())
    return specs


def _from_toml(text: str, name: str) -> list[UnitSpec]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RosterError(f"{name}: not TOML: {error}") from None
    rows = data.get("unit")
    if not isinstance(rows, list) or not rows:
        raise RosterError(f"{name}: no [[unit]] tables")
    specs = []
    for index, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not isinstance(row.get("name"), str) or not isinstance(row.get("type"), str):
            raise RosterError(f"{name}: unit {index}: needs a name and a type (strings)")
        station = row.get("station", "")
        specs.append(checked(UnitSpec(row["name"], row["type"], str(station)), f"{name}: unit {index}"))
    return specs


def _from_csv(text: str, name: str) -> list[UnitSpec]:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or not {"name", "type"} <= {field.strip() for field in reader.fieldnames}:
        raise RosterError(f"{name}: the first row must name the columns: name,type,station")
    specs = []
    for line, row in enumerate(reader, start=2):
        row = {key.strip(): (value or "") for key, value in row.items() if key is not None}
        specs.append(checked(UnitSpec(row["name"], row["type"], row.get("station", "")), f"{name}: line {line}"))
    if not specs:
        raise RosterError(f"{name}: no units")
    return specs


def add_units(session: Session, specs: Sequence[UnitSpec], actor: str) -> tuple[int, int]:
    """Add the units (a known one gets its type and station updated; its status is kept); audited. (added,
    updated)."""
    added = updated = 0
    for spec in (checked(spec) for spec in specs):
        unit = session.get(Unit, spec.name)
        if unit is None:
            session.add(Unit(name=spec.name, kind=spec.kind, station=spec.station, status_at=utcnow()))
            added += 1
            _audit(session, actor, "unit_added", {}, {"unit": spec.name, "type": spec.kind, "station": spec.station})
        elif (unit.kind, unit.station) != (spec.kind, spec.station):
            before = {"unit": unit.name, "type": unit.kind, "station": unit.station}
            unit.kind, unit.station = spec.kind, spec.station
            updated += 1
            _audit(
                session, actor, "unit_updated", before, {"unit": unit.name, "type": unit.kind, "station": unit.station}
            )
    return added, updated


def _audit(session: Session, actor: str, action: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    session.add(IncidentEvent(incident_id=None, actor=actor, action=action, before=before, after=after))


def roster(session: Session) -> list[Unit]:
    """Every unit, available ones first, then by name."""
    units = session.scalars(select(Unit).order_by(Unit.name)).all()
    return sorted(units, key=lambda unit: (unit.status != UnitStatus.AVAILABLE, unit.name))
