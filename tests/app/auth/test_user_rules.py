"""One rule for user names and passwords, wherever a user is made: `users add` (the CLI), the first run's `/setup`,
and `add_user` beneath both."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from app.auth.accounts import add_user
from app.auth.user_rules import NAME_RULE, password_problem, user_name_problem
from app.db.migrate import upgrade
from app.db.models import User
from app.db.session import session_scope

REFUSED_NAMES = [
    "",
    " ",
    " dana",
    "dana ",
    "da na",
    "dana\n",
    "da\nna",
    "\x1b[31mdana\x1b[0m",
    "<b>dana</b>",
    "dana@psap.example.org",
    "-dana",
    ".dana",
    "dána",
    "d" * 65,
    "dana\u200b",
]


@pytest.mark.parametrize("name", REFUSED_NAMES)
def test_a_name_outside_the_rule_is_refused_with_the_rule(name: str) -> None:
    assert user_name_problem(name) == NAME_RULE


@pytest.mark.parametrize("name", ["dana", "Dana", "d.smith", "dana_2", "night-shift-7", "x", "d" * 64])
def test_a_name_inside_the_rule_is_taken(name: str) -> None:
    assert user_name_problem(name) == ""


@pytest.mark.parametrize(
    ("password", "problem"),
    [
        ("12345678", "a password needs at least 10 characters"),
        ("123456789", "a password needs at least 10 characters"),
        ("x" * 1025, "a password is at most 1024 characters"),
        ("correct\nhorse", "a password cannot hold control characters (a sign-in form cannot type them)"),
        ("night-shift-dana", ""),
        ("DANA-SMITH", "a password cannot be the user name"),
        ("correct horse", ""),
    ],
)
def test_a_password_is_checked_against_the_same_rule(password: str, problem: str) -> None:
    assert password_problem(password, "dana-smith") == problem


def test_add_user_holds_the_rule_and_names_differing_only_in_case_are_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'rules.db'}"
    upgrade(url)
    with session_scope(url) as session:
        add_user(session, "dana", "dispatcher", "dispatch-pass")
        with pytest.raises(ValueError, match=r"^a user name is 1 to 64 characters"):
            add_user(session, "<img src=x onerror=alert(1)>", "dispatcher", "dispatch-pass")
        with pytest.raises(ValueError, match=r"^a password needs at least 10 characters$"):
            add_user(session, "eve", "dispatcher", "8-chars!")
        with pytest.raises(ValueError, match=r"^user 'Dana' already exists as 'dana'$"):
            add_user(session, "Dana", "dispatcher", "dispatch-pass")
        add_user(session, "robot", "call-taker")  # API tokens only: no password, the name rule still holds
    with session_scope(url) as session:
        assert session.scalars(select(User.name).order_by(User.name)).all() == ["dana", "robot"]
