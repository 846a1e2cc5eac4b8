"""`triage-dispatch users ...` through the real Typer app: add, token, list, disable, enable, revoke-tokens,
end-sessions; never a hash, a token (but the one issued) or a secret in the output."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.auth.accounts import principal_for_token
from app.cli.main import cli
from app.console.sessions import sign_in
from app.db.migrate import upgrade
from app.db.session import session_scope
from app.settings import get_settings
from tests.app.cli_output import contains, plain

runner = CliRunner()


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'users.db'}"
    upgrade(url)
    monkeypatch.setenv("TRIAGE_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(cli, ["users", *args])
    return result.exit_code, result.output


def add_dana_with_a_token_and_a_session(url: str) -> str:
    assert invoke("add", "dana", "--role", "dispatcher", "--password", "dispatch-pass") == (
        0,
        "user dana (dispatcher) added\n",
    )
    code, token = invoke("token", "dana", "--label", "cad")
    assert code == 0
    with session_scope(url) as session:
        assert sign_in(session, "dana", "dispatch-pass") is not None
    return token.strip()


def test_list_shows_role_status_and_live_counts_never_a_hash_or_token(url: str) -> None:
    token = add_dana_with_a_token_and_a_session(url)
    assert invoke("add", "robot", "--role", "call-taker", "--no-password")[0] == 0
    code, output = invoke("list")
    assert code == 0
    assert output.splitlines() == [
        "NAME   ROLE        STATUS  TOKENS  SESSIONS",
        "dana   dispatcher  active  1       1",
        "robot  call-taker  active  0       0",
    ]
    assert "scrypt" not in output and token not in output


def test_disable_revokes_tokens_ends_sessions_and_says_how_many(url: str) -> None:
    token = add_dana_with_a_token_and_a_session(url)
    assert invoke("disable", "dana") == (0, "user dana disabled: 1 API token revoked, 1 console session ended\n")
    assert invoke("disable", "dana") == (
        0,
        "user dana was already disabled: 0 API tokens revoked, 0 console sessions ended\n",
    )
    code, output = invoke("list")
    assert code == 0 and output.splitlines()[1].startswith("dana  dispatcher  disabled 20")
    assert output.splitlines()[1].endswith("UTC  0       0")
    with session_scope(url) as session:
        assert principal_for_token(session, token) is None
        assert sign_in(session, "dana", "dispatch-pass") is None
    assert invoke("enable", "dana") == (0, "user dana enabled\n")
    assert invoke("enable", "dana") == (0, "user dana was not disabled\n")
    with session_scope(url) as session:
        assert principal_for_token(session, token) is None  # revoked tokens stay revoked
        assert sign_in(session, "dana", "dispatch-pass") is not None


def test_revoke_tokens_and_end_sessions_count_what_they_did(url: str) -> None:
    first = add_dana_with_a_token_and_a_session(url)
    second = invoke("token", "dana")[1].strip()
    assert invoke("revoke-tokens", "dana") == (0, "user dana: 2 API tokens revoked\n")
    assert invoke("revoke-tokens", "dana") == (0, "user dana: 0 API tokens revoked\n")
    assert invoke("end-sessions", "dana") == (0, "user dana: 1 console session ended\n")
    with session_scope(url) as session:
        assert [principal_for_token(session, token) for token in (first, second)] == [None, None]
        assert sign_in(session, "dana", "dispatch-pass") is not None  # still a user: only signed out
    assert invoke("list")[1].splitlines()[1] == "dana  dispatcher  active  0       1"


@pytest.mark.parametrize("command", ["token", "disable", "enable", "revoke-tokens", "end-sessions"])
def test_an_unknown_user_is_a_usage_error(url: str, command: str) -> None:
    code, output = invoke(command, "nobody")
    assert code == 2
    assert contains(output, "no user 'nobody'")


def test_adding_a_user_twice_is_refused(url: str) -> None:
    assert invoke("add", "dana", "--role", "dispatcher", "--no-password")[0] == 0
    code, output = invoke("add", "dana", "--role", "dispatcher", "--no-password")
    assert code == 2 and contains(output, "user 'dana' already exists")
    code, output = invoke("add", "lee", "--role", "janitor", "--no-password")
    assert code == 2 and contains(output, "role must be one of call-taker, dispatcher, supervisor")


def test_a_refused_setting_names_the_source_never_the_secret(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    short = "whsec_" + base64.b64encode(b"tail-of-a-real-secret").decode()
    monkeypatch.setenv("TRIAGE_WEBHOOK_SECRETS", f'{{"cad": ["{short}"]}}')
    get_settings.cache_clear()
    code, output = invoke("list")
    assert code == 2
    assert contains(output, "TRIAGE_WEBHOOK_SECRETS['cad']: a secret needs at least 24 random bytes")
    secret_part, printed = short.removeprefix("whsec_"), "".join(plain(output).split())  # wherever the box wraps
    assert [secret_part[i : i + 6] for i in range(len(secret_part) - 5) if secret_part[i : i + 6] in printed] == []


@pytest.mark.parametrize("name", ["", "dana\nroot", "\x1b[2J\x1b[31mdana", "<script>alert(1)</script>", "dana smith"])
def test_add_refuses_a_name_outside_the_rule_and_adds_nothing(url: str, name: str) -> None:
    code, output = invoke("add", name, "--role", "dispatcher", "--password", "dispatch-pass")
    assert code == 2
    assert contains(output, "a user name is 1 to 64 characters")
    assert "\x1b" not in output  # the refused name is never echoed to the terminal
    assert invoke("list") == (0, "NAME  ROLE  STATUS  TOKENS  SESSIONS\n")


def test_add_refuses_the_password_setup_would_refuse(url: str) -> None:
    code, output = invoke("add", "eve", "--role", "dispatcher", "--password", "8-chars!")
    assert code == 2 and contains(output, "a password needs at least 10 characters")
    assert invoke("list") == (0, "NAME  ROLE  STATUS  TOKENS  SESSIONS\n")
