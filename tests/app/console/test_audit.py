"""The audit in people's words, on events as the product stores them: users by name, incidents by short id and
complaint, in the table and in its CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.console.audit import CSV_COLUMNS, audit_csv, audit_entries, complaint_label, export_link, short_id
from app.console.service import audit_events, claim, new_message, override_checked
from app.db.migrate import upgrade
from app.db.models import Role, User
from app.db.session import session_factory
from app.incidents.overrides import record_override
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage

DISPATCHER = Principal("dana", Role.DISPATCHER)
SUPERVISOR = Principal("sue", Role.SUPERVISOR)
CALL_TAKER = Principal("carl", Role.CALL_TAKER)
CALL = "My father has crushing chest pain spreading to his left arm and he is sweating a lot, started ten minutes ago"


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    upgrade(url)
    with session_factory(url)() as db:
        for principal in (DISPATCHER, SUPERVISOR, CALL_TAKER):
            db.add(User(name=principal.name, role=principal.role.value))
        db.commit()
        yield db


def test_the_audit_names_users_and_incidents_by_short_id_and_complaint(session: Session) -> None:
    incident_id, _ = store_message(session, "cad", "audit-w1", IntakeMessage(text=CALL, caller="son"))
    claim(session, DISPATCHER, incident_id)
    incident = override_checked(session, DISPATCHER, incident_id, 1, "sweating and grey")
    record_override(session, incident, 1, "sweating and grey", DISPATCHER.name)
    session.commit()

    entries = audit_entries(session, audit_events(session, SUPERVISOR, incident_id=short_id(incident_id)))

    label = f"{incident_id[:8]} · My father has crushing chest pain spreading to his left arm…"
    assert [entry.table_row()[1:] for entry in entries] == [
        [label, "dana", "ESI override", "ESI level: none → 1", "sweating and grey"],
        [label, "dana", "claimed", "status: new → claimed; claimed by: none → dana", ""],
        [label, "intake (cad)", "call received", "", ""],
    ]
    dana_id = session.query(User.id).filter(User.name == "dana").scalar()
    assert all(dana_id not in cell for entry in entries for cell in entry.table_row())


def test_the_audit_csv_reads_as_the_table_then_the_record_with_names(session: Session) -> None:
    incident_id, _ = store_message(session, "cad", "audit-w2", IntakeMessage(text="=cmd fell off a ladder"))
    claim(session, DISPATCHER, incident_id)
    session.commit()

    entries = audit_entries(session, audit_events(session, SUPERVISOR, action="claim"))
    rows = list(csv.reader(io.StringIO(audit_csv(entries))))

    assert rows[0] == CSV_COLUMNS
    assert len(rows) == 2
    when, *cells = rows[1]
    assert when == entries[0].at.astimezone().isoformat(timespec="seconds")
    assert cells == [
        f"{incident_id[:8]} · =cmd fell off a ladder",
        "dana",
        "claimed",
        "status: new → claimed; claimed by: none → dana",
        "",
        incident_id,
        "status=new; claimed_by=none",
        "status=claimed; claimed_by=dana",
    ]


def test_a_typed_call_is_received_from_the_console_source_typed_by_its_user_and_found_under_the_user(
    session: Session,
) -> None:
    typed = new_message(session, CALL_TAKER, "Child not breathing at the pool", "mother", "")
    store_message(session, "cad", "audit-w3", IntakeMessage(text="Fell off a ladder"))
    claim(session, DISPATCHER, typed)
    session.commit()

    carl = audit_entries(session, audit_events(session, SUPERVISOR, actor="carl"))
    assert [entry.table_row()[2:] for entry in carl] == [["intake (console)", "call received", "typed by: carl", ""]]
    assert carl[0].incident_id == typed and "entered_by=carl" in carl[0].recorded_after
    console = audit_entries(session, audit_events(session, SUPERVISOR, actor="system:intake:console"))
    assert [entry.incident_id for entry in console] == [typed]


def test_a_complaint_is_cut_at_a_word_and_an_empty_one_says_so() -> None:
    assert complaint_label("chest pain") == "chest pain"
    assert complaint_label("word " * 20) == "word " * 11 + "word…"  # 60 characters at most
    assert complaint_label(None) == "no complaint recorded"


def test_the_export_link_says_how_many_events_and_when_older_ones_were_left_out() -> None:
    link = export_link("tok", 15, 5)
    assert link == (
        '<a href="/console/exports/tok" download="audit.csv" id="audit-csv-link" class="download-button">'
        "Download these events (CSV)</a> (15 events; one download, within 5 minutes)"
    )
    assert export_link("tok", 5000, 5).endswith(
        "(the newest 5000 events: narrow the search for older ones; one download, within 5 minutes)"
    )


def test_the_checker_s_refusal_is_one_line_in_the_table_and_in_full_in_the_csv(session: Session) -> None:
    from app.db.models import IncidentEvent

    incident_id, _ = store_message(session, "cad", "w-check", IntakeMessage(text=CALL))
    reason = "checker: missing section: no KEY FACTS: section; contradicts the card: says 'stop pushing'"
    after = {"check": "refused", "failures": ["missing-section", "contradiction"]}
    session.add(
        IncidentEvent(
            incident_id=incident_id, actor="system:checker", action="guidance_check", after=after, reason=reason
        )
    )
    session.commit()
    entries = audit_entries(session, audit_events(session, SUPERVISOR, action="guidance_check"))
    assert [entry.table_row()[-1] for entry in entries] == [
        "refused: missing section, contradicts the card; read the protocol card"
    ]
    [row] = list(csv.DictReader(io.StringIO(audit_csv(entries))))
    assert row["reason"] == reason
