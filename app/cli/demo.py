"""`triage-dispatch demo`: send a handful of signed sample calls to a running server, so the queue fills."""

from __future__ import annotations

import json
import uuid
from typing import Annotated

import httpx
import typer

from app.intake.signatures import signed_headers

SAMPLE_CALLS: tuple[tuple[str, str, str], ...] = (
    (
        "My husband just collapsed in the kitchen, he is not breathing and I can't feel a pulse",
        "Maria, wife",
        "12 Harbour Road, flat 3",
    ),
    (
        "I have crushing chest pain going down my left arm and I'm sweating, I'm 58",
        "Tom, the patient",
        "44 Mill Lane",
    ),
    (
        "Car crash on the ring road, the driver is bleeding a lot from his leg and is very pale",
        "passer-by",
        "Ring road by the fuel station",
    ),
    (
        "My mother fell in the bathroom, her hip hurts badly and she can't stand up, she is 81",
        "Daughter",
        "7 Elm Court",
    ),
    ("My son has had a fever of 39.5 since yesterday and is drinking less than usual", "Parent", "3 School Street"),
    ("I cut my finger on a kitchen knife, it is bleeding a little and I think it needs stitches", "Sam", "21 Pine Way"),
    ("I twisted my ankle playing football, it is swollen but I can walk on it", "Leo", "Sports ground, pitch 2"),
    ("I ran out of my blood pressure tablets and the pharmacy is closed", "Ann", "9 Quay Street"),
)
"""Written for the demo (not from any dataset): a spread of urgency, from a cardiac arrest to a prescription."""


def demo(
    url: Annotated[str, typer.Option(help="The running server (`triage-dispatch serve`).")] = "http://127.0.0.1:8000",
    source: Annotated[str, typer.Option(help="The webhook source the calls come from.")] = "demo",
    secret: Annotated[
        str | None, typer.Option(help="Its signing secret (default: the source's first in TRIAGE_WEBHOOK_SECRETS).")
    ] = None,
) -> None:
    """Send the sample calls, signed as a transcription system would (Standard Webhooks), and print what intake
    answered. The `demo` source's secret is the development placeholder (docs/intake.md), refused in production."""
    from app.settings import get_settings

    if secret is None:
        secrets = get_settings().webhook_secrets.get(source)
        if not secrets:
            raise typer.BadParameter(
                f"TRIAGE_WEBHOOK_SECRETS has no source {source!r}: pass --secret", param_hint="--source"
            )
        secret = secrets[0]
    endpoint = f"{url.rstrip('/')}/v1/intake/{source}"
    accepted = 0
    with httpx.Client(timeout=30) as client:
        for text, caller, location in SAMPLE_CALLS:
            body = json.dumps({"text": text, "caller": caller, "location": location}).encode()
            headers = signed_headers(secret, f"demo-{uuid.uuid4().hex}", body)
            try:
                response = client.post(endpoint, content=body, headers=headers)
            except httpx.HTTPError as error:
                typer.echo(f"nothing answers at {url} ({type(error).__name__}): start `triage-dispatch serve` first")
                raise typer.Exit(1) from None
            if response.status_code != 202:
                typer.echo(f"intake answered {response.status_code}: {response.text[:300]}")
                raise typer.Exit(1)
            accepted += 1
            typer.echo(f"202 {response.json()['incident_id']}  {text[:60]}")
    typer.echo(f"{accepted} calls accepted: watch them in the console, {url.rstrip('/')}/console/")
