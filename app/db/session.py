"""Database engines and sessions for a URL (SQLite gets WAL and a busy timeout for concurrent writers)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

HIDE_PARAMETERS = True
"""Every engine the product makes passes this as `hide_parameters`: a failed statement's error (and every traceback
or log line that quotes it) then says `[SQL parameters hidden due to hide_parameters=True]` instead of the values,
which are the calls themselves (text, caller, location)."""


def make_engine(database_url: str) -> Engine:
    """An engine for the URL (its statements' parameters never in an error); a SQLite file's directory is
    created."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"timeout": 30, "check_same_thread": False}, hide_parameters=HIDE_PARAMETERS
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(connection: Any, _record: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, hide_parameters=HIDE_PARAMETERS)


@functools.cache
def session_factory(database_url: str) -> sessionmaker[Session]:
    """One session factory (and connection pool) per database URL and process."""
    return sessionmaker(make_engine(database_url), expire_on_commit=False)


@contextmanager
def session_scope(database_url: str) -> Iterator[Session]:
    """A session committed on success and rolled back on error."""
    session = session_factory(database_url)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
