"""The compose pilot really run (`make pilot`, docs/deploy.md): docker-compose.yml started in a Docker Engine from
images built on a local Debian base (deploy/pilot/pilot.sh), the first supervisor created as the docs say, signed
calls posted through the TLS proxy each end classified with finished guidance, a restart of the stack loses nothing,
and with the Sentinel profile the app keeps serving after the Redis primary is killed.

Opt-in: TRIAGE_PILOT=1 and a Docker Engine at DOCKER_HOST (`make pilot` sets both). The images' build and the run
take longer than CI's budget, so CI never runs it; tests/app/test_deployment_files.py checks the files in every run."""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.engine_worker.builtin_models import TEST_MODEL_LABEL
from tests.app.stack import signed_headers
from tests.deploy.compose_project import ROOT, ComposeProject, run


def docker_engine_answers() -> bool:
    if shutil.which("docker") is None or shutil.which("docker-compose") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, check=False, timeout=30).returncode == 0


pytestmark = [
    pytest.mark.pilot,
    pytest.mark.skipif(os.environ.get("TRIAGE_PILOT") != "1", reason="the compose pilot runs with TRIAGE_PILOT=1"),
    pytest.mark.skipif(
        os.environ.get("TRIAGE_PILOT") == "1" and not docker_engine_answers(),
        reason="no Docker Engine at DOCKER_HOST, or no docker-compose (deploy/pilot/pilot.sh engine)",
    ),
]

SECRET = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
CONSOLE_SECRET = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
"""The console source's own: a secret belongs to one source only."""
SUPERVISOR, SUPERVISOR_PASSWORD = "dana", "pilot-" + secrets.token_hex(8)
MAX_NEW_TOKENS = 16
SERVICES = ("redis", "postgres", "web", "proxy", "worker", "engine-cpu")
SENTINEL_SERVICES = ("redis-replica", "sentinel-1", "sentinel-2", "sentinel-3")
CARDIAC_ARREST = "my husband collapsed, he is not breathing and not responding"
CALLS = (
    CARDIAC_ARREST,
    "caller says her father has chest pain and is sweating",
    "my son fell off his bike and cut his knee, the bleeding has stopped",
    "she is 38 weeks pregnant and the contractions are three minutes apart",
    "sore throat for three days and a mild fever, no trouble breathing",
)
FIGURES: dict[str, Any] = {}


