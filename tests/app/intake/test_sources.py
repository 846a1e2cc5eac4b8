"""Sources' state on both databases: suspension, rotated secrets and their grace, and what intake then accepts."""

from __future__ import annotations

import base64
import datetime as dt
from pathlib import Path

import pytest

from app.db.session import session_scope
from app.intake.sources import (
    UnknownSourceError,
    resume_source,
    rotate_secret,
    source_states,
    suspend_source,
)
from app.settings import Settings
from tests.app.triage_stub import fresh_database

CAD = "whsec_" + base64.b64encode(b"cad-vendor-secret-32-random-byte").decode()
PAGER = "whsec_" + base64.b64encode(b"pager-gateway-secret-32-random!!").decode()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_suspension_and_rotation_are_what_intake_reads(
    request: pytest.FixtureRequest, tmp_path: Path, backend: str
) -> None:
    url = fresh_database(request, tmp_path, backend)
    settings = Settings(database_url=url, webhook_secrets={"cad": [CAD], "pager": [PAGER]})
    with session_scope(url) as session:
        assert {name: state.secrets for name, state in source_states(session, settings).items()} == {
            "cad": (CAD,),
            "pager": (PAGER,),
        }
        assert suspend_source(session, settings, "pager", "flooding") is True
        first = rotate_secret(session, settings, "cad", dt.timedelta(hours=1))
    with session_scope(url) as session:
        states = source_states(session, settings)
        # The first secret now has 2 hours of grace; the configured one keeps its hour (a grace is never lengthened).
        second = rotate_secret(session, settings, "cad", dt.timedelta(hours=2))
    assert (states["pager"].suspended, states["pager"].suspended_reason) == (True, "flooding")
    assert "flooding" in states["pager"].refusal()
    assert (states["cad"].secrets, states["cad"].rotated_secrets, states["cad"].suspended) == ((first, CAD), 1, False)

    def at(minutes: int) -> tuple[str, ...]:
        return source_states(session, settings, dt.datetime.now(dt.UTC) + dt.timedelta(minutes=minutes))["cad"].secrets

    with session_scope(url) as session:
        assert (at(59), at(61), at(121)) == ((second, first, CAD), (second, first), (second,))
        assert resume_source(session, settings, "pager") is True
        assert resume_source(session, settings, "pager") is False
    with session_scope(url) as session:
        assert source_states(session, settings)["pager"].suspended is False
        with pytest.raises(UnknownSourceError, match="no source 'fax'"):
            suspend_source(session, settings, "fax", "")


def test_a_secret_two_sources_hold_verifies_neither_and_says_so(
    request: pytest.FixtureRequest, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The settings refuse two sources sharing a secret, and `rotate-secret` one another source holds; a source
    configured with another's rotated secret (copied into TRIAGE_WEBHOOK_SECRETS by hand) gets it refused for both."""
    url = fresh_database(request, tmp_path, "sqlite")
    settings = Settings(database_url=url, webhook_secrets={"cad": [CAD], "pager": [PAGER]})
    with session_scope(url) as session:
        rotated = rotate_secret(session, settings, "cad", dt.timedelta(hours=1))
    copied = settings.model_copy(update={"webhook_secrets": {"cad": [CAD], "pager": [PAGER, rotated]}})
    with session_scope(url) as session:
        states = source_states(session, copied)
    assert (states["cad"].secrets, states["pager"].secrets) == ((CAD,), (PAGER,))
    assert "a secret is held by sources cad and pager: refused for both until one gets its own" in caplog.text
    assert rotated.removeprefix("whsec_")[:12] not in caplog.text
