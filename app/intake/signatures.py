"""Standard Webhooks verification: HMAC-SHA256 of "id.timestamp.body" with a `whsec_` secret, on the raw bytes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Sequence


class SignatureError(Exception):
    """Why a webhook was not accepted as authentic (answered with 401); `reason` is a short metric label."""

    def __init__(self, message: str, reason: str = "bad_signature") -> None:
        super().__init__(message)
        self.reason = reason


def sign(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    """The `v1,<base64>` signature a sender puts in `webhook-signature`."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{webhook_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(secret: str, webhook_id: str, body: bytes, now_s: int | None = None) -> dict[str, str]:
    """The headers a Standard Webhooks sender puts on a JSON `body`: its id, the time (now unless given), the
    signature."""
    timestamp = int(time.time()) if now_s is None else now_s
    return {
        "content-type": "application/json",
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, webhook_id, timestamp, body),
    }


def verify(
    secrets: Sequence[str],
    webhook_id: str | None,
    timestamp: str | None,
    signature_header: str | None,
    body: bytes,
    tolerance_s: int = 300,
    now_s: float | None = None,
) -> None:
    """Raise `SignatureError` unless one `v1` signature matches one of the secrets within the time tolerance."""
    if not webhook_id or not timestamp or not signature_header:
        raise SignatureError("missing webhook-id, webhook-timestamp or webhook-signature header", "missing_headers")
    try:
        sent_s = int(timestamp)
    except ValueError:
        raise SignatureError("webhook-timestamp is not an integer", "stale_timestamp") from None
    now = time.time() if now_s is None else now_s
    if sent_s < now - tolerance_s:
        raise SignatureError("webhook-timestamp is too old", "stale_timestamp")
    if sent_s > now + tolerance_s:
        raise SignatureError("webhook-timestamp is too far in the future", "stale_timestamp")
    offered = [
        part.split(",", 1)[1].encode()
        for part in signature_header.split(" ")
        if part.startswith("v1,") and len(part) > 3
    ]
    if not offered:
        raise SignatureError("no v1 signature in webhook-signature")
    for secret in secrets:
        expected = sign(secret, webhook_id, sent_s, body).split(",", 1)[1].encode()
        # Every pair is compared, in constant time, so the time taken says nothing about which one was close.
        matches = [hmac.compare_digest(expected, candidate) for candidate in offered]
        if any(matches):
            return
    raise SignatureError("no signature matches")
