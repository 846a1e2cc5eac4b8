"""Console sessions: one scrypt per sign-in whoever the user is, the throttle before the password, ending sessions."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.auth.accounts import add_user
from app.auth.signin_throttle import MemoryFailureStore, SignInThrottle, ThrottleConfig
from app.auth.users import disable_user
from app.console.sessions import (
    end_sessions,
    live_session_count,
    principal_for_session,
    sign_in,
    throttled_sign_in,
)
from app.db.migrate import upgrade
from app.db.models import User
from app.db.session import session_scope


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
        add_user(session, "robot", "call-taker")  # API tokens only: no password
        add_user(session, "gone", "dispatcher", "gone-pass-1")
        gone = session.scalar(select(User).where(User.name == "gone"))
        assert gone is not None
        disable_user(session, gone)
    return url


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int, int]]:
    """Every scrypt run, as (n, r, p, salt length)."""
    calls: list[tuple[int, int, int, int]] = []
    real = hashlib.scrypt

    def counted(password: bytes, *, salt: bytes, n: int, r: int, p: int, **kwargs: Any) -> bytes:
        calls.append((n, r, p, len(salt)))
        return real(password, salt=salt, n=n, r=r, p=p, **kwargs)

    monkeypatch.setattr(hashlib, "scrypt", counted)
    return calls


@pytest.mark.parametrize(
    ("name", "password"),
    [
        ("dana", "wrong-password"),
        ("nobody", "wrong-password"),  # unknown
        ("robot", "wrong-password"),  # no password
        ("gone", "gone-pass-1"),  # disabled: even the right password
    ],
)
def test_a_refused_sign_in_runs_scrypt_once_at_the_real_cost(
    url: str, scrypt_calls: list[tuple[int, int, int, int]], name: str, password: str
) -> None:
    with session_scope(url) as session:
        assert sign_in(session, name, password) is None
    assert scrypt_calls == [(2**14, 8, 1, 16)]


def test_the_right_password_signs_in_with_one_scrypt(url: str, scrypt_calls: list[tuple[int, int, int, int]]) -> None:
    with session_scope(url) as session:
        token = sign_in(session, "dana", "dispatch-pass")
    assert token is not None and scrypt_calls == [(2**14, 8, 1, 16)]


def test_a_throttled_attempt_is_refused_before_the_password_is_checked(
    url: str, scrypt_calls: list[tuple[int, int, int, int]]
) -> None:
    gate = SignInThrottle(MemoryFailureStore(), ThrottleConfig(account_failures=2), clock=lambda: 500.0)
    with session_scope(url) as session:
        results = [throttled_sign_in(session, gate, "dana", "wrong-password", "10.0.0.1") for _ in range(2)]
        right = throttled_sign_in(session, gate, "dana", "dispatch-pass", "10.0.0.1")
    assert [(r.token, r.retry_after_s) for r in results] == [(None, 0), (None, 0)]
    assert (right.token, right.retry_after_s) == (None, 60)
    assert len(scrypt_calls) == 2  # the throttled attempt ran none


def test_a_success_resets_the_account_count(url: str) -> None:
    gate = SignInThrottle(MemoryFailureStore(), ThrottleConfig(account_failures=2), clock=lambda: 500.0)
    with session_scope(url) as session:
        assert throttled_sign_in(session, gate, "dana", "wrong-password", "10.0.0.1").token is None
        assert throttled_sign_in(session, gate, "dana", "dispatch-pass", "10.0.0.1").token is not None
        assert throttled_sign_in(session, gate, "dana", "wrong-password", "10.0.0.1").retry_after_s == 0
        assert throttled_sign_in(session, gate, "dana", "dispatch-pass", "10.0.0.1").token is not None


def test_ending_a_users_sessions_counts_the_live_ones_and_signs_them_out(url: str) -> None:
    with session_scope(url) as session:
        token = sign_in(session, "dana", "dispatch-pass")
    assert token is not None
    with session_scope(url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        assert live_session_count(session, dana) == 1
        assert end_sessions(session, dana) == 1
    with session_scope(url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None
        assert (live_session_count(session, dana), end_sessions(session, dana)) == (0, 0)
        # a fresh token (never cached): the database says ended
        assert principal_for_session(session, token) is None


def test_a_new_sign_in_ends_the_user_s_older_sessions(url: str) -> None:
    """One live session per user: a session left open on a shared screen ends when its user signs in anywhere."""
    with session_scope(url) as session:
        first = sign_in(session, "dana", "dispatch-pass")
        assert first is not None and principal_for_session(session, first) is not None  # cached as signed in
    with session_scope(url) as session:
        second = sign_in(session, "dana", "dispatch-pass")
    with session_scope(url) as session:
        dana = session.scalar(select(User).where(User.name == "dana"))
        assert dana is not None and live_session_count(session, dana) == 1
        assert principal_for_session(session, first) is None  # at once in this process, despite the 2 s cache
        assert principal_for_session(session, second) is not None
