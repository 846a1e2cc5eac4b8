"""The console shows a triage that needs review (queue badge with the reason, incident line, resources) on data
as `classify_incident` stores it, and a dispatcher's override resolves the review."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.auth.accounts import Principal
from app.console.render import render_incident, render_queue
from app.console.service import incident_detail, open_queue, override_checked
from app.db.migrate import upgrade
from app.db.models import Role
from app.db.session import session_factory, session_scope
from app.incidents.overrides import record_override
from app.incidents.pipeline import store_message
from app.intake.schemas import IntakeMessage
from tests.app.console.pages import row_html
from tests.app.triage_stub import REVIEW_REASON, REVIEW_TEXT, classify_with, plain_result, review_result

DISPATCHER = Principal("dana", Role.DISPATCHER)
REVIEW_BADGE = (
    '<span class="esi esi-2" style="background:#e65100">ESI 2</span>'
    f'<span class="review" title="{REVIEW_REASON}">review</span>'
)


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'review.db'}"
    upgrade(url)
    return url


@pytest.fixture
def classified(url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Two incidents classified by `classify_incident`: one that needs review, one confident ESI 4."""
    ids = {}
    for name, text in (("review", REVIEW_TEXT), ("plain", "Twisted ankle, walking on it")):
        with session_scope(url) as session:
            ids[name], _ = store_message(session, "cad", f"w-{name}", IntakeMessage(text=text))
    classify_with(monkeypatch, url, ids["review"], review_result())
    classify_with(monkeypatch, url, ids["plain"], plain_result(4))
    return ids


@pytest.fixture
def session(url: str) -> Iterator[Session]:
    with session_factory(url)() as db:
        yield db


def test_the_queue_row_shows_a_review_badge_beside_the_esi_badge_with_the_reason(
    session: Session, classified: dict[str, str]
) -> None:
    rows = open_queue(session)
    assert [(row.incident_id, row.review_pending, row.review_reason) for row in rows] == [
        (classified["review"], True, REVIEW_REASON),
        (classified["plain"], False, ""),
    ]
    page = render_queue(rows)
    assert f'data-esi="2"><td>{REVIEW_BADGE}</td>' in row_html(page, classified["review"])
    plain = row_html(page, classified["plain"])
    assert 'data-esi="4"><td><span class="esi esi-4" style="background:#2e7d32">ESI 4</span></td>' in plain
    assert 'class="review"' not in plain


def test_the_incident_view_says_why_and_lists_the_resources_with_their_words(
    session: Session, classified: dict[str, str]
) -> None:
    view, _, history = render_incident(incident_detail(session, classified["review"]))
    assert f'<p class="review-line">Triage needs review: {REVIEW_REASON}</p>' in view
    assert '<p class="resources">Resources (2): imaging \u2039x-ray\u203a, labs \u2039blood work\u203a</p>' in view
    # The red flag stored as "span": [start, end] is marked in the message.
    assert '<mark title="chest pain: consider ESI 2">chest pain</mark>' in view
    assert (
        "<td>classifier</td><td class='action'>triaged</td><td>ESI level: none → 2; needs review: yes; "
        f"triage model: stub-1</td><td class='reason'>{REVIEW_REASON}</td>"
    ) in history
    plain, _, _ = render_incident(incident_detail(session, classified["plain"]))
    assert "review" not in plain and "Resources" not in plain


def test_an_override_resolves_the_review(session: Session, classified: dict[str, str]) -> None:
    incident = override_checked(session, DISPATCHER, classified["review"], 2, "checked: ESI 2 is right")
    record_override(session, incident, 2, "checked: ESI 2 is right", DISPATCHER.name)
    session.commit()
    rows = open_queue(session)
    assert [row.review_pending for row in rows] == [False, False]
    row = row_html(render_queue(rows), classified["review"])
    assert 'class="review"' not in row
    assert '<span class="esi esi-2" style="background:#e65100" title="overridden by a dispatcher">ESI 2 ✎</span>' in row
    view, _, _ = render_incident(incident_detail(session, classified["review"]))
    assert "Triage needs review" not in view
    assert (
        f'<p class="review-line resolved">Triage needed review: {REVIEW_REASON} · resolved by a dispatcher\'s '
        "override (ESI 2)</p>"
    ) in view
    assert "Resources (2): imaging" in view
