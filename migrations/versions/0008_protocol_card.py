"""protocol card: the card on each incident (id, version, language), the steps the dispatcher marked done, and the
guidance checker's verdict on each finished guidance

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 08:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("card_id", "card_version", "card_language", "card_steps_done")


def upgrade() -> None:
    # Not in batch mode, as in 0007: SQLite adds nullable columns and one with a constant default in place.
    op.add_column("incidents", sa.Column("card_id", sa.String(length=64), nullable=True))
    op.add_column("incidents", sa.Column("card_version", sa.String(length=32), nullable=True))
    op.add_column("incidents", sa.Column("card_language", sa.String(length=8), nullable=True))
    op.add_column("incidents", sa.Column("card_steps_done", sa.JSON(), nullable=False, server_default="[]"))
    op.add_column("guidance", sa.Column("check_passed", sa.Boolean(), nullable=True))
    op.add_column("guidance", sa.Column("check_failures", sa.JSON(), nullable=True))


def downgrade() -> None:
    # SQLite (3.35+) drops a column in place, as migration 0004 explains.
    op.drop_column("guidance", "check_failures")
    op.drop_column("guidance", "check_passed")
    for column in reversed(COLUMNS):
        op.drop_column("incidents", column)