def operator_env() -> str:
    """.env.example as docs/deploy.md says to fill it, for the tiny built-in model (no hub: offline)."""
    lines = []
    for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.startswith("POSTGRES_PASSWORD="):
            line = f"POSTGRES_PASSWORD={secrets.token_hex(24)}"
        elif line.startswith("TRIAGE_WEBHOOK_SECRETS="):
            line = "TRIAGE_WEBHOOK_SECRETS='" + json.dumps({"cad": [SECRET], "console": [CONSOLE_SECRET]}) + "'"
        elif line.startswith("TRIAGE_MODEL="):
            line = "TRIAGE_MODEL=builtin:tiny-llama"
        lines.append(line)
    lines += [f"TRIAGE_MAX_NEW_TOKENS={MAX_NEW_TOKENS}", "HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ComposeProject]:
    project = ComposeProject.create(tmp_path_factory.mktemp("pilot"), operator_env())
    try:
        yield project
    finally:
        project.compose("down", "--volumes", "--remove-orphans")
        record_figures()


def record_figures() -> None:
    path = Path(os.environ.get("TRIAGE_PILOT_DIR", "/var/tmp/triage-pilot")) / "figures.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(FIGURES, indent=2) + "\n", encoding="utf-8")
    print(f"\npilot figures ({path}):\n{json.dumps(FIGURES, indent=2)}")


def start(project: ComposeProject) -> float:
    """`up -d` (no build: pilot.sh built the images) until every service is healthy; the seconds it took."""
    begin = time.monotonic()
    project.compose("up", "-d", "--no-build")
    project.wait_healthy(SERVICES, timeout_s=900)
    return time.monotonic() - begin


def https_client(project: ComposeProject, token: str) -> httpx.Client:
    """A client of the proxy on the host's port 443, trusting Caddy's own root certificate and nothing else."""
    root = project.directory / "caddy-root.crt"
    root.write_text(project.compose("exec", "-T", "proxy", "cat", "/data/caddy/pki/authorities/local/root.crt"))
    context = ssl.create_default_context(cafile=str(root))
    return httpx.Client(
        base_url="https://localhost", verify=context, timeout=30, headers={"authorization": f"Bearer {token}"}
    )


def first_supervisor(project: ComposeProject) -> str:
    """docs/deploy.md's first user (the password prompted twice), then an API token for the checks."""
    added = project.compose(
        "run",
        "--rm",
        "-T",
        "web",
        "triage-dispatch",
        "users",
        "add",
        SUPERVISOR,
        "--role",
        "supervisor",
        stdin=f"{SUPERVISOR_PASSWORD}\n{SUPERVISOR_PASSWORD}\n",
    )
    assert f"user {SUPERVISOR} (supervisor) added" in added
    token = project.compose("exec", "-T", "web", "triage-dispatch", "users", "token", SUPERVISOR, "--label", "pilot")
    return token.strip().splitlines()[-1]


def post_call(client: httpx.Client, text: str, call_id: str, timeout_s: float = 120) -> str:
    """A Standard Webhooks call from the source `cad` through the proxy: its incident id once answered 202. Like a
    Standard Webhooks sender, the same message again after Retry-After when told to wait (429, 503)."""
    body = json.dumps({"text": text, "call_id": call_id})
    deadline = time.monotonic() + timeout_s
    while True:
        response = client.post("/v1/intake/cad", content=body, headers=signed_headers(SECRET, f"msg-{call_id}", body))
        if response.status_code not in (429, 503) or time.monotonic() > deadline:
            break
        FIGURES["intake answers to retry (429, 503)"] = FIGURES.get("intake answers to retry (429, 503)", 0) + 1
        time.sleep(float(response.headers.get("retry-after", "1")))
    assert response.status_code == 202, response.text
    return str(response.json()["incident_id"])


def post_calls(client: httpx.Client, batch: str) -> dict[str, str]:
    """Every call of CALLS, numbered in `batch`: incident id -> its text."""
    return {post_call(client, text, f"{batch}-{n}"): text for n, text in enumerate(CALLS)}


def wait_finished(client: httpx.Client, incidents: dict[str, str], timeout_s: float = 600) -> dict[str, Any]:
    """Each incident's detail once its guidance is finished (done or failed)."""
    deadline = time.monotonic() + timeout_s
    details: dict[str, Any] = {}
    while len(details) < len(incidents):
        for incident_id in incidents.keys() - details.keys():
            response = client.get(f"/v1/incidents/{incident_id}")
            assert response.status_code in (200, 503), response.text  # 503: the database or Redis away, for now
            if response.status_code == 200 and response.json()["guidance_state"] in ("done", "failed"):
                details[incident_id] = response.json()
        assert time.monotonic() < deadline, f"unfinished after {timeout_s:.0f} s: {incidents.keys() - details.keys()}"
        time.sleep(1)
    return details


def assert_classified_with_finished_guidance(details: dict[str, Any], incidents: dict[str, str]) -> None:
    assert set(details) == set(incidents)
    for incident_id, detail in details.items():
        assert (detail["id"], detail["text"], detail["source"]) == (incident_id, incidents[incident_id], "cad")
        assert detail["guidance_state"] == "done", detail
        assert detail["classification"]["esi_level"] == detail["esi_level"] and 1 <= detail["esi_level"] <= 5
        if detail["text"] == CARDIAC_ARREST:
            assert detail["esi_level"] == 1  # not breathing, not responding: immediate
        guidance, outcome = detail["guidance"], detail["outcome"]
        assert guidance["tokens"] == MAX_NEW_TOKENS and guidance["text"], guidance
        assert guidance["label"] == TEST_MODEL_LABEL
        assert (outcome["engine"], outcome["error"], outcome["tokens"]) == ("hf", None, MAX_NEW_TOKENS)


def served(client: httpx.Client, batch: str) -> dict[str, Any]:
    """CALLS posted as `batch`, checked once finished; their details."""
    begin = time.monotonic()
    incidents = post_calls(client, batch)
    details = wait_finished(client, incidents)
    assert_classified_with_finished_guidance(details, incidents)
    FIGURES[f"{batch}: {len(CALLS)} calls posted to all finished (s)"] = round(time.monotonic() - begin, 1)
    return details


def same_results(before: dict[str, Any], after: dict[str, Any]) -> None:
    for incident_id, detail in before.items():
        kept = after[incident_id]
        assert (kept["esi_level"], kept["guidance"]["text"]) == (detail["esi_level"], detail["guidance"]["text"])


def restart_loses_nothing(project: ComposeProject, client: httpx.Client, before: dict[str, Any]) -> dict[str, Any]:
    """Calls accepted just before the stack goes down (its containers removed, its volumes kept) finish after it is up
    again; the finished ones are unchanged. (With `stop` then `up`, which keep the containers, Compose 1.29 found the
    restarted `web` "unhealthy" at once and refused to start `proxy`: docs/deploy.md.)"""
    pending = post_calls(client, "restart")
    begin = time.monotonic()
    project.compose("down")
    project.compose("up", "-d", "--no-build")
    project.wait_healthy(SERVICES, timeout_s=900)
    FIGURES["restart: down, up, every service healthy (s)"] = round(time.monotonic() - begin, 1)
    after = wait_finished(client, {**dict.fromkeys(before, ""), **pending})
    same_results(before, after)
    assert_classified_with_finished_guidance({key: after[key] for key in pending}, pending)
    return after


def primary(project: ComposeProject) -> str:
    """The Redis primary's name as sentinel-1 sees it."""
    answer = project.compose(
        "exec", "-T", "sentinel-1", "redis-cli", "-p", "26379", "sentinel", "get-master-addr-by-name", "triage"
    )
    return answer.split()[0]


def failover_keeps_serving(project: ComposeProject, client: httpx.Client, before: dict[str, Any]) -> None:
    """docs/deploy.md's Sentinel profile (.env plus deploy/sentinel.env: Compose 1.29 reads one env file), then the
    primary killed: the sentinels promote the replica and calls keep ending with finished guidance."""
    sentinel_env = (project.directory / ".env").read_text() + (project.directory / "deploy/sentinel.env").read_text()
    (project.directory / "sentinel.env").write_text(sentinel_env, encoding="utf-8")
    project.env_file = "sentinel.env"
    begin = time.monotonic()
    # The sentinels first: the app's services do not wait for them (no `required: false` in Compose 1.29), and a web
    # recreated before a sentinel answers went "unhealthy", which stops Compose 1.29 from starting `proxy`.
    project.compose("up", "-d", "--no-build", *SENTINEL_SERVICES)
    project.wait_healthy(SENTINEL_SERVICES, timeout_s=300)
    project.compose("up", "-d", "--no-build")
    project.wait_healthy(SERVICES + SENTINEL_SERVICES, timeout_s=900)
    FIGURES["sentinel profile: up to every service healthy (s)"] = round(time.monotonic() - begin, 1)
    served(client, "sentinel")
    assert primary(project) == "redis"
    # Killed and kept down, as a primary whose host died: its restart policy cleared first, else Docker starts it
    # again within the sentinels' 5 s and nothing fails over.
    run(["docker", "update", "--restart", "no", project.container("redis")])
    killed = time.monotonic()
    project.compose("kill", "redis")
    while primary(project) != "redis-replica":
        assert time.monotonic() - killed < 120, "no failover within 120 s"
        time.sleep(1)
    FIGURES["failover: primary killed to replica promoted (s)"] = round(time.monotonic() - killed, 1)
    served(client, "after-failover")
    FIGURES["failover: primary killed to the next calls all finished (s)"] = round(time.monotonic() - killed, 1)
    same_results(before, wait_finished(client, dict.fromkeys(before, "")))


def test_the_compose_pilot_serves_signed_calls_through_tls_survives_a_restart_and_a_redis_failover(
    project: ComposeProject,
) -> None:
    FIGURES["start: up to every service healthy (s)"] = round(start(project), 1)
    client = https_client(project, first_supervisor(project))
    redirect = httpx.get("http://localhost/healthz", timeout=10)
    assert (redirect.status_code, redirect.headers["location"]) == (308, "https://localhost/healthz")
    with client:
        health = client.get("/healthz")
        assert health.status_code == 200 and health.headers["strict-transport-security"].startswith("max-age=")
        FIGURES["tls"] = health.extensions["network_stream"].get_extra_info("ssl_object").version()
        first = served(client, "first")
        after_restart = restart_loses_nothing(project, client, first)
        failover_keeps_serving(project, client, after_restart)
