"""How `serve` runs uvicorn, against a real server on a loopback port: forwarded headers believed only from
TRIAGE_TRUSTED_PROXIES."""

from __future__ import annotations

from pathlib import Path

import httpx

from app.api.main import create_app
from app.api.server import uvicorn_config
from app.db.migrate import upgrade
from app.redis.local import free_port
from app.settings import Settings
from tests.app.live_server import serving


def sign_in_statuses(tmp_path: Path, trusted_proxies: tuple[str, ...]) -> list[int]:
    """Four failed sign-ins to four user names, each with its own forged X-Forwarded-For, from 127.0.0.1, against a
    server that allows 3 failures per client address."""
    url = f"sqlite:///{tmp_path / 'forwarded.db'}"
    upgrade(url)
    settings = Settings(database_url=url, signin_client_failures=3, trusted_proxies=trusted_proxies)
    config = uvicorn_config(create_app(settings, reconciler=False), settings, "127.0.0.1", free_port())
    with serving(config), httpx.Client(base_url=f"http://127.0.0.1:{config.port}", timeout=30) as client:
        return [
            client.post(
                "/login",
                data={"username": f"user{index}", "password": "wrong"},
                headers={"X-Forwarded-For": f"198.51.100.{index}"},
            ).status_code
            for index in range(4)
        ]


def test_a_forged_forwarded_address_does_not_dodge_the_sign_in_limit(tmp_path: Path) -> None:
    assert sign_in_statuses(tmp_path, ()) == [303, 303, 303, 429]


def test_a_trusted_proxy_s_forwarded_address_is_the_client_s(tmp_path: Path) -> None:
    assert sign_in_statuses(tmp_path, ("127.0.0.1",)) == [303, 303, 303, 303]
