"""`triage-dispatch tcpr report`: the month's telecommunicator-CPR figures (AHA T-CPR program) as CSV, from the
database the settings name."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

tcpr_app = typer.Typer(help="Telecommunicator-CPR figures of live calls.", no_args_is_help=True)


@tcpr_app.command("report")
def report_command(
    month: Annotated[str, typer.Option(help="The month, YYYY-MM (calls answered in it, UTC).")],
    out: Annotated[Path | None, typer.Option(help="Write the CSV here instead of printing it.")] = None,
) -> None:
    """The month's figures (arrest calls, share recognised, median answer-to-recognition, share given T-CPR, median
    answer-to-first-compression), then one row per live call."""
    from app.db.session import session_scope
    from app.live.tcpr import month_bounds, report, report_csv
    from app.settings import get_settings

    try:
        month_bounds(month)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    with session_scope(get_settings().database_url) as session:
        figures, clocks = report(session, month)
    text = report_csv(figures, clocks)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out}: {figures.live_calls} live calls, {figures.arrest_calls} arrest calls")
