"""Our Standard Webhooks verification against a real peer's signer (the `standardwebhooks` package)."""

from __future__ import annotations

import base64
import datetime as dt
import time

import pytest
from standardwebhooks.webhooks import Webhook

from app.intake.signatures import SignatureError, sign, verify

SECRET = "whsec_" + base64.b64encode(b"a-test-secret-of-32-random-bytes").decode()
OTHER = "whsec_" + base64.b64encode(b"another-secret-of-32-random-byte").decode()
BODY = b'{"text": "unconscious, not breathing"}'


def peer_headers(
    secret: str = SECRET, body: bytes = BODY, at: float | None = None, msg_id: str = "msg_1"
) -> dict[str, str]:
    when = dt.datetime.fromtimestamp(at if at is not None else time.time(), tz=dt.UTC)
    signature = Webhook(secret).sign(msg_id, when, body.decode())
    return {"webhook-id": msg_id, "webhook-timestamp": str(int(when.timestamp())), "webhook-signature": signature}


def check(headers: dict[str, str], body: bytes = BODY, secrets: tuple[str, ...] = (SECRET,)) -> None:
    verify(secrets, headers["webhook-id"], headers["webhook-timestamp"], headers["webhook-signature"], body)


def test_a_peer_signed_message_verifies_and_our_signature_is_the_peers() -> None:
    headers = peer_headers()
    check(headers)
    assert sign(SECRET, "msg_1", int(headers["webhook-timestamp"]), BODY) == headers["webhook-signature"]
    Webhook(SECRET).verify(BODY, headers)  # and the peer accepts ours


def test_altered_body_wrong_secret_and_bad_headers_are_refused() -> None:
    headers = peer_headers()
    with pytest.raises(SignatureError, match="no signature matches"):
        check(headers, body=BODY.replace(b"not ", b""))
    with pytest.raises(SignatureError, match="no signature matches"):
        check(peer_headers(secret=OTHER))
    with pytest.raises(SignatureError, match="no v1 signature"):
        check({**headers, "webhook-signature": "v2,abc"})
    with pytest.raises(SignatureError, match="not an integer"):
        check({**headers, "webhook-timestamp": "soon"})
    with pytest.raises(SignatureError, match="missing"):
        verify((SECRET,), None, headers["webhook-timestamp"], headers["webhook-signature"], BODY)


def test_timestamps_outside_five_minutes_are_refused_either_way() -> None:
    with pytest.raises(SignatureError, match="too old"):
        check(peer_headers(at=time.time() - 301))
    with pytest.raises(SignatureError, match="too far in the future"):
        check(peer_headers(at=time.time() + 301))
    check(peer_headers(at=time.time() - 290))


def test_during_a_rotation_either_secret_and_any_offered_signature_verify() -> None:
    check(peer_headers(secret=OTHER), secrets=(SECRET, OTHER))
    headers = peer_headers()
    both = f"v1,{base64.b64encode(b'x' * 32).decode()} {headers['webhook-signature']}"
    check({**headers, "webhook-signature": both})


def test_our_senders_headers_are_the_peers_and_carry_the_json_type() -> None:
    from app.intake.signatures import signed_headers

    now = int(time.time())
    headers = signed_headers(SECRET, "msg_2", BODY, now_s=now)
    assert headers == {**peer_headers(at=now, msg_id="msg_2"), "content-type": "application/json"}
    Webhook(SECRET).verify(BODY, headers)
    before = int(time.time())
    stamped = int(signed_headers(SECRET, "msg_3", BODY)["webhook-timestamp"])
    assert before <= stamped <= int(time.time())  # now, when no time is given
