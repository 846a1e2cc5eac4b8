"""The one rule for user names and passwords, wherever a user is made: `users add` and the first run's `/setup`."""

from __future__ import annotations

import re
import unicodedata

USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A user name reaches `users list` in a terminal, the console's pages, the audit and its CSV, and EIDO's agent ids
(`name@agency`): plain ASCII letters, digits and three marks, so no escape, markup, space, `@` or look-alike letter
can ride along."""
NAME_RULE = (
    "a user name is 1 to 64 characters: letters a-z and A-Z, digits, '.', '_' and '-', starting with a letter or a "
    "digit"
)
MIN_PASSWORD_CHARS = 10
MAX_PASSWORD_CHARS = 1024


class UserRuleError(ValueError):
    """A user name or password outside the rule (the message is the rule, never the value)."""


def user_name_problem(name: str) -> str:
    """Why `name` cannot be a user's ("" when it can)."""
    return "" if USER_NAME.fullmatch(name) else NAME_RULE


def password_problem(password: str, name: str) -> str:
    """Why `password` cannot be `name`'s ("" when it can): long enough, typeable in a sign-in form, not the name."""
    if len(password) < MIN_PASSWORD_CHARS:
        return f"a password needs at least {MIN_PASSWORD_CHARS} characters"
    if len(password) > MAX_PASSWORD_CHARS:
        return f"a password is at most {MAX_PASSWORD_CHARS} characters"
    if any(unicodedata.category(character) == "Cc" for character in password):
        return "a password cannot hold control characters (a sign-in form cannot type them)"
    if password.casefold() == name.casefold():
        return "a password cannot be the user name"
    return ""


def check_new_user(name: str, password: str | None) -> None:
    """Raise `UserRuleError` with the first rule a new user breaks (a user without a password has only a name)."""
    problem = user_name_problem(name) or (password_problem(password, name) if password is not None else "")
    if problem:
        raise UserRuleError(problem)
